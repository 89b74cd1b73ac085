"""Matching over whole posting lists, instead of Whoosh's matchers.

Counts and facets need every match but no score. Whoosh's matchers step through postings
one document at a time in Python: half of a common query's time at L (profiled: "learning",
"graph neural network", "in-context learning"). Here a term's posting list comes whole
from arrays.term_postings, and a query's matches are a boolean mask over the searcher's
document numbers: And / Or / Not are `&`, `|` and `~` in C, as are the facet filters and
BM25F's "where a term counts" after them; a phrase intersects (document, start) keys of its
words' positions; a year range is the union of its years' lists; other nodes keep Whoosh's
matchers. ranking.py scores the best matches from the same postings.
"""

from __future__ import annotations

from collections.abc import Iterable
from copy import copy

import numpy as np
from whoosh import matching
from whoosh.query import And, AndNot, Every, Not, NullQuery, Or, Phrase, Query, Term
from whoosh.query.ranges import NumericRange
from whoosh.searching import Searcher

from app.search.index.arrays import deleted_docs, term_postings
from app.search.index.columns import as_mask
from app.search.index.postings import TermPostings
from app.search.query.clauses import GappedPhrase
from app.search.words.analysis import MAX_STOPS, STOP_BITS

MAX_RANGE_VALUES = 1000  # wider ranges than years: Whoosh's trie terms
Phrases = dict[tuple[str, tuple[str, ...], tuple[int, ...] | None], np.ndarray]


def matching_docs(searcher: Searcher, query: Query,
                  phrases: Phrases | None = None) -> np.ndarray:
    """Which live documents the query matches: a boolean mask over the searcher's document
    numbers, not to be changed in place (`phrases` keeps the masks of phrases for later
    calls with the same searcher)."""
    phrases = {} if phrases is None else phrases
    kind = type(query)
    if kind is Term:
        return _term_docs(searcher, query.fieldname, query.text)
    if kind in (And, Or):
        parts = [matching_docs(searcher, q, phrases) for q in query.subqueries]
        if not parts:
            return _no_docs(searcher)
        return (np.logical_and if kind is And else np.logical_or).reduce(parts)
    if kind is AndNot:
        positive = matching_docs(searcher, query.a, phrases)
        return positive & ~matching_docs(searcher, query.b, phrases) if positive.any() \
            else positive
    if kind is Not:
        return _live_docs(searcher) & ~matching_docs(searcher, query.query, phrases)
    if isinstance(query, Phrase) and query.slop == 1:
        key = (query.fieldname, tuple(query.words), getattr(query, "gaps", None))
        if key not in phrases:
            phrases[key] = _phrase_docs(searcher, query)
        return phrases[key]
    if kind is Every and query.fieldname in (None, "", "*"):
        return _live_docs(searcher)
    if query is NullQuery:
        return _no_docs(searcher)
    if kind is NumericRange and query.start is not None and query.end is not None:
        return _range_docs(searcher, query)
    return docs_mask(searcher, searcher.docs_for_query(query))


class _WordsWherePhraseStands(GappedPhrase):
    """A phrase as Whoosh's searcher runs it: its words' matcher (so scores add up as in
    Whoosh's phrase matcher) kept to the documents where the phrase stands."""

    def matcher(self, searcher: Searcher, context: object = None) -> matching.Matcher:
        docs = np.flatnonzero(matching_docs(searcher, self))  # the leaf's own numbers
        if not docs.size:
            return matching.NullMatcher()
        words = And([Term(self.fieldname, word) for word in self.words])
        return matching.FilterMatcher(words.matcher(searcher, context), set(docs.tolist()),
                                      boost=self.boost)


def whoosh_query(query: Query) -> Query:
    """The query for Whoosh's own searcher (sorted results, downloads): its phrases matched
    as matching_docs matches them, with the stop words stored under each position."""
    def swap(node: Query) -> Query:
        if not isinstance(node, Phrase) or node.slop != 1:
            return node
        return _WordsWherePhraseStands(node.fieldname, list(node.words), boost=node.boost,
                                       gaps=getattr(node, "gaps", None))

    return query.accept(swap)


def whoosh_filter(docs: np.ndarray) -> set[int]:
    """The documents of a mask as Whoosh's searcher takes a filter: a set of numbers."""
    return set(np.flatnonzero(docs).tolist())


def _live_docs(searcher: Searcher) -> np.ndarray:
    """Every document not deleted, as a mask."""
    live = np.ones(searcher.doc_count_all(), dtype=bool)
    for leaf, offset in searcher.leaf_searchers():
        live[deleted_docs(leaf.reader()) + offset] = False
    return live


def _no_docs(searcher: Searcher) -> np.ndarray:
    return np.zeros(searcher.doc_count_all(), dtype=bool)


