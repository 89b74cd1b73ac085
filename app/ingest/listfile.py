"""Parse conference list files: a `<VENUE> <YEAR> Papers` header, then one abstract per line.

Also the types every input format parses into, and the decoding checks they share.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from app.ingest.people import People

MAX_ABSTRACT_CHARS = 100_000
HEADER_HINT = "a header line '<VENUE> <YEAR> Papers' (or '<VENUE> <YEAR> 论文列表')"
_HEADER = re.compile(r"^(?P<venue>.*?)\s*(?P<year>(?<!\d)\d{4}(?!\d))\s+(?:papers|论文列表)$", re.I)
_NO_YEAR_HEADER = re.compile(r"^(?P<venue>.+?)\s+(?:papers|论文列表)$", re.I)
LINE_END = re.compile(rb"\r\n|\r|\n")
_CHECK_CHUNK = 1 << 20
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
    # What the row says besides: every field from here on is in its paper's change digest
    # (identity.source_digest), in this order.
    title: str = ""
    url: str = ""
    status: str = ""  # the venue's decision: "Oral", "Spotlight", "Poster", ...
    keywords: tuple[str, ...] = ()
    people: People = People()  # authors, affiliations, institutions, countries, code, TL;DR


@dataclass(frozen=True)
class ParsedList:
    """A file's papers, read as they are iterated (an ingest holds a chunk of them at a time);
    the errors of the rows read so far. An error that refuses the whole file is raised before
    the first paper, except "no usable row", which can only be known at the end."""

    path: Path
    abstracts: Iterable[RawAbstract]
    # Rows that could not be used; the rest of the file still loads (JSON Lines and CSV).
    row_errors: list[InputError] = field(default_factory=list)
    # Fields left out of rows that still load (a malformed affiliations list, say).
    field_errors: list[InputError] = field(default_factory=list)

    def whole(self) -> ParsedList:
        """Every paper read at once, as a list (tests and benches read files so)."""
        return ParsedList(self.path, list(self.abstracts), self.row_errors, self.field_errors)


def parse_list_bytes(path: Path, data: bytes) -> ParsedList:
    """Parse one list file's bytes, or raise InputError naming the file, the line and the
    problem."""
    return stream_list(path, data).whole()


def stream_list(path: Path, data: bytes) -> ParsedList:
    """A list file's papers, read as they are iterated."""
    start = check_text(path, data)
    lines = text_lines(data, start, LINE_END)
    for number, line in lines:
        if line.strip():
            venue, year = _parse_header(path, number, line.strip())
            return ParsedList(path, _list_abstracts(path, data, lines, number, venue, year))
    raise InputError(path, 1, f"the file is empty; expected {HEADER_HINT}")


def _list_abstracts(path: Path, data: bytes, lines: Iterator[tuple[int, str]],
                    header_line: int, venue: str, year: int) -> Iterator[RawAbstract]:
    _refuse_overlong(path, data, header_line)
    found = False
    for number, line in lines:
        stripped = line.strip()
        if stripped:
            found = True
            yield RawAbstract(line=number, text=stripped, venue=venue, year=year)
    if not found:
        raise InputError(path, header_line, "the header is not followed by any abstract; "
                         "expected one abstract per line after a blank line")


def _refuse_overlong(path: Path, data: bytes, header_line: int) -> None:
    """An abstract past MAX_ABSTRACT_CHARS refuses the file before any paper of it is read:
    lines of more bytes than that are decoded and counted in characters."""
    for number, begin, end, _ in line_spans(data, 0, LINE_END):
        if number > header_line and end - begin > MAX_ABSTRACT_CHARS:
            stripped = data[begin:end].decode("utf-8").strip()
            if len(stripped) > MAX_ABSTRACT_CHARS:
                raise InputError(path, number, f"the abstract is {len(stripped):,} characters "
                                 f"long; at most {MAX_ABSTRACT_CHARS:,} are accepted")


def line_spans(data: bytes, start: int,
               ends: re.Pattern[bytes]) -> Iterator[tuple[int, int, int, int]]:
    """Each line's number, where it begins and ends, and where the next begins; `ends`: what
    ends a line."""
    number = 0
    position = start
    while position < len(data):
        match = ends.search(data, position)
        end, after = (match.start(), match.end()) if match else (len(data), len(data))
        number += 1
        yield number, position, end, after
        position = after


def text_lines(data: bytes, start: int, ends: re.Pattern[bytes],
               keep_ends: bool = False) -> Iterator[tuple[int, str]]:
    """The text's lines from `start` with their numbers, decoded one at a time (a whole
    file's text as one string costs up to four bytes a character); with `keep_ends`, each
    line keeps what ended it."""
    for number, begin, end, after in line_spans(data, start, ends):
        yield number, data[begin : after if keep_ends else end].decode("utf-8")


def check_text(path: Path, data: bytes) -> int:
    """Where the UTF-8 text of a file starts (after a byte order mark), or an InputError
    naming where it is not UTF-8 text. Checked whole before any line is read, so that a file
    refused for its encoding contributes nothing."""
    if not data or data.isspace():  # strip() would copy the whole file
        raise InputError(path, 1, f"the file is empty; expected {HEADER_HINT}")
    if data.startswith(_UTF16_BOMS):
        raise InputError(path, 1, "the file is UTF-16 encoded; expected UTF-8 text")
    start = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    nul = data.find(b"\x00", start)
    if nul >= 0:
        raise InputError(
            path, _line_of(data, nul), "binary data (a NUL byte); expected UTF-8 text"
        )
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for offset in range(start, len(data), _CHECK_CHUNK):
        pending = len(decoder.getstate()[0])  # bytes of a character the last chunk began
        try:
            decoder.decode(view[offset : offset + _CHECK_CHUNK],
                           final=offset + _CHECK_CHUNK >= len(data))
        except UnicodeDecodeError as error:
            bad = offset - pending + error.start
            raise InputError(path, _line_of(data, bad), f"invalid UTF-8 (byte 0x{data[bad]:02x}); "
                             "expected UTF-8 text") from None
    return start


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
