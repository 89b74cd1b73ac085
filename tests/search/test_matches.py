"""matching_docs finds exactly the documents Whoosh's own matchers find."""

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from whoosh import index as whoosh_index
from whoosh.query import And, AndNot, Every, Not, NullQuery, NumericRange, Or, Phrase, Term

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index import arrays
from app.search.index.arrays import ARRAYS_DIR
from app.search.index.sync import SyncKind, sync_index
from app.search.query.clauses import GappedPhrase
from app.search.query.language import QueryParser
from app.search.rank import bm25, weights
from app.search.rank.bm25 import top_by_terms
from app.search.rank.matches import matching_docs, matching_query, whoosh_filter, whoosh_query
from app.search.rank.ranking import CONSTANT, top_matches
from app.search.words.analysis import MAX_STOPS, word_place
from tests.conftest import Catalog, write_list

TYPED = ["learning", "neural network", '"in-context learning"', "diffusion OR transformer",
         "learning -reinforcement", "NOT learning", "LLM", "quokka", "optim*",
         "venue:icml learning", "year:2026 model", "year:2020-2026 learning model", "has:code",
         "(graph OR image) -network"]
BUILT = [Term("text", "learn"), Term("text", "absent"), Every(), NullQuery,
         And([Term("text", "learn"), Term("text", "graph")]),
         Or([Term("headline", "graph"), Term("text", "diffus")]),
         AndNot(Every(), Term("text", "learn")), Not(Term("text", "the")),
         GappedPhrase("text", ["in", "context", "learn"]), NumericRange("year", 2025, 2026),
         GappedPhrase("text", ["in", "context", "learn"], gaps=(0, 0)),
         GappedPhrase("text", ["learn", "model"], gaps=(1,)),
         GappedPhrase("text", ["learn", "model"], gaps=(0,)),
         GappedPhrase("text", ["learn", "model"]),
         NumericRange("year", 2025, 2026, startexcl=True), NumericRange("year", 2020, 2026,
                                                                        endexcl=True),
         NumericRange("year", 1, 10_000)]


def _queries():
    parser = QueryParser(lambda prefix: ["optimization", "optimal"], lambda name: True)
    parsed = [parser.parse(q).query for q in TYPED]
    return [q for q in parsed if q is not None] + BUILT


def _whoosh_docs(searcher, query) -> set[int]:
    """Whoosh's matches, except that exclusions are computed from both sides' matches: its
    AndNot matcher keeps some documents that the excluded part matches (see below)."""
    if type(query) is AndNot:
        return _whoosh_docs(searcher, query.a) - _whoosh_docs(searcher, query.b)
    if type(query) is Not:
        return set(searcher.reader().all_doc_ids()) - _whoosh_docs(searcher, query.query)
    if type(query) in (And, Or):
        parts = [_whoosh_docs(searcher, q) for q in query.subqueries]
        return set.intersection(*parts) if type(query) is And else set().union(*parts)
    if isinstance(query, Phrase):
        return _phrase_docs(searcher, query)
    return set(searcher.docs_for_query(query))


def _phrase_docs(searcher, phrase) -> set[int]:
    """A phrase's documents from Whoosh's own postings, word by word in Python: its words
    at consecutive places, with as many stop words between as its gaps say (any if None)."""
    reader, gaps = searcher.reader(), getattr(phrase, "gaps", None)
    at: dict[str, dict[int, list[int]]] = {}
    for word in phrase.words:
        if (phrase.fieldname, word) not in reader:
            return set()
        postings, at[word] = reader.postings(phrase.fieldname, word), {}
        while postings.is_active():
            if not reader.is_deleted(postings.id()):
                at[word][postings.id()] = postings.value_as("positions")
            postings.next()
    found = set()
    for doc in set.intersection(*(set(docs) for docs in at.values())):
        stored = [{word_place(p): p & MAX_STOPS for p in at[word][doc]} for word in phrase.words]
        if any(all(start + i in places and (gaps is None or not i
                                            or places[start + i] == gaps[i - 1])
                   for i, places in enumerate(stored)) for start in stored[0]):
            found.add(doc)
    return found


def _found(searcher, query) -> set[int]:
    """matching_docs's mask as the set of document numbers Whoosh gives."""
    return whoosh_filter(matching_docs(searcher, query))


def _assert_same(directory: Path) -> int:
    checked = 0
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        for query in _queries():
            for variant in (query, matching_query(query)):
                expected = _whoosh_docs(searcher, variant)
                assert _found(searcher, variant) == expected, variant
                checked += bool(expected)
    return checked


def test_same_matches_as_whoosh(seeded: Catalog):
    assert _assert_same(seeded.settings.index_path.resolve()) >= 20


@pytest.mark.parametrize("remove", [False, True])
def test_same_matches_over_several_segments_with_deletions(fresh: Catalog, tmp_path: Path,
                                                           remove: bool):
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers",
                       "In-context learning of quokka graphs.", "Neural network diffusion.")
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        if remove:  # deletes a seed paper's document: a segment with deletions
            seed = next(fresh.seeds.glob("*.txt"))
            lines = seed.read_text().split("\n\n")
            seed.write_text("\n\n".join(lines[:-1]) + "\n")
            report = ingest_paths(session, [seed], ON_INGEST)
            assert report.removed >= 1
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
    directory = fresh.settings.index_path.resolve()
    ix = whoosh_index.open_dir(str(directory))
    assert len(ix._segments()) >= 2
    assert ix.reader().has_deletions() == remove
    assert _assert_same(directory) >= 20


