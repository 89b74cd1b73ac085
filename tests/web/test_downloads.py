import csv
import io
import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import bibtexparser
import pytest
from fastapi.testclient import TestClient
from whoosh.searching import Hit

from app.main import create_app
from tests.conftest import Catalog, write_list

ATOM = "{http://www.w3.org/2005/Atom}"


def all_search_ids(client: TestClient, **params) -> list[str]:
    ids, page = [], 1
    while True:
        body = client.get("/api/search", params={**params, "page": page}).json()
        ids += [h["id"] for h in body["hits"]]
        if page >= body["pages"]:
            return ids
        page += 1


def test_paper_bibtex_parses_with_a_stable_key(client: TestClient):
    paper = client.get("/api/venues/icml-2026/papers").json()["papers"][0]
    text = client.get(f"/papers/{paper['id']}.bib").text
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    (entry,) = library.entries
    assert entry.entry_type == "inproceedings"
    assert entry.key == f"icml2026masked{paper['id'][:4]}"
    assert entry["booktitle"] == "ICML 2026" and entry["year"] == "2026"
    assert entry["title"].strip("{}").startswith("Masked Diffusion Language Models")
    assert client.get(f"/papers/{paper['id']}.bib").text == text  # stable


def test_paper_page_offers_bibtex_with_a_copy_button(client: TestClient):
    paper = client.get("/api/venues/icml-2026/papers").json()["papers"][0]
    page = client.get(f"/papers/{paper['id']}").text
    assert 'id="bibtex" tabindex="0">@inproceedings{' in page and 'data-copy="bibtex"' in page


def test_every_venue_downloads_as_bibtex_that_parses(client: TestClient):
    for slug, count in [("icml-2026", 38), ("iclr-2026", 17), ("neurips-2026", 36)]:
        library = bibtexparser.parse_string(client.get(f"/venues/{slug}.bib").text)
        assert not library.failed_blocks and len(library.entries) == count
        assert len({e.key for e in library.entries}) == count


def test_filtered_search_exports_the_same_rows_as_csv_and_json(client: TestClient):
    params = {"q": "generalization", "venue": "neurips-2026", "has": ""}
    expected = all_search_ids(client, **params)
    assert len(expected) > 20  # more than one page: the export is the whole result set
    rows = list(csv.DictReader(io.StringIO(client.get("/search.csv", params=params).text)))
    assert [r["id"] for r in rows] == expected
    assert all(r["venue_slug"] == "neurips-2026" for r in rows)
    records = client.get("/search", params={**params, "format": "json"}).json()
    assert [r["id"] for r in records] == expected
    assert records[0]["abstract"] and records[0]["url"].endswith(f"/papers/{expected[0]}")


def test_a_search_export_takes_its_ids_from_document_numbers(client: TestClient, monkeypatch):
    """Each hit's ID was unpickled from the index's stored fields: 0.2-0.3 s of the 20,000
    hits that the map or an export ranks at L, as long as the ranking itself."""
    params = {"q": "generalization", "venue": "neurips-2026", "has": ""}
    expected = all_search_ids(client, **params)

    def unpickled(*_: object) -> None:
        raise AssertionError("a hit's stored fields were read")

    monkeypatch.setattr(Hit, "fields", unpickled)
    response = client.get("/search.csv", params=params)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["id"] for r in rows] == expected


@pytest.mark.parametrize("url", ["/venues/iclr-2026.csv", "/venues/iclr-2026?format=csv"])
def test_venue_csv_in_list_order(client: TestClient, url: str):
    rows = list(csv.DictReader(io.StringIO(client.get(url).text)))
    listed = [p["id"] for p in client.get("/api/venues/iclr-2026/papers").json()["papers"]]
    assert [r["id"] for r in rows] == listed


def test_topic_json_export_matches_the_topic_list(client: TestClient):
    body = client.get("/api/topics/learning-theory/papers").json()
    exported = client.get("/topics/learning-theory.json").json()
    assert [r["id"] for r in exported] == [p["id"] for p in body["papers"]]


@pytest.mark.parametrize("url", ["/search.atom?q=generalization", "/venues/icml-2026.atom",
                                 "/topics/optimization.atom"])
