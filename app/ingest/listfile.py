"""Parse conference list files: a `<VENUE> <YEAR> Papers` header, then one abstract per line.

Also the types every input format parses into, and the decoding checks they share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from app.ingest.people import People

MAX_ABSTRACT_CHARS = 100_000
HEADER_HINT = "a header line '<VENUE> <YEAR> Papers' (or '<VENUE> <YEAR> 论文列表')"
_HEADER = re.compile(r"^(?P<venue>.*?)\s*(?P<year>(?<!\d)\d{4}(?!\d))\s+(?:papers|论文列表)$", re.I)
_NO_YEAR_HEADER = re.compile(r"^(?P<venue>.+?)\s+(?:papers|论文列表)$", re.I)
_LINE_END = re.compile(r"\r\n|\r|\n")
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class InputError(ValueError):
    """Input the catalog cannot take, with its place (file and line) and what was expected:
    a file rejected whole, or one row of it (list files, JSON Lines and CSV alike)."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        self.path = str(path)
        self.line = line  # 0: the file (or directory) as a whole
        self.message = message
        super().__init__(f"{self.path}:{line}: {message}" if line else f"{self.path}: {message}")


@dataclass(frozen=True)
class RawAbstract:
    """One paper as read from a file, before normalization."""

    line: int  # 1-based line number in the source file
    text: str  # the abstract, verbatim
    venue: str = ""
    year: int = 0
    title: str = ""
    url: str = ""
    keywords: tuple[str, ...] = ()
    status: str = ""  # the venue's decision: "Oral", "Spotlight", "Poster", ...
    people: People = People()  # authors, affiliations, institutions, countries, code, TL;DR


@dataclass(frozen=True)
class ParsedList:
    path: Path
    abstracts: list[RawAbstract]
    # Rows that could not be used; the rest of the file still loads (JSON Lines and CSV).
    row_errors: list[InputError] = field(default_factory=list)
    # Fields left out of rows that still load (a malformed affiliations list, say).
    field_errors: list[InputError] = field(default_factory=list)


def parse_list_bytes(path: Path, data: bytes) -> ParsedList:
    """Parse one list file's bytes, or raise InputError naming the file, the line and the
    problem."""
    text = decode_text(path, data)
    lines = _LINE_END.split(text)
    header_index = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_index is None:
        raise InputError(path, 1, f"the file is empty; expected {HEADER_HINT}")
    venue, year = _parse_header(path, header_index + 1, lines[header_index].strip())
    abstracts: list[RawAbstract] = []
    for number, line in enumerate(lines[header_index + 1 :], start=header_index + 2):
        stripped = line.strip()
        if not stripped:
            continue
        if len(stripped) > MAX_ABSTRACT_CHARS:
            raise InputError(
                path,
                number,
                f"the abstract is {len(stripped):,} characters long; "
                f"at most {MAX_ABSTRACT_CHARS:,} are accepted",
            )
        abstracts.append(RawAbstract(line=number, text=stripped, venue=venue, year=year))
    if not abstracts:
        raise InputError(
            path, header_index + 1, "the header is not followed by any abstract; "
            "expected one abstract per line after a blank line"
        )
    return ParsedList(path=path, abstracts=abstracts)


def decode_text(path: Path, data: bytes) -> str:
    """UTF-8 text of a file, or a InputError naming where it is not."""
    if not data or data.isspace():  # strip() would copy the whole file
        raise InputError(path, 1, f"the file is empty; expected {HEADER_HINT}")
    if data.startswith(_UTF16_BOMS):
        raise InputError(path, 1, "the file is UTF-16 encoded; expected UTF-8 text")
    data = data.removeprefix(_UTF8_BOM)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(
            path, _line_of(data, nul), "binary data (a NUL byte); expected UTF-8 text"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            path,
            _line_of(data, error.start),
            f"invalid UTF-8 (byte 0x{data[error.start]:02x}); expected UTF-8 text",
        ) from None


def _line_of(data: bytes, offset: int) -> int:
    before = data[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


def check_year(year: int) -> str | None:
    """Why a year is unusable, or None."""
    return None if 1900 <= year <= 2100 else f"the year {year} is out of range (1900-2100)"


def _parse_header(path: Path, number: int, line: str) -> tuple[str, int]:
    match = _HEADER.match(line)
    if match is None:
        shown = line if len(line) <= 60 else line[:57] + "..."
        if _NO_YEAR_HEADER.match(line):
            raise InputError(path, number, f"the header {shown!r} has no 4-digit year; "
                                f"expected {HEADER_HINT}")
        raise InputError(path, number, f"expected {HEADER_HINT}, found {shown!r}")
    venue = " ".join(match["venue"].split())
    year = int(match["year"])
    if not venue or not any(ch.isalpha() for ch in venue) or len(venue) > 80:
        raise InputError(path, number, f"the header has no usable venue name; "
                            f"expected {HEADER_HINT}")
    problem = check_year(year)
    if problem:
        raise InputError(path, number, problem)
    return venue, year
