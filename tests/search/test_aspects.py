"""A question about an aspect of a concept ("what are the limitations of X") asks for the
papers on X: the aspect is not required and never missing, and the papers that discuss it
rank first. Typed as keywords, the word is required as any other."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.conftest import served_list

DETECTING = [f"Quokkanets for wombat detection: we train quokkanets of depth {i} "
             f"to detect wombats." for i in range(7)]
TRACKING = [f"Quokkanets for bandicoot tracking at {i} frames a second." for i in range(3)]
LIMITS = ("We study the limitations of quokkanets for wombat detection: where they fail "
          "and why.")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with served_list(tmp_path_factory, "ASPECT 2026 Papers",
                     *DETECTING, *TRACKING, LIMITS) as (_, client):
        yield client


def search(client: TestClient, q: str) -> dict:
    return client.get("/api/search", params={"q": q}).json()


@pytest.mark.parametrize(("question", "aspect"), [
    ("what are the limitations of quokkanets", "limitations"),
    ("what is the main limitation of quokkanets?", "limitation"),
])
def test_a_question_of_one_concept_lists_every_paper_on_it_those_on_the_aspect_first(
        client: TestClient, question: str, aspect: str):
    body = search(client, question)
    assert body["reading"]["kind"] == "question"
    assert aspect in body["reading"]["not_required"]
    assert body["reading"]["concepts"] == ["quokkanets"]
    assert body["total"] == len(DETECTING) + len(TRACKING) + 1
    assert body["hits"][0]["abstract"] == LIMITS


def test_a_question_of_several_concepts_counts_them_alone(client: TestClient):
    body = search(client, "what are the drawbacks and limitations of quokkanets for "
                          "wombat detection?")
    reading = body["reading"]
    assert {"drawbacks", "limitations"} <= set(reading["not_required"])
    assert "limitations" not in " ".join(reading["concepts"])
    assert reading["complete"] == len(DETECTING) + 1
    assert body["hits"][0]["abstract"] == LIMITS
    assert all(not hit["missing"] for hit in body["hits"][:len(DETECTING) + 1])


def test_keywords_require_the_word(client: TestClient):
    body = search(client, "quokkanets limitations")
    assert body["reading"] is None
    assert [hit["abstract"] for hit in body["hits"] if not hit["partial"]] == [LIMITS]


def test_an_aspect_leading_makes_a_question(client: TestClient):
    body = search(client, "drawbacks of quokkanets for wombat detection")
    assert body["reading"]["kind"] == "question"
    assert "drawbacks" in body["reading"]["not_required"]
    assert body["reading"]["complete"] == len(DETECTING) + 1