def docs_mask(searcher: Searcher, docs: Iterable[int]) -> np.ndarray:
    """Document numbers as a mask over the searcher's documents."""
    return as_mask(np.fromiter(docs, dtype=np.int64), searcher.doc_count_all())


def _range_docs(searcher: Searcher, query: NumericRange) -> np.ndarray:
    """A range of whole numbers (year:2010-2020) as the union of its values' posting lists,
    read as arrays: Whoosh's matchers over its trie terms took half a second at L."""
    field = searcher.schema[query.fieldname]
    first = int(query.start) + bool(query.startexcl)
    last = int(query.end) - bool(query.endexcl)
    if last - first > MAX_RANGE_VALUES:
        return docs_mask(searcher, searcher.docs_for_query(query))
    docs = _no_docs(searcher)
    for value in range(first, last + 1):
        docs |= _term_docs(searcher, query.fieldname, field.to_bytes(value))
    return docs


def _phrase_docs(searcher: Searcher, phrase: Phrase) -> np.ndarray:
    """Documents with the words at consecutive places (and as many stop words between them
    as the phrase's gaps say, when it knows them): the documents with every word but the
    commonest, then, rarest word first, the (document, start) pairs where the phrase can
    still start, as sorted 64-bit keys intersected in C."""
    words = phrase.words
    gaps = getattr(phrase, "gaps", None)
    if len(words) < 2:
        return _term_docs(searcher, phrase.fieldname, words[0]) if words \
            else _no_docs(searcher)
    rarest_first = sorted(range(len(words)), key=lambda i: searcher.doc_frequency(
        phrase.fieldname, words[i]))
    candidates = np.logical_and.reduce([_term_docs(searcher, phrase.fieldname, words[i])
                                        for i in rarest_first[:-1]])
    if not candidates.any():
        return candidates
    wanted = np.flatnonzero(candidates)
    found = []
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        docs = wanted[(wanted >= offset) & (wanted < offset + reader.doc_count_all())] - offset
        starts: np.ndarray | None = None  # (document << 32) | (phrase start + _BIAS)
        for i in rarest_first:
            if starts is not None:
                docs = np.unique(starts >> 32)
            if not docs.size:
                break
            word = term_postings(reader, phrase.fieldname, words[i], positions=True)
            shifted = _phrase_starts(word, docs, i, gaps[i - 1] if gaps and i else None)
            starts = shifted if starts is None else np.intersect1d(starts, shifted,
                                                                   assume_unique=True)
        if starts is not None and starts.size:
            found.append(np.unique(starts >> 32) + offset)
    return docs_mask(searcher, np.concatenate(found) if found else ())


_BIAS = 1 << 16  # keeps a phrase's start (a position minus the word's place) positive


def _term_docs(searcher: Searcher, fieldname: str, text: object) -> np.ndarray:
    """The live documents in the term's posting lists, as a mask."""
    docs = _no_docs(searcher)
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        docs[term_postings(reader, fieldname, text).ids.astype(np.int64) + offset] = True
        docs[deleted_docs(reader) + offset] = False
    return docs


def _phrase_starts(found: TermPostings, docs: np.ndarray, place: int,
                   stops: int | None) -> np.ndarray:
    """Sorted keys (document << 32) | (word place - place + _BIAS) of the term's positions in
    the sorted `docs`, for the word at `place` in a phrase, only those with `stops` stop
    words just before them when it is given."""
    assert found.bounds is not None and found.positions is not None
    selected = np.flatnonzero(np.isin(found.ids, docs, assume_unique=True))
    bounds = found.bounds.astype(np.int64)
    counts = bounds[selected + 1] - bounds[selected]
    first = np.repeat(bounds[selected] - (np.cumsum(counts) - counts), counts)
    positions = found.positions[first + np.arange(int(counts.sum()))].astype(np.int64)
    documents = np.repeat(found.ids[selected].astype(np.int64), counts)
    if stops is not None:
        kept = (positions & MAX_STOPS) == stops
        positions, documents = positions[kept], documents[kept]
    # Sorted: documents, then positions.
    return (documents << 32) | ((positions >> STOP_BITS) - place + _BIAS)


def matching_query(query: Query) -> Query:
    """The same matches with fewer matchers: `Or(X(headline), X(text))` becomes `X(text)`.

    The text field holds the headline's words too (the first sentence, or the title put in
    front of the abstract), so the headline alternative only adds score, not matches. Used to
    count matches and facets, where scoring is not needed.
    """
    def as_text(node: Query) -> Query:
        renamed = copy(node)
        renamed.fieldname = "text"  # type: ignore[attr-defined]
        renamed.boost = 1.0
        return renamed

    def simplify(node: Query) -> Query:
        if not isinstance(node, Or):
            return node
        parts = node.subqueries
        kept = [part for part in parts if not (
            part.is_leaf() and part.field() == "headline" and as_text(part) in parts)]
        return kept[0] if len(kept) == 1 else Or(kept)

    return query.accept(simplify)
