"""A pasted abstract, or any query of more than 40 words, finds papers like the text as a
whole (as related papers are found), not papers holding all of its words, and says so."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlmodel import select

from app.models import Paper
from app.search.query.pasted import PASTED_TEXT_WORDS
from tests.conftest import Catalog


def test_a_pasted_abstract_finds_its_paper_first(client: TestClient, seeded: Catalog):
    with seeded.session() as session:
        papers = [p for p in session.exec(select(Paper).order_by(Paper.id))
                  if len(p.plain.split()) > PASTED_TEXT_WORDS][:10]
    assert len(papers) == 10
    for paper in papers:
        body = client.get("/api/search", params={"q": paper.plain}).json()
        assert body["hits"][0]["id"] == paper.id
        assert 1 < body["total"] <= 100
        assert "read as a text" in body["message"]


def test_a_pasted_text_is_not_cut_to_the_query_limit_and_the_page_says_so(
        client: TestClient, seeded: Catalog):
    with seeded.session() as session:
        longest = max(session.exec(select(Paper)), key=lambda p: len(p.plain))
    assert len(longest.plain) > 500
    page = client.get("/search", params={"q": longest.plain}).text
    assert "read as a text, not as words that must all match" in page
    assert "was cut to its first" not in page
    assert re.search(r"<h1>\d+ papers like the text you pasted</h1>", page)
    assert client.get("/api/search", params={"q": longest.plain}).json()["pasted"] is True


def test_filters_apply_to_papers_like_a_text(client: TestClient, seeded: Catalog):
    with seeded.session() as session:
        paper = next(p for p in session.exec(select(Paper).order_by(Paper.id))
                     if len(p.plain.split()) > PASTED_TEXT_WORDS)
    body = client.get("/api/search", params={"q": paper.plain, "venue": paper.edition_slug}).json()
    assert body["hits"] and all(hit["venue_slug"] == paper.edition_slug for hit in body["hits"])


def test_a_query_of_a_few_words_still_matches_every_word(client: TestClient):
    body = client.get("/api/search", params={"q": "sharpness minimization"}).json()
    assert "read as a text" not in (body["message"] or "")


def test_an_overlong_query_is_echoed_only_as_far_as_it_is_read(client: TestClient):
    # 27 KB: under the 414 bound on addresses, past the 10,000 characters search reads.
    page = client.get("/search", params={"q": "learning " * 3_000}).text
    assert "first 10,000 characters" in page
    assert len(page) < 600_000  # 63 KB of query echoed into its links made 2 MB


def test_a_pasted_text_of_no_word_the_catalog_holds_says_no_paper_is_like_it(
        client: TestClient):
    """It had read "0 papers like the text you pasted" above "these are the 100 papers most
    like it"."""
    text = " ".join(["نقترح خوارزمية جديدة لتقدير العمق من صورة واحدة"] * 8)
    page = client.get("/search", params={"q": text}).text
    assert re.search(r"<h1>0 papers like the text you pasted</h1>", page)
    assert "none of its words is in the catalog: no paper is like it" in page
    assert "papers most like it" not in page


def test_characters_no_reader_sees_do_not_split_the_words_of_a_query(
        client: TestClient, seeded: Catalog):
    """A zero-width space, a soft hyphen or a BOM copied from a PDF inside a word: ingest
    drops them, and search had split the word there (0 results, under a heading that read
    as the words typed)."""
    with seeded.session() as session:
        paper = next(p for p in session.exec(select(Paper).order_by(Paper.id))
                     if len(p.plain.split()) > PASTED_TEXT_WORDS)
    word = max(re.findall(r"[a-z]{8,}", paper.plain.lower()), key=len)
    typed = client.get("/api/search", params={"q": word}).json()
    assert typed["total"] >= 1
    for mark in ("\u200b", "\u00ad", "\ufeff", "\u2060", "\u200e"):
        hidden = word[:4] + mark + word[4:]
        found = client.get("/api/search", params={"q": hidden}).json()
        assert (found["total"], found["hits"][:3]) == (typed["total"], typed["hits"][:3]), mark
        assert found["query"] == word
    pasted = client.get("/api/search", params={"q": paper.plain.replace(" ", " \u200b")}).json()
    assert pasted["hits"][0]["id"] == paper.id


