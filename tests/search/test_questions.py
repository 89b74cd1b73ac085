"""Questions and descriptions are read as bags of weighted content words (issue 40): their
function words are never required nor shown missing, papers sharing their concepts are
listed and counted, and a paper lacking a rare concept ranks below one lacking a common
word. Keyword queries keep every count they had."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.search.query.language import QueryParser
from app.search.query.question import Reading
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.keyword_counts import differences, keyword_counts
from tests.conftest import Catalog, make_catalog, write_list

KEYWORD_COUNTS = Path(__file__).parent.parent / "data" / "keyword_counts.json"


def _search(client: TestClient, q: str, **params: object) -> dict:
    return client.get("/api/search", params={"q": q, **params}).json()


@pytest.fixture(scope="module")
def weighed(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The seeds and papers where one word is rare ("pangolin") and one common ("study")."""
    catalog = make_catalog(tmp_path_factory.mktemp("weighed"))
    common = [f"We study scaling laws of optimizer number {i} in a broad study of models."
              for i in range(12)]
    write_list(catalog.seeds / "weighed.txt", "WEIGH 2026 Papers", *common,
               "Pangolin scales resist stress in a broad survey of armour.",
               "Pangolin genomes and the study of armour in mammals under stress.",
               "A study of stress in bridges, without any animal at all.",
               "Explicit regularizers of pangolin armour matter less than augmentation.")
    catalog.ingest(catalog.seeds)
    return catalog


