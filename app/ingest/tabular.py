"""Parse JSON Lines and CSV exports: one paper per row, with venue, year, title, abstract and
optional people and links (app/ingest/people.py), url, keywords and status. A bad row is
reported with its line and good rows load; a bad field of people or links is reported with
its line and its row loads without it.

Records end at a line feed only (JSON Lines) or at a line end outside quotes (CSV): U+2028,
U+2029 and other characters that `str.splitlines` takes for line ends are content there.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.ingest.listfile import (
    LINE_END,
    MAX_ABSTRACT_CHARS,
    InputError,
    ParsedList,
    RawAbstract,
    check_text,
    check_year,
    text_lines,
)
from app.ingest.people import items, read_people, read_url, storable
from app.words import drop_invisible

REQUIRED = ("venue", "year", "abstract")
# A row holds one abstract (at most MAX_ABSTRACT_CHARS) and its people, links and keywords.
MAX_ROW_CHARS = 4 * MAX_ABSTRACT_CHARS
# What is kept of each field (README, "Inputs"): longer titles, names and keywords are cut,
# a longer url is an error of its row.
MAX_TITLE_CHARS = 500
MAX_ITEM_CHARS = 200  # one keyword
MAX_KEYWORDS = 50
_LINE_FEED = re.compile(rb"\n")  # JSON Lines: U+2028 and a lone carriage return are content
FIELDS_HINT = ("fields venue, year, abstract (required), title, authors, affiliations, "
               "institutions, countries, url, code, tldr, keywords, status")


def parse_jsonl_bytes(path: Path, data: bytes) -> ParsedList:
    return stream_jsonl(path, data).whole()


def parse_csv_bytes(path: Path, data: bytes) -> ParsedList:
    return stream_csv(path, data).whole()


def stream_jsonl(path: Path, data: bytes) -> ParsedList:
    """A JSON Lines export's papers, read as they are iterated."""
    lines = text_lines(data, check_text(path, data), _LINE_FEED)
    errors: list[InputError] = []

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        for number, line in lines:
            row = _json_row(path, number, line, errors)
            if row is not None:
                yield number, row

    return _records(path, rows(), errors)


def _json_row(path: Path, number: int, line: str,
              errors: list[InputError]) -> dict[str, Any] | None:
    """The line's JSON object; None (its error noted) when it is blank or not one."""
    if not line.strip():
        return None
    if len(line) > MAX_ROW_CHARS:
        errors.append(InputError(path, number, f"a row of {len(line):,} characters; "
                                 f"at most {MAX_ROW_CHARS:,} are read"))
        return None
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        errors.append(InputError(path, number, f"not valid JSON ({error.msg})"))
        return None
    except (RecursionError, ValueError):  # nested thousands deep, or a 100,000-digit number
        errors.append(InputError(path, number, "not a readable JSON object (nested too "
                                 "deeply, or a number too long)"))
        return None
    if not isinstance(row, dict):
        errors.append(InputError(path, number, f"expected a JSON object with {FIELDS_HINT}"))
        return None
    return row


def stream_csv(path: Path, data: bytes) -> ParsedList:
    """A CSV export's papers, read as they are iterated."""
    lines = _CountedLines(text_lines(data, check_text(path, data), LINE_END, keep_ends=True))
    # Strict: text after a closing quote ('"abc"def') is an error of its row, not merged in.
    reader = csv.DictReader(lines, strict=True)
    header = [name.strip().lower() for name in reader.fieldnames or []]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise InputError(path, 1, f"the header lacks {', '.join(missing)}; "
                            f"expected a header row with {FIELDS_HINT}")
    reader.fieldnames = header

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        # A row that cannot be read is reported at the line it starts on, and reading goes on
        # with the next line: one broken row loses nothing else.
        while True:
            start = lines.read + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                errors.append(InputError(path, start, _csv_problem(error, lines.read)))
                continue
            yield start, row

    errors: list[InputError] = []
    return _records(path, rows(), errors)