def test_filters_typed_with_a_pasted_text_apply_as_the_same_filters_given_apart(
        client: TestClient, seeded: Catalog):
    """`venue:icml-2026 <abstract>` had listed every venue's papers (its filters read as words
    of the text), and the note had said "the 100 papers" over the 91 listed."""
    with seeded.session() as session:
        paper = next(p for p in session.exec(select(Paper).order_by(Paper.id))
                     if len(p.plain.split()) > PASTED_TEXT_WORDS)
    alone = client.get("/api/search", params={"q": paper.plain}).json()
    assert f"these are the {alone['total']} papers most like it" in alone["message"]
    apart = client.get("/api/search", params={"q": paper.plain,
                                              "venue": paper.edition_slug}).json()
    typed = client.get("/api/search",
                       params={"q": f"venue:{paper.edition_slug} {paper.plain}"}).json()
    assert typed["pasted"] and 0 < typed["total"] == apart["total"] < alone["total"]
    assert [hit["id"] for hit in typed["hits"]] == [hit["id"] for hit in apart["hits"]]
    assert f"the {typed['total']} papers of venue:{paper.edition_slug} most" in typed["message"]
    page = client.get("/search", params={"q": f"venue:{paper.edition_slug} {paper.plain}"}).text
    assert f'value="venue:{paper.edition_slug} ' in page  # kept in the box, to search again
    excluded = client.get("/api/search",
                          params={"q": f"{paper.plain} -venue:{paper.edition_slug}"}).json()
    assert excluded["hits"] and all(
        hit["venue_slug"] != paper.edition_slug for hit in excluded["hits"])
    none = client.get("/api/search", params={"q": f"year:1899 {paper.plain}"}).json()
    assert none["total"] == 0 and "No paper in the catalog passes “year:1899”" in none["message"]


def test_a_long_query_of_words_joined_by_or_is_words_to_match_not_a_text(client: TestClient):
    """32 prefixes joined by OR (63 words with the ORs) had been read as a pasted text, and
    found nothing: none of its words, prefixes all, is in the catalog as written."""
    prefixes = ["diff*", "trans*", "mem*", "gen*", "opt*", "rein*", "lear*", "mod*"] * 4
    body = client.get("/api/search", params={"q": " OR ".join(prefixes)}).json()
    assert not body["pasted"] and body["total"] > 0
    assert body["total"] == client.get("/api/search",
                                       params={"q": " OR ".join(prefixes[:8])}).json()["total"]


def test_filters_typed_with_a_text_read_as_the_query_language_joins_them(
        client: TestClient, seeded: Catalog):
    """`NOT venue:X <abstract>` had listed venue X's papers alone (NOT left a word of the
    text), `venue:A OR venue:B <abstract>` none (the two ANDed), `author:"Ada <abstract>`
    had taken the whole abstract for the author's name, and a filter the parser rejects had
    been named among those applied."""
    with seeded.session() as session:
        papers = list(session.exec(select(Paper).order_by(Paper.id)))
    paper = next(p for p in papers if len(p.plain.split()) > PASTED_TEXT_WORDS)
    other = next(p.edition_slug for p in papers if p.edition_slug != paper.edition_slug)
    mine = paper.edition_slug

    def found(q: str) -> dict:
        return client.get("/api/search", params={"q": q}).json()

    alone = found(paper.plain)
    negated = found(f"NOT venue:{mine} {paper.plain}")
    assert negated["hits"] and all(hit["venue_slug"] != mine for hit in negated["hits"])
    assert negated["total"] == found(f"-venue:{mine} {paper.plain}")["total"]
    either = found(f"venue:{mine} OR venue:{other} {paper.plain}")
    assert either["total"] == found(f"venue:{mine} {paper.plain}")["total"] + found(
        f"venue:{other} {paper.plain}")["total"] > 0
    assert {hit["venue_slug"] for hit in either["hits"]} <= {mine, other}
    unclosed = found(f'author:"Ada {paper.plain}')
    assert unclosed["pasted"] and unclosed["total"] == alone["total"]
    rejected = found(f"year:abc {paper.plain}")
    assert rejected["total"] == alone["total"] and "not a valid filter" in rejected["message"]
    assert f"these are the {alone['total']} papers most like it" in rejected["message"]
