import csv
import io
import json
import xml.etree.ElementTree as ET

import bibtexparser
import pytest
from fastapi.testclient import TestClient

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
