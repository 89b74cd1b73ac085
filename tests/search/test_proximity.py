"""Proximity: the query's words together rank a paper above the same words scattered."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import Catalog, write_list

FILLER = "with careful measurements over many long winter nights near the coast"


def test_adjacent_words_outrank_the_same_words_scattered(fresh: Catalog, tmp_path: Path):
    scattered = f"Quokka studies {FILLER} reveal foraging."
    adjacent = f"Studies {FILLER} reveal quokka foraging."
    fresh.ingest(write_list(tmp_path / "prox.txt", "PROX 2025 Papers", scattered, adjacent))
    with TestClient(create_app(fresh.settings)) as client:
        hits = client.get("/api/search", params={"q": "quokka foraging"}).json()["hits"]
    assert [hit["abstract"] for hit in hits] == [adjacent, scattered]


def test_words_in_the_querys_order_outrank_the_same_words_reversed(fresh: Catalog,
                                                                   tmp_path: Path):
    """"double descent" is not "descent with double-pass": the same two words, one apart
    once stop words are dropped, but in the other order."""
    reversed_ = f"Quokka foraging {FILLER}: a wombat descent with double steps."
    in_order = f"Quokka foraging {FILLER}: a wombat double descent in steps."
    fresh.ingest(write_list(tmp_path / "order.txt", "ORDER 2025 Papers", reversed_, in_order))
    with TestClient(create_app(fresh.settings)) as client:
        hits = client.get("/api/search", params={"q": "double descent"}).json()["hits"]
    ours = [hit["abstract"] for hit in hits if "wombat" in hit["abstract"]]
    assert ours == [in_order, reversed_]
