"""A compound written closed or hyphenated ("pretraining", "pre-training") finds both
spellings where the catalog writes both, and keeps its own count where the other spelling is
rare or written as two words: app/search/words/compounds.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from app.search.query.expand import Synonyms
from app.search.query.language import QueryParser
from app.search.words.analysis import analyze
from app.search.words.compounds import other_spelling
from tests.conftest import served_list

HYPHENATED = [f"Zorb-fitting of quokka models, variant {i}." for i in range(3)]
CLOSED = [f"Zorbfitting trains quokka models, variant {i}." for i in range(2)]
INFLECTED = ["Quokka models zorbfitted on small data."]
COMMON = [f"A blipset of quokka images, number {i}." for i in range(12)]
RARE = ["One blip-set of quokka images."]
SPACED = [f"We glorp up quokka runs, case {i}." for i in range(3)]
VERB_CLOSED = [f"A glorpup of quokka runs, case {i}." for i in range(2)]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with served_list(tmp_path_factory, "SPELLING 2026 Papers", *HYPHENATED, *CLOSED,
                     *INFLECTED, *COMMON, *RARE, *SPACED, *VERB_CLOSED) as (_, client):
        yield client


def search(client: TestClient, q: str) -> dict:
    return client.get("/api/search", params={"q": q}).json()


def test_both_spellings_find_the_same_papers(client: TestClient):
    closed, hyphenated = search(client, "zorbfitting"), search(client, "zorb-fitting")
    expected = len(HYPHENATED) + len(CLOSED) + len(INFLECTED)
    assert closed["total"] == hyphenated["total"] == expected
    assert closed["spellings"] == [{"word": "zorbfitting", "also_matched": ["zorb-fitting"]}]
    assert hyphenated["spellings"] == [{"word": "zorb-fitting",
                                        "also_matched": ["zorbfitting"]}]


def test_a_quoted_compound_is_spelled_as_written(client: TestClient):
    assert search(client, '"zorbfitting"')["total"] == len(CLOSED) + len(INFLECTED)
    assert search(client, '"zorb-fitting"')["total"] == len(HYPHENATED)
    assert search(client, '"zorb-fitting"')["spellings"] == []


def test_a_rare_hyphenated_spelling_leaves_the_common_word_its_count(client: TestClient):
    assert search(client, "blipset")["total"] == len(COMMON)
    assert search(client, "blip-set")["total"] == len(RARE)
    assert search(client, "blipset")["spellings"] == []


def test_two_words_are_no_spelling_of_a_compound(client: TestClient):
    assert search(client, "glorpup")["total"] == len(VERB_CLOSED)


def test_the_page_says_which_spelling_it_also_matched(client: TestClient):
    page = client.get("/search", params={"q": "zorbfitting models"}).text
    assert "zorbfitting also matched the spelling zorb-fitting" in page
    assert "Search “zorbfitting” alone" in page


@pytest.mark.parametrize(("typed", "other"), [
    ("pretraining", "pre-training"),
    ("Pre-Training", "pretraining"),
    ("dataset", None),  # data-set: under a tenth of dataset's papers
    ("data-set", None),
    ("pretrain", None),  # no hyphenated spelling written
    ("state-of-the-art", None),
    ("pre training", None),
])
def test_the_other_spelling_needs_a_tenth_as_many_papers(typed, other):
    written = {"pretraining": 40, "dataset": 500, "pretrain": 3}
    hyphenated = {"pre-training": 4, "data-set": 49}
    assert other_spelling(typed, written, hyphenated) == other


def test_a_compound_typed_as_one_word_stays_a_word_for_proximity():
    """It also finds its other spelling, a phrase, but where it stands still counts."""
    synonyms = replace(Synonyms.of(), spelling=lambda word: "zorb-fitting"
                       if word == "zorbfitting" else None)
    parts = QueryParser(lambda prefix: [], lambda name: True,
                        synonyms).parse("zorbfitting quokka").parts
    assert parts is not None and "zorb" in str(parts.words[0][1])
    assert parts.single_words() == [*analyze("zorbfitting"), *analyze("quokka")]