@pytest.fixture(scope="module")
def weighed_client(weighed: Catalog):
    from app.main import create_app

    with TestClient(create_app(weighed.settings), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def phrased(tmp_path_factory: pytest.TempPathFactory) -> PaperSearch:
    """A rare phrase of common words ("small quokka models": quokka is in sixty papers)
    beside a phrase of rare words ("tusk distillation"), no paper holding both."""
    catalog = make_catalog(tmp_path_factory.mktemp("phrased"))
    common = [f"A quokka census number {i} with small samples of burrows." for i in range(60)]
    distilled = [f"Tusk distillation moves what teacher {i} knows into a student."
                 for i in range(12)]
    quokkas = [f"Small quokka models, {kind}: " + "small quokka models beat large ones. " * 3
               for kind in ("in the wild", "in zoos", "at night")]
    write_list(catalog.seeds / "phrased.txt", "PHRASE 2026 Papers",
               *common, *distilled, *quokkas)
    catalog.ingest(catalog.seeds)
    search = PaperSearch(catalog.settings.index_path, check_interval=0, result_cache=0)
    yield search
    search.close()


def test_a_questions_rare_phrase_of_common_words_does_not_outweigh_a_rarer_concept(
        phrased: PaperSearch):
    """A question's concept weighs what the papers saying it in words make it weigh: the
    phrase "small quokka models" is rarer than "tusk distillation", its words are not."""
    result = phrased.search(
        SearchRequest(q='is "tusk distillation" useful for "small quokka models"'),
        lambda ids: {})
    assert result.reading is not None and result.reading.complete == 0
    first = [hit.missing for hit in [*result.hits, *result.partial]][:3]
    assert first == [["small quokka models"]] * 3


def test_a_question_whose_function_words_no_paper_holds_still_finds_papers(
        weighed_client: TestClient):
    q = "how do pangolin scales resist stress"
    body = _search(weighed_client, q)
    assert body["reading"]["kind"] == "question"
    assert body["reading"]["not_required"] == ["how", "do"]
    assert body["total"] >= 1 and body["hits"]
    assert "Pangolin scales resist stress" in body["hits"][0]["abstract"]
    assert all("how" not in hit["missing"] and "do" not in hit["missing"]
               for hit in body["hits"])
    page = weighed_client.get("/search", params={"q": q}).text
    assert "0 results" not in page and "Read as a question" in page
    assert "<s>how</s>" not in page and "<s>do</s>" not in page


def test_a_paper_lacking_a_rare_word_ranks_below_one_lacking_a_common_word(
        weighed_client: TestClient):
    body = _search(weighed_client, "which study of pangolin stress")
    hits = {hit["abstract"][:12]: (rank, hit["missing"])
            for rank, hit in enumerate(body["hits"])}
    lacks_common = hits["Pangolin sca"]  # has pangolin and stress, lacks "study"
    lacks_rare = hits["A study of s"]  # has study and stress, lacks "pangolin"
    assert lacks_common[1] == ["study"] and lacks_rare[1] == ["pangolin"]
    assert lacks_common[0] < lacks_rare[0]
    assert body["hits"][0]["missing"] == []  # every concept first
    assert body["reading"]["complete"] == 1


def test_keyword_partial_matches_are_ranked_by_what_their_words_weigh(
        weighed_client: TestClient):
    body = _search(weighed_client, "study pangolin stress")
    assert body["reading"] is None and body["total"] == 1
    ranks = [hit["missing"] for hit in body["hits"] if hit["partial"]]
    assert ranks.index(["study"]) < ranks.index(["pangolin"])


def test_the_total_counts_what_is_listed_and_the_page_says_so(weighed_client: TestClient):
    q = "what is known about pangolin genomes"
    body = _search(weighed_client, q)
    assert body["reading"]["concepts"] == ["pangolin", "genomes"]
    assert body["reading"]["complete"] == 1
    assert body["total"] == len(body["hits"]) >= 1
    for counts in body["facets"].values():
        if counts and counts[0]["value"] != "code":
            assert sum(c["count"] for c in counts) == body["total"]
    page = weighed_client.get("/search", params={"q": q})
    assert f"{body['total']} result" in page.text and "1 paper holds every concept" in page.text


def test_a_question_finds_papers_that_write_a_derivation_of_its_words(
        weighed_client: TestClient):
    """...found, but not counted as holding the word: "regularizers" is not
    "regularization" (nor "transform" "transformer"), so it ranks as a partial match."""
    body = _search(weighed_client, "why does explicit regularization of pangolins help")
    assert body["hits"][0]["abstract"].startswith("Explicit regularizers of pangolin")
    assert body["hits"][0]["missing"] == ["regularization"]
    assert body["reading"]["complete"] == 0
    assert _search(weighed_client, "regularization pangolin")["total"] == 0  # keywords


def test_function_words_count_inside_a_quoted_phrase(weighed_client: TestClient):
    body = _search(weighed_client, 'how is "study of stress" done')
    assert body["reading"]["kind"] == "question"
    assert body["reading"]["not_required"] == ["how", "done"]
    assert body["total"] == 1
    assert [hit["abstract"][:12] for hit in body["hits"] if not hit["partial"]] == [
        "A study of s"]


def test_a_query_of_function_words_alone_is_searched_as_typed(client: TestClient):
    assert _search(client, "what is best")["reading"] is None


def test_keyword_queries_keep_every_count(seeded: Catalog):
    """The totals and per-year counts of 90 keyword queries, as the code before questions
    counted them (tests/data/keyword_counts.json)."""
    search = PaperSearch(seeded.settings.index_path)
    try:
        after = keyword_counts(search)
    finally:
        search.close()
    changed = differences(json.loads(KEYWORD_COUNTS.read_text()), after)
    # Only queries of four words or more that no paper holds all of, now descriptions.
    assert all(line.endswith("read as a description") for line in changed)
    assert {line.split(":")[0] for line in changed} <= {
        "grokking memorization transformers algorithmic",
        "graph neural network node classification"}


def test_a_question_of_one_phrase_that_no_paper_writes_lists_papers_with_its_words(
        weighed_client: TestClient):
    q = "is there work on armour-pangolin"  # no paper writes "armour pangolin"
    body = _search(weighed_client, q)
    assert body["reading"]["kind"] == "question" and body["reading"]["complete"] >= 1
    assert body["total"] == len(body["hits"]) > 0 and body["partial_hits"] == 0
    assert all("pangolin" in hit["abstract"].lower() for hit in body["hits"][:2])
    page = weighed_client.get("/search", params={"q": q})
    assert "0 results" not in page.text and "Read as a question" in page.text


@pytest.mark.parametrize(("q", "asks"), [
    ("help me find papers on pangolin genomes", ["help", "me", "find", "papers"]),
    ("what's the difference between pangolin genomes and armour", ["difference", "between"]),
    ("recent advances in pangolin genomes", ["recent", "advances"]),
    ("is armour necessary for pangolin genomes?", ["necessary"]),
    ("pros and cons of pangolin genomes", ["pros", "cons"]),
    ("seminal papers on pangolin genomes", ["seminal", "papers"]),
    ("can you recommend papers on pangolin genomes", ["recommend", "papers"]),
    ("has armour been applied to pangolin genomes", ["been", "applied"]),
    ("what is the state of the art in pangolin genomes", ["state of the art"]),
    ("which state-of-the-art methods exist for pangolin genomes", ["state-of-the-art"])])
def test_requests_and_comparisons_are_read_for_their_concepts(weighed_client: TestClient,
                                                               q: str, asks: list[str]):
    """A request ("help me find...") or a comparison ("the difference between...") is not
    a paper's words: none is required, none is struck out, and papers are found."""
    body = _search(weighed_client, q)
    assert body["reading"]["kind"] == "question"
    assert set(asks) <= set(body["reading"]["not_required"])
    assert body["hits"] and body["hits"][0]["missing"] in ([], ["armour"])
    assert not any(set(hit["missing"]) & set(asks) for hit in body["hits"])


def test_parentheses_in_a_description_are_prose(weighed_client: TestClient):
    """An author's sentence with an aside in parentheses is a description, not an expert's
    grouping: before, it read as keywords, "0 results", and every word not held struck out."""
    body = _search(weighed_client, "Pangolin armour resists stress in mammals (scales, "
                                   "genomes, etc) across a broad survey.")
    assert body["reading"]["kind"] == "description"
    assert "etc" in body["reading"]["not_required"] and "etc" not in body["reading"]["concepts"]
    assert body["total"] > 0 and body["hits"]
    assert _search(weighed_client, "(pangolin OR bridges) stress")["reading"] is None


def test_conjunctions_and_pronouns_of_a_description_are_no_concepts(
        weighed_client: TestClient):
    """"both", "but", "those", "thus": a TL;DR's joining words name nothing a paper must
    hold. As concepts they were required of "every concept" and struck out as missing."""
    joining = ["both", "but", "those", "thus"]
    body = _search(weighed_client, "Pangolin armour resists stress in both scales and genomes, "
                                   "but those of mammals differ, thus armour matters.")
    assert body["reading"]["kind"] == "description"
    assert set(joining) <= set(body["reading"]["not_required"])
    assert not set(joining) & set(body["reading"]["concepts"])
    assert body["hits"] and not any(set(hit["missing"]) & set(joining) for hit in body["hits"])


@pytest.fixture(scope="module")
def described(tmp_path_factory: pytest.TempPathFactory):
    """A paper about tapir gait, okapi stripes and sloth fur that never writes "introduce",
    and one that holds every concept of the description below in passing."""
    catalog = make_catalog(tmp_path_factory.mktemp("described"))
    common = [f"We introduce a model of optimizer number {i} for scaling laws." for i in range(12)]
    write_list(catalog.seeds / "described.txt", "DESCRIBE 2026 Papers", *common,
               "Tapir gait, okapi stripes and sloth fur: a model of tapir gait that explains "
               "okapi stripes and sloth fur from one principle of tapir gait.",
               "A model we introduce for birds of prey mentions tapir gait, okapi stripes and "
               "sloth fur in passing, among eagles, owls, kites, hawks, falcons and condors.")
    catalog.ingest(catalog.seeds)
    from app.main import create_app

    with TestClient(create_app(catalog.settings), raise_server_exceptions=False) as client:
        yield client


def test_a_description_ranks_the_paper_it_describes_above_one_with_every_word_in_passing(
        described: TestClient):
    """A sentence's incidental word ("introduce") held by one paper in passing does not put
    it above the paper about the sentence's rare concepts, which is still counted apart: a
    question's papers with every concept come first, a description's are ranked with the
    rest (measured on TL;DRs: docs/search.md)."""
    q = "We introduce a model of tapir gait, okapi stripes and sloth fur."
    body = _search(described, q)
    assert body["reading"]["kind"] == "description" and body["reading"]["complete"] == 1
    first, second = body["hits"][:2]
    assert first["abstract"].startswith("Tapir gait") and first["missing"] == ["introduce"]
    assert second["abstract"].startswith("A model we introduce") and second["missing"] == []
    assert "ranked with them" in described.get("/search", params={"q": q}).text
    asked = _search(described, "what do we introduce for a model of tapir gait, okapi stripes "
                               "and sloth fur")
    assert asked["reading"]["kind"] == "question"
    assert asked["hits"][0]["abstract"].startswith("A model we introduce")


@pytest.mark.parametrize(("text", "kind"), [
    ("We propose a method that lets language models use external tools by learning when to "
     "call APIs", Reading.DESCRIPTION),
    ("when does double descent happen", Reading.QUESTION),
    ("language models that learn when to call external tools and APIs?", Reading.QUESTION),
    ("double descent in deep networks, when", Reading.QUESTION),  # short: any word asks
])
def test_an_interrogative_within_a_long_text_joins_its_clauses(text: str, kind: Reading):
    assert QueryParser(lambda prefix: [], lambda name: True).parse(text).reading is kind


@pytest.mark.parametrize(("text", "kind"), [
    ("guessing how far away things are from a single photo", Reading.DESCRIPTION),
    ("figuring out who spoke when in a meeting", Reading.DESCRIPTION),
    ("telling whether a molecule is toxic", Reading.DESCRIPTION),
    ("a caption that says what is happening", Reading.DESCRIPTION),
    ("diffusion models how to sample faster", Reading.QUESTION),  # a noun before it
    ("catastrophic forgetting when fine-tuning", Reading.QUESTION),  # an -ing noun
    ("how far away are things in a single photo", Reading.QUESTION),
    ("guessing how far away things are from a photo?", Reading.QUESTION),
    ("answering questions about what is shown in a picture", Reading.DESCRIPTION),
    ("papers about what makes transformers generalize", Reading.QUESTION),  # no task
])
def test_an_interrogative_a_verb_takes_as_its_object_describes_a_task(text: str,
                                                                       kind: Reading):
    """Plain words describe an idea by what it does ("telling whether ..."): read as a
    question, its generic words would all be required first, and read as keywords, its
    "whether"; a description is ranked as a bag of its concepts, fused with meaning."""
    assert QueryParser(lambda prefix: [], lambda name: True).parse(text).reading is kind


@pytest.mark.parametrize(("question", "dropped"), [
    ("methods for multi-agent path finding", ["methods", "for"]),  # a compound's end
    ("how does decision making under uncertainty work", ["how", "does", "under", "work"]),
    ("what is the best way of finding bugs", ["what", "best", "way", "finding"]),
    ("help me find papers on imitation learning", ["help", "me", "find", "papers", "on"]),
])
def test_a_request_word_that_ends_a_compound_after_a_concept_is_kept(question, dropped):
    assert QueryParser(lambda prefix: [], lambda name: True).parse(question).dropped == dropped


@pytest.mark.parametrize(("text", "concepts"), [
    ("can transformers learn to sort or do arithmetic",
     ["transformers", "learn", "sort or arithmetic"]),
    ("are GANs or VAEs better for music", ["gans or vaes", "music"]),
    ("whether or not dropout helps", ["dropout"]),  # "or not" offers none
    ("how does sorting, merging or hashing scale", ["sorting or merging or hashing", "scale"]),
    ("transformers sort or arithmetic", ["transformers", "sort", "arithmetic"]),  # keywords
])
def test_a_question_offering_alternatives_asks_for_either(text: str, concepts: list[str]):
    assert QueryParser(lambda prefix: [], lambda name: True).parse(text).concepts == concepts


@pytest.fixture(scope="module")
def alternatives(tmp_path_factory: pytest.TempPathFactory) -> PaperSearch:
    """Transformer papers on sorting, on arithmetic and on neither; a sorting paper without
    transformers."""
    catalog = make_catalog(tmp_path_factory.mktemp("alternatives"))
    write_list(catalog.seeds / "alternatives.txt", "ALT 2026 Papers",
               "Transformers learn to sort lists of numbers when trained on short ones.",
               "Transformers learn arithmetic: addition of long numbers from few examples.",
               *[f"Transformers learn grammar number {i} from parsed sentences."
                 for i in range(6)],
               "Recurrent networks learn to sort lists with pointer attention.")
    catalog.ingest(catalog.seeds)
    search = PaperSearch(catalog.settings.index_path, check_interval=0, result_cache=0)
    yield search
    search.close()


def test_papers_holding_either_alternative_hold_every_concept(alternatives: PaperSearch):
    """Read as two concepts, "sort" and "arithmetic", no paper held every one and a paper on
    arithmetic showed "sort" missing; either is what the question asks."""
    result = alternatives.search(SearchRequest(q="can transformers learn to sort or do "
                                                 "arithmetic meaning:off"), lambda ids: {})
    assert result.reading is not None and result.reading.complete == 2
    assert result.reading.concepts == ["transformers", "learn", "sort or arithmetic"]
    first = {hit.id for hit in result.hits[:2]}
    assert len(first) == 2 and all(not hit.missing for hit in result.hits[:2])
