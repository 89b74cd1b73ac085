"""Hostile list files: each is rejected with file:line or stored as inert text; nothing
crashes ingest and the catalog that was there before is never damaged."""

import gzip
import json
import tracemalloc
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.ingest import load, unpack
from app.main import create_app
from app.models import Paper
from bench.tiny import write_tiny
from tests.conftest import Catalog
from tests.postgres import sqlite_run

BAD = Path(__file__).parents[1] / "data" / "bad"
REJECTED = {
    "empty.txt": (1, "empty"),
    "header_only.txt": (1, "not followed by any abstract"),
    "no_header.txt": (1, "expected a header"),
    "year_missing.txt": (1, "no 4-digit year"),
    "binary.txt": (1, "binary data"),
    "invalid_utf8.txt": (5, "invalid UTF-8"),
    "utf16.txt": (1, "UTF-16"),
}
STORED = {"crlf_mixed.txt": 3, "duplicated.txt": 1, "script.txt": 1, "javascript_link.txt": 1,
          "img_onerror.txt": 1, "tex_href.txt": 1}
class ActiveMarkup(HTMLParser):
    """Markup that could run, as a browser parses the page: a script that is not ours, an
    image that is not our map (/map.png) or foreign SVG, an event-handler attribute, a
    javascript: link. Escaped text (&lt;script&gt;) and text inside an attribute's value (a
    citation tag's content) are inert."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if ((tag == "script" and not values.get("src", "").startswith("/static/"))
                or (tag == "img" and not values.get("src", "").startswith("/map.png?"))
                or (tag == "svg" and values.get("role") != "group")
                or any(name.startswith("on") for name in values)
                or values.get("href", "").strip().lower().startswith("javascript:")):
            self.found.append(self.get_starttag_text() or tag)


def snapshot(catalog: Catalog) -> dict[str, str]:
    with catalog.session() as session:
        return {p.id: p.abstract for p in session.exec(select(Paper))}


def test_the_corpus_covers_every_kind():
    assert {p.name for p in BAD.glob("*.txt")} == set(REJECTED) | set(STORED)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_malformed_file_is_rejected_with_its_line_and_the_catalog_kept(fresh: Catalog, name):
    before = snapshot(fresh)
    report = fresh.ingest(BAD / name)
    line, message = REJECTED[name]
    (error,) = report.errors
    assert error.path.endswith(name) and error.line == line and message in error.message
    assert report.added == 0 and snapshot(fresh) == before


@pytest.mark.parametrize("name", sorted(STORED))
def test_hostile_text_is_stored_verbatim_and_shown_inert(fresh: Catalog, name):
    before = snapshot(fresh)
    report = fresh.ingest(BAD / name)
    assert report.errors == [] and report.added == STORED[name]
    after = snapshot(fresh)
    assert {k: v for k, v in after.items() if k in before} == before
    new = [pid for pid in after if pid not in before]
    with TestClient(create_app(fresh.settings)) as client:
        for pid in new:
            for url in (f"/papers/{pid}", "/venues/hostile-2026", "/search?q=abstract",
                        "/search?q=alert", f"/api/papers/{pid}"):
                response = client.get(url)
                assert response.status_code == 200, url
                if not url.startswith("/api/"):
                    assert ActiveMarkup(response.text).found == [], url
            raw = client.get(f"/api/papers/{pid}").json()["abstract"]
            assert raw == after[pid]  # the raw abstract is kept verbatim, only its display is safe


def test_script_text_shows_as_visible_text(fresh: Catalog):
    fresh.ingest(BAD / "script.txt")
    with TestClient(create_app(fresh.settings)) as client:
        page = client.get("/venues/hostile-2026").text
    assert "&lt;script&gt;alert" in page


def test_duplicates_are_reported(fresh: Catalog):
    report = fresh.ingest(BAD / "duplicated.txt")
    assert (report.added, report.duplicate) == (1, 2)


def test_ten_megabyte_line_is_rejected_with_its_line(fresh: Catalog, tmp_path: Path):
    path = tmp_path / "huge.txt"
    path.write_text("HUGE 2026 Papers\n\nA normal abstract.\n\n" + "word " * 2_000_000 + "\n")
    before = snapshot(fresh)
    report = fresh.ingest(path)
    (error,) = report.errors
    assert error.line == 5 and "characters long" in error.message
    assert snapshot(fresh) == before


def test_all_bad_files_at_once_leave_the_good_ones_loaded(fresh: Catalog):
    report = fresh.ingest(*sorted(BAD.glob("*.txt")))
    assert len(report.errors) == len(REJECTED)
    assert report.added == sum(STORED.values())


def test_thousands_of_tiny_abstracts_load(fresh: Catalog, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch):
    """In chunks, as a file of any size is stored; 100,000 of them are `python -m bench.tiny`."""
    monkeypatch.setattr(load, "STORE_CHUNK", 500)
    report = fresh.ingest(write_tiny(tmp_path / "tiny.txt", 2_000))
    assert report.errors == [] and report.added == 2_000
    with TestClient(create_app(fresh.settings)) as client:
        assert client.get("/api/venues/tiny-2026/papers?page=40").json()["papers"][-1][
            "abstract"] == "Tiny abstract number 1999."
        found = client.get("/api/search", params={"q": "tiny", "venue": "tiny-2026"}).json()
        assert found["total"] == 2_000


@pytest.mark.parametrize("hostile", [
    '{"venue":"ICLR","year":2026,"abstract":"x","x":' + "[" * 2000 + "]" * 2000 + "}",
    '{"venue":"ICLR","year":2026,"abstract":"x","x":' + "9" * 100_000 + "}",
    '{"venue":"ICLR","year":2026,"abstract":"' + "x" * 500_000 + '"}',
])
def test_a_hostile_json_row_is_an_error_and_every_other_row_and_file_loads(
        fresh: Catalog, tmp_path: Path, hostile: str):
    good = tmp_path / "good.jsonl"
    good.write_text('{"venue":"GOOD","year":2026,"abstract":"Quokkas forage at night."}\n')
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"venue":"DEEP","year":2026,"abstract":"Wombats dig burrows."}\n'
                    + hostile + "\n")
    report = fresh.ingest(good, deep)
    (error,) = report.errors
    assert error.path == str(deep) and error.line == 2
    assert report.added == 2


def test_control_characters_are_dropped_and_long_fields_cut(fresh: Catalog, tmp_path: Path):
    source = tmp_path / "fields.jsonl"
    rows = [{"venue": "CTRL", "year": 2026, "title": "Bell\x07 and \x1b[31mescape\x08",
             "abstract": "Fields hold control characters.",
             "authors": ["Ada\x01 Lovelace", "N" * 100_000], "keywords": ["k" * 500]},
            {"venue": "CTRL", "year": 2026, "abstract": "A url 100,000 characters long.",
             "url": "https://example.org/" + "a" * 100_000}]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = fresh.ingest(source)
    (error,) = report.errors
    assert error.line == 2 and "2,000 characters" in error.message
    with fresh.session() as session:
        (paper,) = session.exec(select(Paper).where(Paper.edition_slug == "ctrl-2026")).all()
    assert paper.title == "Bell and [31mescape"
    assert paper.author_list == ["Ada Lovelace", "N" * 200]
    assert paper.keyword_list == ["k" * 200]


def test_a_csv_row_that_cannot_be_read_loses_no_other_row(fresh: Catalog, tmp_path: Path):
    source = tmp_path / "rows.csv"
    source.write_text('venue,year,abstract\nWIDE,2026,"' + "x" * 200_000 + '"\n'
                      "WIDE,2026,A good row after the wide one.\n"
                      'WIDE,2026,"Closed" then text\n'
                      "WIDE,2026,The last good row.\n")
    report = fresh.ingest(source)
    assert [(error.line, "field limit" in error.message) for error in report.errors] == [
        (2, True), (4, False)]
    assert report.added == 2


def test_an_unclosed_quote_says_which_rows_it_swallowed(fresh: Catalog, tmp_path: Path):
    source = tmp_path / "quote.csv"
    source.write_text('venue,year,abstract\nQUOTE,2026,A good row.\nQUOTE,2026,"Never closed\n'
                      "QUOTE,2026,Swallowed row.\nQUOTE,2026,Another swallowed row.\n")
    report = fresh.ingest(source)
    (error,) = report.errors
    assert error.line == 3 and "never closed" in error.message and "up to 5" in error.message
    assert report.added == 1


def _gzip_of_zeros(megabytes: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    return b"".join([*(packer.compress(block) for _ in range(megabytes)), packer.flush()])


@pytest.mark.parametrize("name", ["bomb.txt.gz", "bomb.jsonl.gz"])
@sqlite_run  # refused as the file is read, whatever the database: once per `make test`
def test_a_decompression_bomb_is_refused_before_it_inflates(
        fresh: Catalog, tmp_path: Path, name: str):
    bomb = tmp_path / name
    bomb.write_bytes(_gzip_of_zeros(512))  # half a megabyte that claims half a gigabyte
    good = tmp_path / "good.jsonl"
    good.write_text('{"venue":"GOOD","year":2026,"abstract":"Quokkas forage at night."}\n')
    before = snapshot(fresh)
    tracemalloc.start()
    try:
        report = fresh.ingest(bomb, good)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (error,) = report.errors
    assert error.path == str(bomb) and "decompression bomb" in error.message
    assert peak < 100 << 20  # the half gigabyte is never held
    assert report.added == 1 and set(before) < set(snapshot(fresh))


def test_a_gzip_past_the_input_cap_is_refused_as_it_inflates(
        fresh: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The size bound on its own, for a gzip whose ratio is a text's (issue 28, mutant 9)."""
    monkeypatch.setattr(unpack, "MAX_INPUT_BYTES", 1 << 20)
    rows = "".join(json.dumps({"venue": "BIG", "year": 2026, "abstract": f"Paper {n} on "
                               f"{n * 7919 % 100_003} kernels and {n * 104_729 % 99_991} graphs."})
                   + "\n" for n in range(40_000))
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(rows.encode()))
    assert len(rows) > 2 << 20 and len(rows) < 50 * path.stat().st_size  # not a bomb
    (error,) = fresh.ingest(path).errors
    assert "decompresses to more than 1,048,576 bytes" in error.message


def test_gzip_members_one_after_another_all_load(fresh: Catalog, tmp_path: Path):
    path = tmp_path / "joined.jsonl.gz"
    path.write_bytes(b"".join(gzip.compress(json.dumps(
        {"venue": "JOIN", "year": 2026, "abstract": f"Abstract number {n} of many."}).encode()
        + b"\n") for n in range(3)))
    report = fresh.ingest(path)
    assert report.errors == [] and report.added == 3


def test_a_truncated_gzip_is_an_error(fresh: Catalog, tmp_path: Path):
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"venue":"CUT","year":2026,"abstract":"x"}\n' * 500)[:60])
    (error,) = fresh.ingest(path).errors
    assert "not a readable gzip file" in error.message


def test_a_file_past_the_input_cap_is_refused_unread(
        fresh: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(unpack, "MAX_INPUT_BYTES", 1000)
    path = tmp_path / "big.txt"
    path.write_text("BIG 2026 Papers\n\n" + "A long abstract. " * 100 + "\n")
    (error,) = fresh.ingest(path).errors
    assert "larger than 1,000 bytes" in error.message