class _CountedLines:
    """The text's lines (ended by line feeds or carriage returns only), counting those read:
    the csv reader reads no further than the row it returns, so the count is where the next
    row starts."""

    def __init__(self, lines: Iterator[tuple[int, str]]) -> None:
        self.lines = lines
        self.read = 0

    def __iter__(self) -> _CountedLines:
        return self

    def __next__(self) -> str:
        self.read, line = next(self.lines)
        return line


def _csv_problem(error: csv.Error, last_line: int) -> str:
    if "unexpected end of data" in str(error):
        return (f"a quoted field opened here is never closed: lines up to {last_line} were "
                "read into it and are not loaded")
    return f"unreadable CSV row ({error})"


def _records(path: Path, rows: Iterator[tuple[int, dict[str, Any]]],
             errors: list[InputError]) -> ParsedList:
    dropped: list[InputError] = []
    return ParsedList(path, _abstracts(path, rows, errors, dropped), errors, dropped)


def _abstracts(path: Path, rows: Iterator[tuple[int, dict[str, Any]]],
               errors: list[InputError], dropped: list[InputError]) -> Iterator[RawAbstract]:
    """The rows' papers as they are read, their errors noted in line order."""
    found = False
    for number, row in rows:
        problems: list[str] = []
        try:
            abstract = _record(number, row, problems)
        except ValueError as error:
            errors.append(InputError(path, number, str(error)))
            continue
        found = True
        dropped.extend(InputError(path, number, f"{problem}; the row loads without it")
                       for problem in problems)
        yield abstract
    if not found:
        if errors:
            raise InputError(path, errors[0].line,
                             f"no usable row; the first problem: {errors[0].message}")
        raise InputError(path, 1, f"the file has no rows; expected rows with {FIELDS_HINT}")


def _verbatim(row: dict[str, Any], name: str) -> str:
    value = row.get(name)
    if value is None:
        return ""
    if not isinstance(value, str | int | float):
        raise ValueError(f"{name} must be text, found {type(value).__name__}")
    return storable(name, " ".join(str(value).split()))


def _text(row: dict[str, Any], name: str) -> str:
    """A field as shown, without invisible formatting (an abstract is kept verbatim: its
    text is its paper's identity, and only its display drops them)."""
    return " ".join(drop_invisible(_verbatim(row, name)).split())


def _list(row: dict[str, Any], name: str) -> tuple[str, ...]:
    shown = (" ".join(drop_invisible(item).split()) for item in items(row, name))
    return tuple(dict.fromkeys(item[:MAX_ITEM_CHARS] for item in shown if item))


def _record(number: int, row: dict[str, Any], problems: list[str]) -> RawAbstract:
    """The row's paper; a malformed optional field of people or links is left out and
    described in `problems`, a malformed required one (or title, url, keywords) is the
    row's error."""
    missing = [name for name in REQUIRED if not _text(row, name)]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}; expected {FIELDS_HINT}")
    venue = _text(row, "venue")
    try:
        year = int(_text(row, "year"))
    except ValueError:
        raise ValueError(f"the year {_text(row, 'year')!r} is not a 4-digit year") from None
    problem = check_year(year)
    if problem:
        raise ValueError(problem)
    if not any(ch.isalpha() for ch in venue) or len(venue) > 80:
        raise ValueError(f"the venue {venue[:40]!r} is not a usable venue name")
    abstract = _verbatim(row, "abstract")
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise ValueError(f"the abstract is {len(abstract):,} characters long; "
                         f"at most {MAX_ABSTRACT_CHARS:,} are accepted")
    url = read_url(row, "url")
    keywords = _list(row, "keywords")
    if len(keywords) == 1 and "," in keywords[0]:
        keywords = tuple(k.strip() for k in keywords[0].split(",") if k.strip())
    return RawAbstract(line=number, text=abstract, venue=venue, year=year,
                       title=_text(row, "title")[:MAX_TITLE_CHARS], url=url,
                       keywords=keywords[:MAX_KEYWORDS], status=_text(row, "status")[:40],
                       people=read_people(row, problems))