@pytest.mark.parametrize("sort", ["relevance", "venue"])
def test_excluded_words_never_appear_in_results(client, sort: str):
    """Whoosh's own AndNot matcher returned a paper with "network" for this query (sorted by
    venue, Whoosh's searcher lists the hits: 8 for a total of 7 without the filter)."""
    body = client.get("/api/search", params={"q": "(graph OR image) -network",
                                             "sort": sort}).json()
    assert body["total"] == len(body["hits"]) > 0
    for hit in body["hits"]:
        assert not re.search(r"\bnetwork", hit["abstract"], re.I)


@pytest.mark.parametrize("several_segments", [False, True])
def test_top_by_terms_scores_as_whoosh_scores_the_or_query(fresh: Catalog, tmp_path: Path,
                                                          several_segments: bool):
    if several_segments:
        added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers", "Graph diffusion learning.",
                           "Diffusion of learning in graphs and networks.")
        with fresh.session() as session:
            ingest_paths(session, [added], ON_INGEST)
            assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
    ix = whoosh_index.open_dir(str(fresh.settings.index_path.resolve()))
    assert len(ix._segments()) == (2 if several_segments else 1)
    terms = [("diffus", 2.5), ("graph", 1.0), ("learn", 0.3), ("absentterm", 4.0)]
    with ix.searcher() as searcher:
        query = Or([Term("text", text, boost=boost) for text, boost in terms])
        expected = [(hit.docnum, hit.score) for hit in searcher.search(query, limit=15)]
        got = top_by_terms(searcher, "text", terms, 15)
    assert len(got) == len(expected) == 15
    assert [doc for doc, _ in got] == [doc for doc, _ in expected]
    assert all(abs(a - b) < 1e-5 * b for (_, a), (_, b) in zip(got, expected, strict=True))


def test_top_matches_rank_as_whoosh_ranks_plain_word_queries(fresh: Catalog, tmp_path: Path):
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers", "Graph diffusion learning.",
                       "Learning networks of neural graphs.")
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
    scored = 0
    directory = fresh.settings.index_path.resolve()
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        for query in _queries():
            docs = matching_docs(searcher, query)
            got = top_matches(searcher, query, docs, 10)
            if got is None:
                continue
            # A year range within And adds 1 to every score in Whoosh, and nothing here: the
            # same order as the year facet gives. Alone, or as what a query of exclusions
            # starts from (everything), it weighs no word: every match scores 0.
            base = query.a if type(query) is AndNot else query
            constant = sum(type(q) in CONSTANT for q in query.children()) \
                if type(query) is And else 0
            expected = [(hit.docnum, 0.0 if type(base) in CONSTANT else hit.score - constant)
                        for hit in searcher.search(whoosh_query(query), limit=10,
                                                        filter=whoosh_filter(docs))]
            assert [doc for doc, _ in got] == [doc for doc, _ in expected], query
            assert all(abs(a - b) <= 1e-5 * b
                       for (_, a), (_, b) in zip(got, expected, strict=True)), query
            scored += bool(got)
    assert scored >= 8  # most typed queries are plain words


def test_phrases_match_alike_from_the_arrays_and_decoded_and_kept(fresh: Catalog):
    phrases = [Phrase("text", ["in", "context", "learn"]), Phrase("text", ["of", "the"]),
               Phrase("text", ["large", "language", "model"]), Phrase("text", ["the", "absent"]),
               GappedPhrase("text", ["learn", "model"], gaps=(1,))]
    directory = fresh.settings.index_path.resolve()
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        expected = [_phrase_docs(searcher, phrase) for phrase in phrases]
        assert sum(map(len, expected)) >= 10
        assert [_found(searcher, phrase) for phrase in phrases] == expected
    shutil.rmtree(directory / ARRAYS_DIR)  # then positions are decoded, then kept
    arrays._opened.clear()
    arrays._decoded.clear()
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        for _ in range(2):
            assert [_found(searcher, phrase) for phrase in phrases] == expected
    assert any(positions for *_, positions in arrays._decoded._values)  # decoded and kept


@pytest.mark.parametrize("words", ["learning model", "graph neural network", "language"])
def test_a_typed_year_ranks_as_the_year_facet_does(client, words: str):
    typed = client.get("/api/search", params={"q": f"{words} year:2026"}).json()
    faceted = client.get("/api/search", params={"q": words, "year": 2026}).json()
    assert typed["total"] == faceted["total"] > 0
    assert [hit["id"] for hit in typed["hits"]] == [hit["id"] for hit in faceted["hits"]]


def test_both_scoring_paths_read_the_one_set_of_weights(seeded: Catalog,
                                                         monkeypatch: pytest.MonkeyPatch):
    """Issue 25: BM25F's k1 and b live in weights.WEIGHTS, and the arrays' scores and Whoosh's
    searcher (sorting by venue, queries the arrays cannot score) follow them alike."""
    query = Or([Term("text", "learn"), Term("text", "graph"), Term("headline", "model")])
    directory = str(seeded.settings.index_path.resolve())

    def both() -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        with whoosh_index.open_dir(directory).searcher(weighting=bm25.weighting()) as s:
            docs = matching_docs(s, query)
            got = top_matches(s, query, docs, 10)
            assert got is not None
            return got, [(hit.docnum, hit.score) for hit in s.search(query, limit=10)]

    default_arrays, default_whoosh = both()
    monkeypatch.setattr(weights, "WEIGHTS", replace(weights.WEIGHTS, k1=3.0, b=0.1))
    arrays_now, whoosh_now = both()
    for got, expected in ((default_arrays, default_whoosh), (arrays_now, whoosh_now)):
        assert [doc for doc, _ in got] == [doc for doc, _ in expected]
        assert all(abs(a - b) <= 1e-5 * b for (_, a), (_, b) in zip(got, expected, strict=True))
    assert [score for _, score in arrays_now] != pytest.approx(
        [score for _, score in default_arrays])
