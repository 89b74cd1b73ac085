"""A question asking to do without a concept ranks first the papers that say they do without
it, and still lists every paper holding the concept: papers that do without a thing name it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.search.query.language import QueryParser
from tests.conftest import served_list

THROUGH = [f"Training quokka networks by backpropagation: backpropagation trains quokka "
           f"networks of depth {i}." for i in range(8)]
WITHOUT = "We train deep quokka networks without backpropagation, with local rules."
FREE = "A backpropagation-free optimizer for training quokka networks."


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with served_list(tmp_path_factory, "WITHOUT 2026 Papers",
                     *THROUGH, WITHOUT, FREE) as (_, client):
        yield client


def test_papers_that_do_without_the_concept_rank_first(client: TestClient):
    body = client.get("/api/search", params={
        "q": "is it possible to train quokka networks without backpropagation"}).json()
    assert body["reading"]["kind"] == "question"
    assert "without" in body["reading"]["not_required"]
    assert body["total"] == len(THROUGH) + 2  # the concept is still required, not excluded
    assert {hit["abstract"] for hit in body["hits"][:2]} == {WITHOUT, FREE}
    assert all(not hit["missing"] for hit in body["hits"])


def test_keywords_read_without_as_a_word(client: TestClient):
    body = client.get("/api/search", params={"q": "quokka without backpropagation"}).json()
    assert body["reading"] is None
    assert [hit["abstract"] for hit in body["hits"] if not hit["partial"]] == [WITHOUT]


@pytest.mark.parametrize(("question", "lacking"), [
    ("how to train quokka networks without backpropagation", 2),
    ("can we prune quokka networks without losing accuracy", 0),  # a verb: not a concept
    ("quokka networks without backpropagation", 0),  # keywords: "without" is a word
])
def test_only_a_questions_concept_after_without_adds_its_phrases(question, lacking):
    parser = QueryParser(lambda prefix: [], lambda name: True)
    assert len(parser.parse(question).scored) == lacking
