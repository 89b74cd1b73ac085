"""Each feature of the query language, against the seed catalog through /api/search."""

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.main import create_app
from app.models import Paper
from tests.conftest import Catalog, write_list


def search(client: TestClient, q: str = "", **params) -> dict:
    response = client.get("/api/search", params={"q": q, **params})
    assert response.status_code == 200
    return response.json()


def all_ids(client: TestClient, q: str, **params) -> set[str]:
    found: set[str] = set()
    page = 1
    while True:
        body = search(client, q, page=page, **params)
        found |= {hit["id"] for hit in body["hits"] if not hit["partial"]}
        if page >= body["pages"]:
            return found
        page += 1


def matching(catalog: Catalog, pattern: str) -> set[str]:
    with catalog.session() as session:
        return {p.id for p in session.exec(select(Paper)) if re.search(pattern, p.plain, re.I)}


def test_exact_phrase_requires_adjacent_words(client: TestClient, seeded: Catalog):
    phrase = all_ids(client, '"neural networks"')
    assert phrase == matching(seeded, r"neural[\s-]networks?\b")
    assert phrase < all_ids(client, "neural networks")


def test_words_that_spell_a_synonym_mean_the_group_as_the_quoted_phrase_does(
        client: TestClient, seeded: Catalog):
    group = all_ids(client, '"domain generalization"')
    assert group == all_ids(client, "domain generalization") == all_ids(client, "DG")
    assert matching(seeded, r"domain generali[sz]ation") <= group


def test_or_unions_and_not_excludes(client: TestClient):
    grokking, lora = all_ids(client, "grokking"), all_ids(client, "LoRA")
    assert all_ids(client, "grokking OR LoRA") == grokking | lora
    diffusion = all_ids(client, "diffusion")
    assert all_ids(client, "grokking -diffusion") == grokking - diffusion
    assert all_ids(client, "grokking NOT diffusion") == grokking - diffusion
    assert grokking & diffusion  # otherwise the exclusion above proves nothing


def test_parentheses_group(client: TestClient):
    expected = (all_ids(client, "sharpness") | all_ids(client, "flatness")) & all_ids(
        client, "minimization")
    assert all_ids(client, "(sharpness OR flatness) minimization") == expected


def test_prefix_expands_to_real_words(client: TestClient, seeded: Catalog):
    found = all_ids(client, "grokk*")
    assert found == matching(seeded, r"\bgrokk")


def test_hyphenated_words_match_spaced_words(client: TestClient, seeded: Catalog):
    assert all_ids(client, "weak-to-strong") == matching(seeded, r"weak[- ]to[- ]strong")
    assert all_ids(client, "in-context") == matching(seeded, r"\bin[- ]context")


@pytest.mark.parametrize(("british", "american"), [
    ("generalisation", "generalization"), ("optimise", "optimize"),
    ("behaviour", "behavior"), ("memorisation", "memorization"), ("modelling", "modeling"),
])
def test_british_and_american_spellings_match_each_other(client, british, american):
    found = all_ids(client, british)
    assert found and found == all_ids(client, american)


@pytest.mark.parametrize(("acronym", "expansion"), [
    ("LLM", "large language model"), ("MoE", "mixture of experts"),
    ("RL", "reinforcement learning"), ("SAM", "sharpness-aware minimization"),
    ("GNN", "graph neural network"), ("ICL", "in-context learning"),
    ("LoRA", "low-rank adaptation"),
])
def test_acronyms_and_expansions_find_each_other(client, seeded, acronym, expansion):
    words = r"[- ]".join(re.split(r"[- ]", expansion))
    expected = matching(seeded, rf"\b{acronym}s?\b|\b{words}")
    assert expected
    assert all_ids(client, acronym) == expected
    assert all_ids(client, f'"{expansion}"') == expected


def test_unknown_word_gets_did_you_mean_and_corrected_results(client: TestClient):
    body = search(client, "memorizaton")
    assert body["corrected_query"] == "memorization"
    assert body["showing_corrected"] is True
    assert {h["id"] for h in body["hits"] if not h["partial"]} == all_ids(client, "memorization")
    # ...and the page goes on as the corrected word's own does: with its related words
    corrected = search(client, "memorization")
    assert body["related_words"] == corrected["related_words"] != []
    assert [h["id"] for h in body["hits"]] == [h["id"] for h in corrected["hits"]]


