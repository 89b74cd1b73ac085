"""A written phrase matches only where the text has as many stop words between its words:
"in-context learning" is not "in the context of learning" (the index stores, with each
position, the stop words just before it)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.conftest import served_list

PAPERS = {
    "icl": "We study in-context learning of quokka transformers.",
    "across": "Quokka tasks in the context of learning to rank are hard.",
    "moe": "A sparse mixture-of-experts quokka model routes tokens.",
    "two": "A mixture of the experts of quokka is fit by expectation maximization.",
    "none": "Mixture experts of quokka burrows without stop words between them.",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with served_list(tmp_path_factory, "GAP 2026 Papers", *PAPERS.values()) as (_, client):
        yield client


def found(client: TestClient, q: str) -> set[str]:
    """Which of PAPERS the query finds with every word (quokka keeps the seeds out)."""
    body = client.get("/api/search", params={"q": f"{q} quokka", "per_page": 100}).json()
    texts = {hit["abstract"] for hit in body["hits"] if not hit["partial"]}
    return {name for name, text in PAPERS.items() if text in texts}


@pytest.mark.parametrize(("query", "expected"), [
    ('"in-context learning"', {"icl"}),
    ("in-context learning", {"icl"}),  # the hyphenated word is a phrase as written
    ('"context learning"', {"icl"}),  # not across "of"
    ("context learning", {"icl", "across"}),  # words alone: anywhere
    ('"mixture of experts"', {"moe"}),
    ('"mixture of the experts"', {"two"}),
])
def test_a_written_phrase_matches_as_many_stop_words_as_it_has(client, query, expected):
    assert found(client, query) == expected


def test_the_hyphen_or_the_space_between_words_does_not_matter(client):
    assert found(client, '"mixture-of-experts"') == found(client, '"mixture of experts"')
    assert found(client, '"in context learning"') == {"icl"}
