from pathlib import Path

import pytest

from app.ingest.listfile import InputError, parse_list_bytes
from tests.conftest import SEEDS, parse_list_file


def parse(data: bytes):
    return parse_list_bytes(Path("x.txt"), data)


def rejection(data: bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        parse(data)
    return caught.value


def test_english_header_names_venue_and_year():
    parsed = parse(b"ICML 2026 Papers\n\nFirst abstract.\n\nSecond abstract.\n")
    assert (parsed.abstracts[0].venue, parsed.abstracts[0].year) == ("ICML", 2026)
    assert [(a.line, a.text) for a in parsed.abstracts] == [
        (3, "First abstract."), (5, "Second abstract.")]


def test_chinese_header_spelling():
    parsed = parse("NeurIPS 2026 论文列表\n\nAn abstract.\n".encode())
    assert (parsed.abstracts[0].venue, parsed.abstracts[0].year) == ("NeurIPS", 2026)


def test_multi_word_venue_is_everything_before_the_year():
    parsed = parse(b"Learning on Graphs  Conference 2024 Papers\n\nAn abstract.\n")
    assert parsed.abstracts[0].venue == "Learning on Graphs Conference"


def test_bom_crlf_trailing_spaces_and_blank_runs_are_tolerated():
    data = b"\xef\xbb\xbfICLR 2026 Papers  \r\n\r\n\r\nOne.  \r\n\r\n\r\n\r\nTwo.\r\n  \r\n"
    parsed = parse(data)
    assert parsed.abstracts[0].venue == "ICLR"
    assert [(a.line, a.text) for a in parsed.abstracts] == [(4, "One."), (8, "Two.")]


def test_old_mac_line_ends():
    parsed = parse(b"ICLR 2026 Papers\r\rOne.\r\rTwo.\r")
    assert [a.text for a in parsed.abstracts] == ["One.", "Two."]


def test_unicode_line_separator_stays_inside_an_abstract():
    parsed = parse("ICLR 2026 Papers\n\nOne\u2028still one.\n".encode())
    assert len(parsed.abstracts) == 1


def test_seed_files_parse():
    counts = {}
    for path in sorted(SEEDS.glob("*.txt")):
        parsed = parse_list_file(path)
        for abstract in parsed.abstracts:
            key = (abstract.venue, abstract.year)
            counts[key] = counts.get(key, 0) + 1
    assert counts == {("ICML", 2026): 38, ("ICLR", 2026): 17, ("NeurIPS", 2026): 36}


@pytest.mark.parametrize(
    ("data", "line", "expected"),
    [
        (b"", 1, "empty"),
        (b"\n\n  \n", 1, "empty"),
        (b"ICML 2026 Papers\n\n\n", 1, "not followed by any abstract"),
        (b"Deep nets generalize because of implicit bias.\n\nMore text.\n", 1, "expected a header"),
        (b"ICML Papers\n\nAn abstract.\n", 1, "no 4-digit year"),
        (b"ICML 2026 Papers\n\nGood line.\n\nBad \xff\xfe byte.\n", 5, "invalid UTF-8"),
        (b"ICML 2026 Papers\n\nGood.\n\n\x00\x01\x02binary\n", 5, "binary data"),
        ("ICML 2026 Papers\n\nText.\n".encode("utf-16"), 1, "UTF-16"),
        (b"2026 Papers\n\nAn abstract.\n", 1, "venue name"),
        (b"ICML 0999 Papers\n\nAn abstract.\n", 1, "out of range"),
        (b"ICML 2026 Papers\n\n" + b"x" * 100_001 + b"\n", 3, "characters long"),
    ],
)
def test_malformed_files_are_rejected_with_file_line_and_expectation(data, line, expected):
    error = rejection(data)
    assert error.line == line
    assert expected in error.message
    assert str(error).startswith(f"x.txt:{line}: ")
