"""A match in a paper's title ranks above the same match in another paper's abstract."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import Catalog


def test_a_title_match_outranks_the_same_abstract_match(fresh: Catalog, tmp_path: Path):
    rows = [
        {"venue": "TW", "year": 2025, "title": "Marsupial dynamics in dry forests",
         "abstract": "We study how quokkas forage at night across seasons and islands."},
        {"venue": "TW", "year": 2025, "title": "Quokka dynamics in dry forests",
         "abstract": "We study how marsupials forage at night across seasons and islands."},
    ]
    path = tmp_path / "tw.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    fresh.ingest(path)
    with TestClient(create_app(fresh.settings)) as client:
        hits = client.get("/api/search", params={"q": "quokka"}).json()["hits"]
    assert [hit["title"] for hit in hits] == ["Quokka dynamics in dry forests",
                                              "Marsupial dynamics in dry forests"]


def test_an_author_keyword_counts_like_a_title_word(fresh: Catalog, tmp_path: Path):
    rows = [
        {"venue": "KW", "year": 2025, "title": "Foraging at night",
         "abstract": "We study how wombats forage across seasons and islands.",
         "keywords": ["burrows"]},
        {"venue": "KW", "year": 2025, "title": "Foraging by night",
         "abstract": "We study how wombats forage across seasons and burrows.",
         "keywords": ["islands"]},
    ]
    path = tmp_path / "kw.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    fresh.ingest(path)
    with TestClient(create_app(fresh.settings)) as client:
        hits = client.get("/api/search", params={"q": "burrows"}).json()["hits"]
    assert [hit["title"] for hit in hits] == ["Foraging at night", "Foraging by night"]
