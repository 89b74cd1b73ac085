"""Proximity: the query's words together rank a paper above the same words scattered."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from app.search.rank import proximity
from tests.conftest import Catalog, write_list

FILLER = "with careful measurements over many long winter nights near the coast"
MORE = "and careful notes"  # past the headline


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


def test_every_match_is_listed_once_when_more_match_than_are_reranked(fresh: Catalog,
                                                                     tmp_path: Path):
    """Proximity re-ranks the first RERANKED matches; those after them follow, on their
    pages (issue 58: page 3 of 52 matches listed 10 of its 12)."""
    count = proximity.RERANKED + 2
    fillers = FILLER.split()
    abstracts = [f"Quokka {' '.join(fillers[:n % len(fillers)])} foraging, case {n}."
                 for n in range(count)]
    fresh.ingest(write_list(tmp_path / "many.txt", "MANY 2025 Papers", *abstracts))
    with TestClient(create_app(fresh.settings)) as client:
        pages = [client.get("/api/search", params={"q": "quokka foraging", "page": page}).json()
                 for page in (1, 2, 3)]
    assert [(body["total"], body["pages"]) for body in pages] == [(count, 3)] * 3
    listed = [[hit["abstract"] for hit in body["hits"] if not hit["partial"]] for body in pages]
    assert [len(page) for page in listed] == [20, 20, count - 40]
    assert sorted(sum(listed, [])) == sorted(abstracts)


def test_a_questions_words_reversed_count_less_than_a_keyword_querys(fresh: Catalog,
                                                                    tmp_path: Path):
    """A question's consecutive words are a term in the field's order: the paper that holds
    "descent ... double" more often loses to the one writing "double descent" once, where
    the keywords, read as typed, rank it first for the words it holds more."""
    reversed_ = f"Quokka foraging {FILLER} {MORE}: a descent, a wombat descent with double steps."
    in_order = f"Quokka foraging {FILLER} {MORE}: a wombat double descent in steps."
    fresh.ingest(write_list(tmp_path / "order.txt", "ORDER 2025 Papers", reversed_, in_order))
    with TestClient(create_app(fresh.settings)) as client:
        def ours(q: str) -> list[str]:
            hits = client.get("/api/search", params={"q": q}).json()["hits"]
            return [hit["abstract"] for hit in hits if "wombat" in hit["abstract"]]

        assert ours("double descent") == [reversed_, in_order]
        assert ours("when does double descent happen") == [in_order, reversed_]
