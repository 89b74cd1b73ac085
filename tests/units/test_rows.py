"""JSON Lines, CSV and list files parsed from bytes: every bound at its edge and every
problem with its exact line and message (make mutants runs these)."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest

from app.ingest import listfile, tabular
from app.ingest.identity import BARE, source_digest
from app.ingest.listfile import InputError, RawAbstract, parse_list_bytes
from app.ingest.people import People
from app.ingest.tabular import parse_csv_bytes, parse_jsonl_bytes

PATH = Path("papers.jsonl")
GOOD = {"venue": "ICML", "year": 2026, "abstract": "An abstract."}


def jsonl(*rows: object) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows).encode()


def problems(parsed) -> list[tuple[int, str]]:
    """(line, message) of each problem, checked to name the file it was read from."""
    assert parsed.path == PATH
    found = parsed.row_errors + parsed.field_errors
    assert all(e.path == str(PATH) for e in found)
    return [(e.line, e.message) for e in found]


def refusal(parse, data: bytes) -> tuple[int, str]:
    with pytest.raises(InputError) as raised:
        parse(PATH, data)
    assert raised.value.path == str(PATH)
    return raised.value.line, raised.value.message


def test_a_full_row():
    row = {**GOOD, "title": " A  title ", "url": "https://x.org/p", "status": "Oral",
           "keywords": ["graphs", " graphs", "trees "], "authors": ["Ada"], "tldr": "Short."}
    (paper,) = parse_jsonl_bytes(PATH, jsonl(row)).abstracts
    assert (paper.line, paper.text, paper.venue, paper.year, paper.title, paper.url,
            paper.keywords, paper.status, paper.people.authors, paper.people.tldr) == (
        1, "An abstract.", "ICML", 2026, "A title", "https://x.org/p", ("graphs", "trees"),
        "Oral", ("Ada",), "Short.")


ROW_ERRORS = [
    ({"year": 2026, "abstract": "x"}, "missing venue; expected " + tabular.FIELDS_HINT),
    ({"venue": "A", "year": "", "abstract": " "},
     "missing year, abstract; expected " + tabular.FIELDS_HINT),
    ({**GOOD, "year": "20x6"}, "the year '20x6' is not a 4-digit year"),
    ({**GOOD, "year": 1899}, "the year 1899 is out of range (1900-2100)"),
    ({**GOOD, "year": 2101}, "the year 2101 is out of range (1900-2100)"),
    ({**GOOD, "venue": "2026"}, "the venue '2026' is not a usable venue name"),
    ({**GOOD, "venue": "V" * 81}, f"the venue {'V' * 40!r} is not a usable venue name"),
    ({**GOOD, "abstract": "x" * 100_001},
     "the abstract is 100,001 characters long; at most 100,000 are accepted"),
    ({**GOOD, "url": "javascript:alert(1)"},
     "url 'javascript:alert(1)' is not an http(s) address of at most 2,000 characters"),
    ({**GOOD, "url": "https://x.org/" + "a" * 1987},
     f"url {('https://x.org/' + 'a' * 1987)[:60]!r} is not an http(s) address of at "
     "most 2,000 characters"),
    # One rule for every link (people.read_url): a space would make two addresses of one.
    ({**GOOD, "url": "https://x.org/a javascript:alert(1)"},
     "url 'https://x.org/a javascript:alert(1)' is not an http(s) address of at most 2,000 "
     "characters"),
    ({**GOOD, "title": ["a"]}, "title must be text, found list"),
    ({**GOOD, "abstract": "a\x00b"}, "abstract contains a NUL character (\\u0000)"),
    ({**GOOD, "keywords": 5}, "keywords must be a list of names or text separated by ';'"),
]


@pytest.mark.parametrize(("row", "message"), ROW_ERRORS)
def test_a_bad_row_is_named_and_the_good_ones_load(row: dict, message: str):
    parsed = parse_jsonl_bytes(PATH, jsonl(GOOD, row, GOOD))
    assert [p.line for p in parsed.abstracts] == [1, 3]
    assert problems(parsed) == [(2, message)]


@pytest.mark.parametrize("row", [
    {**GOOD, "year": 1900}, {**GOOD, "year": "2100"}, {**GOOD, "venue": "V" * 80},
    {**GOOD, "abstract": "x" * 100_000}, {**GOOD, "url": "https://x.org/" + "a" * 1986}])
def test_rows_at_the_bounds_load(row: dict):
    parsed = parse_jsonl_bytes(PATH, jsonl(row))
    assert problems(parsed) == [] and len(parsed.abstracts) == 1


def test_kept_fields_are_cut_to_their_bounds():
    row = {**GOOD, "title": "t" * 600, "status": "s" * 50,
           "keywords": [f"k{n}" for n in range(60)] + ["x" * 300]}
    (paper,) = parse_jsonl_bytes(PATH, jsonl(row)).abstracts
    assert paper.title == "t" * 500 and paper.status == "s" * 40
    assert paper.keywords == tuple(f"k{n}" for n in range(50))
    (paper,) = parse_jsonl_bytes(PATH, jsonl({**GOOD, "keywords": ["x" * 300]})).abstracts
    assert paper.keywords == ("x" * 200,)


def test_keywords_in_one_comma_separated_item_are_split():
    (paper,) = parse_jsonl_bytes(PATH, jsonl({**GOOD, "keywords": "a, b,, c"})).abstracts
    assert paper.keywords == ("a", "b", "c")
    (paper,) = parse_jsonl_bytes(PATH, jsonl({**GOOD, "keywords": "a, b; c"})).abstracts
    assert paper.keywords == ("a, b", "c")


def test_a_bad_people_field_is_named_and_its_row_loads():
    parsed = parse_jsonl_bytes(PATH, jsonl(GOOD, {**GOOD, "code": "ftp://x"}))
    assert len(parsed.abstracts) == 2 and parsed.row_errors == []
    assert problems(parsed) == [(2, "code 'ftp://x' is not an http(s) address of at most "
                                    "2,000 characters; the row loads without it")]


def test_unreadable_json_lines_are_named():
    deep = "[" * 100_000 + "]" * 100_000
    parsed = parse_jsonl_bytes(PATH, jsonl(GOOD, "{not json", deep, "[1, 2]", "",
                                           "x" * 400_001, GOOD))
    assert [p.line for p in parsed.abstracts] == [1, 7]
    assert problems(parsed) == [
        (2, "not valid JSON (Expecting property name enclosed in double quotes)"),
        (3, "not a readable JSON object (nested too deeply, or a number too long)"),
        (4, f"expected a JSON object with {tabular.FIELDS_HINT}"),
        (6, "a row of 400,001 characters; at most 400,000 are read")]


def test_a_row_at_the_row_bound_is_read():
    start = json.dumps(GOOD)[:-1] + ', "pad": "'
    row = start + "p" * (400_000 - len(start) - 2) + '"}'
    assert len(row) == 400_000
    assert len(parse_jsonl_bytes(PATH, jsonl(row)).abstracts) == 1


def test_records_end_only_at_line_feeds():
    row = json.dumps({**GOOD, "abstract": "One\u2028two\x85three"}, ensure_ascii=False)
    (paper,) = parse_jsonl_bytes(PATH, (row + "\r\n").encode()).abstracts
    assert paper.text == "One two three"  # one paper, its text on one line


def test_a_file_without_a_usable_row_is_refused():
    assert refusal(parse_jsonl_bytes, jsonl({"venue": "A"}, "[]")) == (
        1, f"no usable row; the first problem: missing year, abstract; expected "
           f"{tabular.FIELDS_HINT}")
    assert refusal(parse_jsonl_bytes, b"\n \n") == (1, "the file is empty; expected "
                                                       + listfile.HEADER_HINT)


CSV_HEAD = b"venue,year,abstract,authors\r\n"


def test_csv_rows_with_their_lines():
    data = CSV_HEAD + b'ICML,2026,"Two\nlines",Ada;Bob\r\nICLR,2025,One.,\r\n'
    parsed = parse_csv_bytes(PATH, data)
    assert [(p.line, p.venue, p.text, p.people.authors) for p in parsed.abstracts] == [
        (2, "ICML", "Two lines", ("Ada", "Bob")), (4, "ICLR", "One.", ())]


def test_a_csv_that_is_not_utf8_is_refused_by_name():
    assert refusal(parse_csv_bytes, CSV_HEAD + b"A,2026,caf\xe9,\n") == (
        2, "invalid UTF-8 (byte 0xe9); expected UTF-8 text")


def test_a_csv_of_only_its_header_is_refused():
    assert refusal(parse_csv_bytes, b"venue,year,abstract\r\n") == (
        1, f"the file has no rows; expected rows with {tabular.FIELDS_HINT}")


def test_csv_header_names_are_read_in_any_case_and_spacing():
    parsed = parse_csv_bytes(PATH, b" Venue ,YEAR,Abstract\nA,2026,x\n")
    assert parsed.abstracts[0].venue == "A"


def test_a_csv_header_without_the_required_columns_is_refused():
    assert refusal(parse_csv_bytes, b"venue,title\nA,B\n") == (
        1, f"the header lacks year, abstract; expected a header row with "
           f"{tabular.FIELDS_HINT}")


def test_a_broken_csv_row_is_named_at_its_line_and_reading_goes_on():
    data = CSV_HEAD + b'ICML,2026,"ok" then,\nICML,2026,Fine.,\nICML,2026,"open\nA,2026,b\n'
    parsed = parse_csv_bytes(PATH, data)
    assert [p.line for p in parsed.abstracts] == [3]
    assert problems(parsed) == [
        (2, "unreadable CSV row (',' expected after '\"')"),
        (4, "a quoted field opened here is never closed: lines up to 5 were read into it "
            "and are not loaded")]


def test_csv_line_counts_follow_carriage_returns_too():
    data = b"venue,year,abstract\rA,2026,one\rA,2026,\"x\" y\rA,2026,three\r"
    parsed = parse_csv_bytes(PATH, data)
    assert [p.line for p in parsed.abstracts] == [2, 4]
    assert [e.line for e in parsed.row_errors] == [3]


def list_file(text: str) -> bytes:
    return text.encode()


@pytest.mark.parametrize(("data", "line", "message"), [
    (b"\xff\xfeI\x00", 1, "the file is UTF-16 encoded; expected UTF-8 text"),
    (b"\xfe\xff\x00I", 1, "the file is UTF-16 encoded; expected UTF-8 text"),
    (b"A 2026 Papers\r\n\r\nok\r\nbad \x00", 4, "binary data (a NUL byte); expected UTF-8 text"),
    (b"A 2026 Papers\r\rok\rbad \x00", 4, "binary data (a NUL byte); expected UTF-8 text"),
    (b"A 2026 Papers\n\nok\nbad \x00\n\nworse \x00", 4,
     "binary data (a NUL byte); expected UTF-8 text"),
    (b"\x00A 2026 Papers\n\nok\n", 1, "binary data (a NUL byte); expected UTF-8 text"),
    (b"12-3 2026 Papers\n\nx\n", 1,
     f"the header has no usable venue name; expected {listfile.HEADER_HINT}"),
    (b"A 2026 Papers\n\nok\n\n\xc3(", 5, "invalid UTF-8 (byte 0xc3); expected UTF-8 text"),
    (b"\xef\xbb\xbf\n \n", 1, "the file is empty; expected " + listfile.HEADER_HINT),
    (b"A" * 61 + b"\n\nx\n", 1,
     f"expected {listfile.HEADER_HINT}, found {'A' * 57 + '...'!r}"),
    (b"A" * 60 + b"\n\nx\n", 1, f"expected {listfile.HEADER_HINT}, found {'A' * 60!r}"),
    (b"\n\nICML Papers\n\nx\n", 3,
     f"the header 'ICML Papers' has no 4-digit year; expected {listfile.HEADER_HINT}"),
    (b"V" * 81 + b" 2026 Papers\n\nx\n", 1,
     f"the header has no usable venue name; expected {listfile.HEADER_HINT}"),
    (b"ICML 2101 Papers\n\nx\n", 1, "the year 2101 is out of range (1900-2100)"),
    (b"ICML 2026 Papers\n\n\n", 1, "the header is not followed by any abstract; expected one "
                                   "abstract per line after a blank line"),
    (b"ICML 2026 Papers\n\n" + b"x" * 100_001 + b"\n", 3,
     "the abstract is 100,001 characters long; at most 100,000 are accepted"),
])
def test_list_file_refusals(data: bytes, line: int, message: str):
    with pytest.raises(InputError) as raised:
        parse_list_bytes(PATH, data)
    assert (raised.value.line, raised.value.message) == (line, message)
    assert str(raised.value) == f"{PATH}:{line}: {message}"


def test_list_files_at_their_bounds():
    parsed = parse_list_bytes(PATH, b"V" * 80 + b" 1900 Papers\n\n" + b"x" * 100_000 + b"\n")
    assert parsed.path == PATH
    assert (parsed.abstracts[0].venue, parsed.abstracts[0].year) == ("V" * 80, 1900)
    assert len(parsed.abstracts[0].text) == 100_000


def test_an_input_error_of_a_whole_file_has_no_line():
    assert str(InputError(PATH, 0, "unreadable")) == f"{PATH}: unreadable"
    assert str(InputError("dir", 3, "bad")) == "dir:3: bad"


def test_every_field_a_row_says_besides_its_abstract_is_in_its_change_digest():
    """A new input field reaches the change check by being declared (issue 60): every field
    of RawAbstract and People but the row's identity changes the digest; the identity does
    not; and a row with nothing besides keeps the digest stored papers hold (0006's)."""
    row = RawAbstract(line=3, text="An abstract.", venue="ICML", year=2026)
    assert BARE == "af26c4ea436ce551" == source_digest(row)

    def changed(value: object) -> object:
        return ("x",) if isinstance(value, tuple) else "x"

    for field in fields(People):
        people = replace(People(), **{field.name: changed(getattr(People(), field.name))})
        assert source_digest(replace(row, people=people)) != BARE, field.name
    for field in fields(RawAbstract):
        if field.name == "people":
            continue
        other = replace(row, **{field.name: 7 if field.type in ("int", int) else
                                changed(getattr(row, field.name))})
        assert (source_digest(other) == BARE) == (field.name in ("line", "text", "venue",
                                                                 "year")), field.name