def test_did_you_mean_beside_results_of_known_words(client: TestClient):
    page = client.get("/search", params={"q": "grokking OR transformr"})
    assert "Did you mean" in page.text and "transformer" in page.text


def test_inline_filters(client: TestClient, seeded: Catalog):
    iclr = search(client, "venue:iclr memorization")
    assert iclr["total"] > 0 and {h["venue_slug"] for h in iclr["hits"]} == {"iclr-2026"}
    assert search(client, "year:2026")["total"] == 91
    assert search(client, "year:2020-2025")["total"] == 0
    with seeded.session() as session:
        with_code = {p.id for p in session.exec(select(Paper)) if p.code_urls}
    assert all_ids(client, "has:code") == with_code and len(with_code) == 8


def test_facet_filters_in_the_url(client: TestClient):
    body = search(client, "generalization", venue="iclr-2026", has="code")
    assert all(h["venue_slug"] == "iclr-2026" for h in body["hits"])
    assert body["filters"] == {"venue": "iclr-2026", "has": "code"}


def test_facet_counts_add_up(client: TestClient):
    body = search(client, "generalization")
    venues = dict((f["value"], f["count"]) for f in body["facets"]["venue"])
    assert sum(venues.values()) == body["total"]
    for slug, count in venues.items():
        assert search(client, "generalization", venue=slug)["total"] == count
    years = {f["value"]: f["count"] for f in body["facets"]["year"]}
    assert years == {2026: body["total"]}


def test_venue_facet_ignores_its_own_filter(client: TestClient):
    body = search(client, "generalization", venue="iclr-2026")
    assert len(body["facets"]["venue"]) == 3


def test_filter_only_search_lists_a_venue(client: TestClient):
    assert search(client, "", venue="iclr-2026")["total"] == 17


def test_sort_by_venue(client: TestClient):
    body = search(client, "generalization", sort="venue")
    slugs = [h["venue_slug"] for h in body["hits"]]
    assert slugs == sorted(slugs)


def test_paging_stays_correct_with_filters(client: TestClient):
    total = search(client, "generalization", venue="neurips-2026")["total"]
    assert total > 20
    assert len(all_ids(client, "generalization", venue="neurips-2026")) == total
    past = client.get("/search", params={"q": "generalization", "venue": "neurips-2026",
                                         "page": 9})
    assert past.status_code == 404
    assert "past the end" in past.text


def test_suggestions_complete_the_last_word(client: TestClient):
    body = client.get("/api/suggest", params={"q": "sharpness minimi"}).json()
    assert 0 < len(body["suggestions"]) <= 8
    assert "sharpness minimization" in body["suggestions"]
    assert all(s.startswith("sharpness minimi") for s in body["suggestions"])
    assert client.get("/api/suggest", params={"q": ""}).json()["suggestions"] == []


def test_results_page_shows_facets_chips_and_sort(client: TestClient):
    page = client.get("/search", params={"q": "generalization", "venue": "iclr-2026"}).text
    assert 'aria-label="Active filters"' in page and "Remove filter venue" in page
    assert 'href="?q=generalization"' in page  # the chip's link drops the filter
    assert re.search(r'href="\?q=generalization&amp;venue=neurips-2026">NeurIPS 2026</a>', page)
    assert "sort=venue" in page


def test_help_page_documents_the_language(client: TestClient):
    page = client.get("/help/search")
    assert page.status_code == 200
    for syntax in ['"edge of stability"', "optim*", "venue:icml", "has:code", "LoRA"]:
        assert syntax in page.text.replace("&#34;", '"')
    assert '/help/search">Search help</a>' in client.get("/").text


def test_suggestions_include_frequent_phrases(client: TestClient):
    body = client.get("/api/suggest", params={"q": "domain gen"}).json()
    assert "domain generalization" in body["suggestions"]
    assert len(body["suggestions"]) <= 8


