"""JSON Lines and CSV input: titles, authors, urls and keywords; bad rows skipped and named."""

import json
from pathlib import Path

import bibtexparser
import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.ingest.listfile import InputError
from app.ingest.tabular import parse_csv_bytes, parse_jsonl_bytes
from app.main import create_app
from app.models import Paper
from tests.conftest import Catalog

GOOD = {"venue": "CoLLAs", "year": 2025, "title": "Replay Is All You Need",
        "abstract": "We revisit experience replay for continual learning of $\\alpha$-models.",
        "authors": ["Ada Lovelace", "Alan Turing"], "url": "https://example.org/replay",
        "keywords": ["continual learning", "replay"]}


def jsonl(tmp_path: Path, *rows: object, name: str = "papers.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_jsonl_rows_parse_with_all_fields(tmp_path: Path):
    parsed = parse_jsonl_bytes(tmp_path / "a.jsonl", jsonl(tmp_path, GOOD).read_bytes())
    (paper,) = parsed.abstracts
    assert (paper.venue, paper.year, paper.title) == ("CoLLAs", 2025, "Replay Is All You Need")
    assert paper.people.authors == ("Ada Lovelace", "Alan Turing")
    assert paper.keywords == ("continual learning", "replay")


@pytest.mark.parametrize(("row", "line", "message"), [
    ('{"venue": "X", "year": 2025', 2, "not valid JSON"),
    ("[1, 2]", 2, "expected a JSON object"),
    ({"venue": "X", "year": 2025}, 2, "missing abstract"),
    ({"venue": "X", "year": "soon", "abstract": "a"}, 2, "not a 4-digit year"),
    ({"venue": "X", "year": 1066, "abstract": "a"}, 2, "out of range"),
    ({"venue": "X", "year": 2025, "abstract": "a", "url": "javascript:alert(1)"}, 2, "http"),
    ({"venue": "X", "year": 2025, "abstract": {"nested": 1}}, 2, "abstract must be text"),
])
def test_bad_jsonl_rows_are_named_and_good_rows_kept(tmp_path: Path, row, line, message):
    path = jsonl(tmp_path, GOOD, row)
    parsed = parse_jsonl_bytes(path, path.read_bytes())
    assert len(parsed.abstracts) == 1
    (error,) = parsed.row_errors
    assert (error.line, message in error.message) == (line, True), error.message
    assert str(error).startswith(f"{path}:{line}: ")


def test_csv_with_semicolon_authors_and_quoted_newlines(tmp_path: Path):
    path = tmp_path / "p.csv"
    path.write_text(
        "venue,year,title,abstract,authors,url,keywords\n"
        'ICLR,2024,"A, B","First abstract, with a comma.","Ada Lovelace; Alan Turing",,a;b\n'
        'ICLR,2024,T2,"Second\nabstract over two lines.",,,\n'
        "ICLR,twenty,T3,Third.,,,\n"
        "ICLR,2024,T4,Fourth.,,,\n")
    parsed = parse_csv_bytes(path, path.read_bytes())
    assert [a.title for a in parsed.abstracts] == ["A, B", "T2", "T4"]
    assert parsed.abstracts[0].people.authors == ("Ada Lovelace", "Alan Turing")
    assert parsed.abstracts[1].text == "Second abstract over two lines."
    assert [(e.line, "year" in e.message) for e in parsed.row_errors] == [(5, True)]
    assert [a.line for a in parsed.abstracts] == [2, 3, 6]


def test_csv_without_required_columns_is_rejected(tmp_path: Path):
    path = tmp_path / "p.csv"
    path.write_text("title,abstract\nT,A\n")
    with pytest.raises(InputError, match="lacks venue, year"):
        parse_csv_bytes(path, path.read_bytes())


def test_file_of_only_bad_rows_is_rejected(tmp_path: Path):
    path = jsonl(tmp_path, "{broken", "[]")
    with pytest.raises(InputError, match="no usable row"):
        parse_jsonl_bytes(path, path.read_bytes())


def test_ingest_jsonl_and_csv_end_to_end(fresh: Catalog, tmp_path: Path):
    other = {**GOOD, "title": "Second", "abstract": "Another abstract on replay buffers.",
             "authors": "Alan Turing; Grace Hopper", "venue": "CoLLAs"}
    report = fresh.ingest(jsonl(tmp_path, GOOD, "{bad", other))
    assert report.added == 2
    assert [(e.line, "JSON" in e.message) for e in report.errors] == [(2, True)]
    with TestClient(create_app(fresh.settings)) as client:
        hits = client.get("/api/search", params={"q": "author:turing"}).json()["hits"]
        assert {h["title"] for h in hits} == {"Replay Is All You Need", "Second"}
        paper = next(h for h in hits if h["title"] == "Replay Is All You Need")
        assert paper["headline"] == "Replay Is All You Need"
        assert paper["authors"] == ["Ada Lovelace", "Alan Turing"]
        page = client.get(paper["url"]).text
        assert "<h1>Replay Is All You Need</h1>" in page
        assert 'href="/authors/alan-turing">Alan Turing</a>' in page
        author = client.get("/authors/alan-turing")
        assert author.status_code == 200 and "2 papers" in author.text
        assert len(client.get("/api/authors/alan-turing").json()["papers"]) == 2
        assert client.get("/authors/nobody").status_code == 404
        entry = bibtexparser.parse_string(client.get(f"/papers/{paper['id']}.bib").text).entries[0]
        assert entry["author"] == "Ada Lovelace and Alan Turing"
        assert entry["title"] == "{Replay Is All You Need}"
        assert "Replay Is All You Need" in client.get("/venues/collas-2025").text


def test_reingesting_a_changed_jsonl_removes_its_dropped_rows(fresh: Catalog, tmp_path: Path):
    path = jsonl(tmp_path, GOOD)
    fresh.ingest(path)
    jsonl(tmp_path, {**GOOD, "abstract": "A replacement abstract."})
    report = fresh.ingest(path)
    assert (report.added, report.removed) == (1, 1)
    with fresh.session() as session:
        texts = [p.abstract for p in session.exec(select(Paper)
                                                  .where(Paper.edition_slug == "collas-2025"))]
    assert texts == ["A replacement abstract."]


def test_text_no_database_can_hold_is_a_row_error_not_a_failed_ingest(fresh: Catalog,
                                                                      tmp_path: Path):
    path = tmp_path / "escapes.jsonl"
    path.write_text("\n".join([
        json.dumps({**GOOD, "abstract": "A NUL \u0000 inside."}),
        json.dumps({**GOOD, "abstract": "Fine.", "authors": ["Lone \ud800 Surrogate"]}),
        json.dumps({**GOOD, "abstract": "The one good row."}),
    ]) + "\n")
    report = fresh.ingest(path)
    assert report.added == 2  # the second row loads without its authors
    assert [(e.line, e.message.split(" contains")[0]) for e in report.errors] == [
        (1, "abstract"), (2, "authors")]