def test_atom_feeds_are_valid_xml_with_entries(client: TestClient, url: str):
    response = client.get(url)
    assert response.headers["content-type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    entries = feed.findall(f"{ATOM}entry")
    assert 0 < len(entries) <= 50
    for entry in entries:
        assert entry.find(f"{ATOM}id").text.startswith("http")
        assert entry.find(f"{ATOM}title").text
        assert entry.find(f"{ATOM}updated").text.endswith("Z")


def test_a_feeds_title_reads_the_query_as_the_search_does(client: TestClient):
    """A right-to-left override typed in the query had reversed the feed's title in a reader;
    the page's title had dropped it, as the search does."""
    for q in ("\u202egeneralization\u200b  bounds", "generalization bounds meaning:off"):
        feed = ET.fromstring(client.get("/search.atom", params={"q": q}).content)
        assert feed.find(f"{ATOM}title").text == "Search: generalization bounds", q


def test_pages_link_their_feed_and_downloads(client: TestClient):
    page = client.get("/search", params={"q": "LoRA"}).text
    assert 'type="application/atom+xml"' in page and 'href="/search.atom?q=LoRA"' in page
    assert 'href="/search.csv?q=LoRA"' in page
    assert 'href="/venues/icml-2026.bib"' in client.get("/venues/icml-2026").text


def test_unknown_list_or_format(client: TestClient):
    assert client.get("/venues/nope-2020.csv").status_code == 404
    assert client.get("/venues/icml-2026.xls").status_code in (400, 404)
    assert client.get("/papers/nope.bib").status_code == 404


def test_json_export_is_a_single_valid_document(client: TestClient):
    assert len(json.loads(client.get("/venues/neurips-2026.json").text)) == 36


HOSTILE_TITLE = "50% {x}_y & #1: a ~study^ of $O(n)$"


def test_bibtex_escapes_what_latex_would_read_and_keeps_its_key(fresh: Catalog, tmp_path: Path):
    source = tmp_path / "tex.jsonl"
    source.write_text(json.dumps({
        "venue": "TEXCONF", "year": 2025, "title": HOSTILE_TITLE, "authors": ["A. B. C"],
        "abstract": f"We write {HOSTILE_TITLE} in the abstract too, with 100% of cases."}) + "\n")
    fresh.ingest(source)
    with TestClient(create_app(fresh.settings)) as client:
        paper = client.get("/api/venues/texconf-2025/papers").json()["papers"][0]
        text = client.get(f"/papers/{paper['id']}.bib").text
        (entry,) = bibtexparser.parse_string(text).entries
        # The title's math reads as text in exports, as in feeds (issue 25).
        assert entry["title"] == (r"{50\% \{x\}\_y \& \#1: a \textasciitilde{}study"
                                  r"\textasciicircum{} of O(n)}")
        assert r"with 100\% of cases" in entry["abstract"]
        assert not re.search(r"(?<!\\)[%&#_]", entry["title"] + entry["abstract"])
        key = entry.key
    fresh.ingest(source)  # unchanged: nothing happens
    write_list(tmp_path / "more.txt", "TEXCONF 2025 Papers", "Another paper on kernels.")
    fresh.ingest(tmp_path / "more.txt")
    with TestClient(create_app(fresh.settings)) as client:
        again = client.get(f"/papers/{paper['id']}.bib").text
        assert bibtexparser.parse_string(again).entries[0].key == key == (
            f"texconf202550{paper['id'][:4]}")  # venue, year, first word, ID


def test_feeds_hold_the_newest_fifty_newest_first(fresh: Catalog, tmp_path: Path):
    """Search, edition and topic feeds alike (issue 28, mutant 2: a topic feed oldest first)."""
    older = write_list(tmp_path / "older.txt", "FEEDCONF 2025 Papers",
                       *(f"Older feedword study number {i} with sample complexity bounds."
                         for i in range(40)))
    fresh.ingest(older)
    time.sleep(1.1)  # a later ingest, by the clock's whole seconds
    newer = write_list(tmp_path / "newer.txt", "FEEDCONF 2025 Papers",
                       *(f"Newer feedword study number {i} with sample complexity bounds."
                         for i in range(40)))
    fresh.ingest(newer)
    with TestClient(create_app(fresh.settings)) as client:
        topic = client.get("/api/search", params={"q": "newer feedword"}).json()["hits"][0][
            "topic"]
        for url in ("/search.atom?q=feedword", "/venues/feedconf-2025.atom",
                    f"/topics/{topic}.atom"):
            root = ET.fromstring(client.get(url).content)
            entries = root.findall(f"{ATOM}entry")
            assert len(entries) == 50, url
            summaries = [e.find(f"{ATOM}summary").text for e in entries]
            assert all(s.startswith("Newer") for s in summaries[:40])
            assert all(s.startswith("Older") for s in summaries[40:])
            updated = [e.find(f"{ATOM}updated").text for e in entries]
            assert updated == sorted(updated, reverse=True)
            # Updated when its newest entry was added, not when asked: the same feed twice.
            assert root.find(f"{ATOM}updated").text == updated[0]
            assert client.get(url).content == client.get(url).content


def test_csv_cells_that_a_spreadsheet_would_run_are_written_as_text(fresh: Catalog,
                                                                     tmp_path: Path):
    source = tmp_path / "formulas.jsonl"
    source.write_text(json.dumps({"venue": "CALC", "year": 2026, "title": "=cmd|' /C calc'!A0",
                                  "abstract": "Spreadsheets run formulas.",
                                  "authors": ["@SUM(1+1)", "Ada Lovelace"]}) + "\n")
    fresh.ingest(source)
    with TestClient(create_app(fresh.settings)) as client:
        (row,) = csv.DictReader(io.StringIO(client.get("/venues/calc-2026.csv").text))
        assert row["title"] == "'=cmd|' /C calc'!A0"
        assert row["authors"] == "'@SUM(1+1); Ada Lovelace"
        (saved,) = csv.DictReader(io.StringIO(
            client.get("/saved.csv", params={"ids": row["id"]}).text))
        assert saved["title"].startswith("'=")


@pytest.mark.parametrize("url", ["/venues/icml-2026?topic=nope", "/venues/icml-2026.csv?topic=nope",
                                 "/venues/icml-2026?topic=nope&format=bib"])
def test_a_topic_that_does_not_exist_is_a_404_for_the_page_and_its_downloads(
        client: TestClient, url: str):
    assert client.get(url).status_code == 404


def test_a_backslash_never_reaches_bibtex_as_a_command(fresh: Catalog, tmp_path: Path):
    """`\\input{x}` in a title would make LaTeX read a file (issue 28, mutant 1)."""
    source = tmp_path / "slash.jsonl"
    source.write_text(json.dumps({
        "venue": "SLASH", "year": 2025, "title": r"Read \input{/etc/passwd} and \\ \write18{ls}",
        "authors": [r"Ada \def\x Lovelace"], "abstract": r"An \include{secrets} abstract."}) + "\n")
    fresh.ingest(source)
    with TestClient(create_app(fresh.settings)) as client:
        paper = client.get("/api/venues/slash-2025/papers").json()["papers"][0]
        text = client.get(f"/papers/{paper['id']}.bib").text
    assert "input" in text and "write18" in text and "include" in text
    assert not re.search(r"\\(input|write18|include|def)\b", text), text
