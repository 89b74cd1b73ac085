"""The reasons shown beside related papers and recommendations (issue 40, item 2) name the
concepts two papers share, phrases and acronyms first, never a function word they share."""

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.search.rank import reasons
from app.search.searcher import PaperSearch
from tests.conftest import Catalog, served_list

# Four papers on one rare theme, each sharing a phrase with the others ("cochlear implants")
# and an acronym ("CI"), and a verb that the seeds never use but each of them repeats.
THEME = [
    "Spiking cochlear implants (CI) encode speech for deaf listeners. This suggests that CI "
    "users hear pitch in electrode bursts, and it suggests a cochlear implant tuning {n}.",
    "Cochlear implants (CI) stimulate the auditory nerve with electrode arrays. Our study "
    "suggests that CI listeners gain from tonotopic electrode mapping {n}.",
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Catalog, TestClient]]:
    abstracts = [THEME[i % 2].format(n=f"variant{i}") for i in range(4)]
    # Rebuilt: related papers are found by a vector model that knows the theme's words.
    with served_list(tmp_path_factory, "COCHLEA 2026 Papers", *abstracts,
                     rebuild=True) as catalog_client:
        yield catalog_client


def theme_papers(client: TestClient) -> list[dict]:
    return client.get("/api/venues/cochlea-2026/papers").json()["papers"]


def test_related_papers_name_shared_phrases_and_acronyms_not_shared_verbs(served):
    _, client = served
    for paper in theme_papers(client):
        related = client.get(f"/api/papers/{paper['id']}").json()["related"]
        theme = {p["id"] for p in theme_papers(client)}
        on_theme = [r for r in related if r["id"] in theme]
        assert len(on_theme) == 3
        for other in on_theme:  # the longest phrase both use: "cochlear implant tuning"
            assert any("cochlear implant" in name for name in other["shares"])
            assert any(name.startswith("CI") for name in other["shares"])
        assert not any(word.startswith("suggest") for r in related for word in r["shares"])
        page = client.get(paper["url"]).text
        shown = re.findall(r"shares: ([^<]*)</span>", page)  # the page's related papers
        assert all("suggest" not in s for s in shown)
        assert sum("cochlear implant" in s for s in shown) == 3


def test_recommendations_name_the_lists_phrases_not_its_shared_verbs(served):
    _, client = served
    papers = theme_papers(client)
    found = client.get("/api/recommendations",
                       params={"ids": ",".join(p["id"] for p in papers[:2])}).json()["papers"]
    first = found[:2]
    assert {p["id"] for p in first} == {p["id"] for p in papers[2:]}
    assert all(any("cochlear implant" in name for name in p["shares"]) for p in first)
    assert not any(word.startswith("suggest") for p in found for word in p["shares"])


def test_a_word_search_does_not_index_is_no_shared_concept(tmp_path_factory):
    """"is-a" is two stop words to search: no phrase of it may be a concept (a phrase with no
    terms divided the weighing of shared concepts by zero: related papers failed)."""
    abstracts = [f"We detect is-a relations between ontology concepts with lexical patterns "
                 f"of kind {n}, and is-a hierarchies follow." for n in ("one", "two", "three")]
    with served_list(tmp_path_factory, "ONTOLOGY 2026 Papers", *abstracts) as (_, client):
        papers = client.get("/api/venues/ontology-2026/papers").json()["papers"]
        for paper in papers:
            answer = client.get(f"/api/papers/{paper['id']}")
            assert answer.status_code == 200
            assert {r["id"] for r in answer.json()["related"]} >= (
                {p["id"] for p in papers} - {paper["id"]})
            assert not any("is-a" in name for r in answer.json()["related"]
                           for name in r["shares"])
            assert client.get(paper["url"]).status_code == 200
        listed = client.get("/api/recommendations", params={"ids": papers[0]["id"]})
        assert listed.status_code == 200 and listed.json()["papers"]


def test_the_concepts_that_several_texts_share_leave_out_those_of_one_text(served):
    """What a vague description borrows from its closest papers (shared_terms.py): the
    concepts that `least` of the texts use, not one text's own."""
    catalog, _ = served
    texts = [THEME[1].format(n="first"), THEME[1].format(n="second"),
             "Graph neural networks pass messages between the nodes of molecular graphs."]
    search = PaperSearch(catalog.settings.index_path)

    def concepts(least: int) -> list[reasons.Concept]:
        return search.with_index(
            lambda current: reasons.concepts(current.searcher, texts, set(), least=least), [])

    assert any("graph neural network" in concept.name for concept in concepts(1))
    shared = concepts(2)
    assert any("cochlear implant" in concept.name for concept in shared)
    assert shared and all(concept.users >= 2 for concept in shared)