def test_facet_counts_match_a_brute_force_count(client: TestClient):
    from collections import Counter

    for q in ["generalization", "learning", "diffusion OR graph"]:
        hits, page = [], 1
        while True:
            body = search(client, q, page=page)
            hits += [hit for hit in body["hits"] if not hit["partial"]]
            if page >= body["pages"]:
                break
            page += 1
        assert len(hits) == body["total"]
        for facet, key in (("venue", "venue_slug"), ("topic", "topic"), ("year", "year")):
            brute = Counter(hit[key] for hit in hits)
            assert {f["value"]: f["count"] for f in body["facets"][facet]} == dict(brute)
        with_code = sum(1 for hit in hits if hit["code_urls"])
        assert {f["value"]: f["count"] for f in body["facets"].get("has", [])} == (
            {"code": with_code} if with_code else {})


def test_a_synonym_groups_typed_form_weighs_more_than_its_other_forms(fresh: Catalog,
                                                                     tmp_path: Path):
    """Typed as an acronym or a quoted phrase, a group's form ranks first: a paper scores
    more for the form it writes when that form is typed than when another is (by the weight
    `weights.WEIGHTS.other_form` of the others), and each form finds all three papers."""
    acronym = "Quokka foraging with an RNN over burrows."
    long_form = "Quokka foraging with a recurrent neural network over burrows."
    # Half the papers writing RNN say "recurrent" too: the long form finds them without it
    # (opened.OpenIndex.telling_word).
    defined = "Wombats dig burrows: recurrent neural networks (RNNs) predict their tunnels."
    fresh.ingest(write_list(tmp_path / "forms.txt", "FORMS 2025 Papers",
                            acronym, long_form, defined))
    with TestClient(create_app(fresh.settings)) as client:
        scores = {typed: {hit["abstract"]: hit["score"] for hit in search(client, typed)["hits"]
                          if not hit["partial"]}
                  for typed in ("RNN", '"recurrent neural network"')}
    by_acronym, by_long_form = scores["RNN"], scores['"recurrent neural network"']
    assert {acronym, long_form, defined} <= by_acronym.keys() & by_long_form.keys()
    assert by_acronym[acronym] > by_long_form[acronym]
    assert by_long_form[long_form] > by_acronym[long_form]
    assert by_long_form[long_form] > by_long_form[acronym]


def test_parentheses_inside_a_word_are_part_of_it(fresh: Catalog, tmp_path: Path):
    """"SE(3)-equivariant" is one word, not "SE", a group "(3)" and NOT "equivariant" (which
    excluded the very papers it names); "model(s)" is "model"."""
    se3 = "Quokka burrows mapped by SE(3)-equivariant networks from point clouds."
    so3 = "Quokka burrows mapped by SO(3)-equivariant networks from point clouds."
    linear = "Wombat tunnels searched in O(n) time by one model with attention."
    fresh.ingest(write_list(tmp_path / "groups.txt", "GROUPS 2025 Papers", se3, so3, linear))
    with TestClient(create_app(fresh.settings)) as client:
        def found(q: str) -> set[str]:
            return {hit["abstract"] for hit in search(client, q)["hits"] if not hit["partial"]}
        assert found("SE(3)-equivariant networks") == {se3}
        assert found("quokka SO(3)-equivariant") == {so3}
        assert found("O(n) attention") == {linear}
        assert found("wombat model(s)") == found("wombat model") == {linear}
        assert found("quokka -(SE OR networks)") == set()  # a group still groups


def test_a_possessive_is_the_word_itself(fresh: Catalog, tmp_path: Path):
    """"the agent's reward" asks for papers on agents and rewards, not for the phrase "agent
    s", which a paper writing "agents" or "an agent" does not hold."""
    plural = "Agents learn a shaped reward from sparse feedback in gridworlds."
    possessive = "The agent's reward is shaped from sparse feedback in gridworlds."
    other = "Robots learn grasping from sparse feedback in kitchens."
    fresh.ingest(write_list(tmp_path / "agents.txt", "AGENTS 2025 Papers", plural, possessive,
                            other))
    with TestClient(create_app(fresh.settings)) as client:
        def found(q: str) -> set[str]:
            return {hit["abstract"] for hit in search(client, q)["hits"] if not hit["partial"]}
        assert found("agent's reward") == found("agent reward") == {plural, possessive}
        assert found("agent’s reward") == {plural, possessive}  # a typographic apostrophe
        assert found("how is an agent's reward shaped from sparse feedback") == {
            plural, possessive}
