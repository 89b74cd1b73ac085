"""A long form finds its acronym only beside the long form's telling word where most papers
writing the acronym mean something else: "sharpness-aware minimization" is not the segment
anything model, though both write SAM. Where most papers writing it mean the long form, the
acronym alone is enough."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.conftest import served_list

SHARP = [f"Sharpness-aware minimization (SAM) finds flat quokka minima {i}." for i in range(2)]
SEGMENT = [f"The segment anything model (SAM) cuts quokka images into masks {i}."
           for i in range(5)]
GRAPH = [f"Graph neural networks (GNNs) classify quokka nodes {i}." for i in range(3)]
BARE = "GNNs predict the properties of quokka molecules."
MAPS = [f"Diffusion maps (DM) embed quokka point clouds {i}." for i in range(2)]
MODELS = [f"Diffusion models (DMs) generate quokka images and saliency maps {i}."
          for i in range(3)]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with served_list(tmp_path_factory, "AMBIGUOUS 2026 Papers",
                     *SHARP, *SEGMENT, *GRAPH, BARE, *MAPS, *MODELS) as (_, client):
        yield client


def found(client: TestClient, q: str) -> set[str]:
    body = client.get("/api/search", params={"q": f"{q} quokka", "per_page": 100}).json()
    return {hit["abstract"] for hit in body["hits"] if not hit["partial"]}


@pytest.mark.parametrize("query", ['"sharpness-aware minimization"',
                                   "sharpness-aware minimization", "sharpness aware minimization"])
def test_a_long_form_finds_an_ambiguous_acronym_only_beside_its_telling_word(client, query):
    assert found(client, query) == set(SHARP)


def test_the_acronym_typed_still_finds_every_paper_writing_it(client):
    assert found(client, "SAM") == set(SHARP) | set(SEGMENT)


def test_a_long_form_finds_an_acronym_most_papers_write_for_it(client):
    assert found(client, "graph neural network") == set(GRAPH) | {BARE}
    assert found(client, '"graph neural networks"') == set(GRAPH) | {BARE}


def test_long_forms_of_one_acronym_sharing_a_word_are_two_meanings(client):
    """Half their words alike had made "diffusion maps" a variant of "diffusion models"."""
    assert found(client, '"diffusion maps"') == set(MAPS)
    assert found(client, '"diffusion models"') == set(MODELS)
    assert found(client, "DM") == set(MAPS) | set(MODELS)
