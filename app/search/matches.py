"""Matching over whole posting lists, instead of Whoosh's matchers.

Counts and facets need every match but no score. Whoosh's matchers step through postings
one document at a time in Python: half of a common query's time at L (profiled: "learning",
"graph neural network", "in-context learning"). Here a term's posting list is read a block
at a time into arrays (kept, most recently used first), and the query's And / Or / Not
become set operations; a phrase intersects (document, start) keys of its words' positions,
decoded into arrays and kept too; a year range is the union of its years' lists; other
nodes keep Whoosh's matchers. ranking.py scores the best matches from the same arrays.
"""

from __future__ import annotations

import numpy as np
from whoosh.query import And, AndNot, Every, Not, NullQuery, Or, Phrase, Query, Term
from whoosh.query.ranges import NumericRange
from whoosh.reading import IndexReader, SegmentReader
from whoosh.searching import Searcher

from app.cache import BoundedCache
from app.search.arrays import field_arrays
from app.search.whoosh_adapter import decode_positions, decode_postings

MAX_RANGE_VALUES = 1000  # wider ranges than years: Whoosh's trie terms
Phrases = dict[tuple[str, tuple[str, ...]], set[int]]


def matching_docs(searcher: Searcher, query: Query, phrases: Phrases | None = None) -> set[int]:
    """The document numbers (of the searcher) of every live document the query matches.
    `phrases` remembers the matches of phrases for later calls with the same searcher."""
    phrases = {} if phrases is None else phrases
    kind = type(query)
    if kind is Term:
        return _term_docs(searcher, query.fieldname, query.text)
    if kind is And:
        parts = sorted((matching_docs(searcher, q, phrases) for q in query.subqueries), key=len)
        return set.intersection(*parts) if parts else set()
    if kind is Or:
        return set().union(*(matching_docs(searcher, q, phrases) for q in query.subqueries))
    if kind is AndNot:
        positive = matching_docs(searcher, query.a, phrases)
        return positive - matching_docs(searcher, query.b, phrases) if positive else positive
    if kind is Not:
        return _live_docs(searcher) - matching_docs(searcher, query.query, phrases)
    if kind is Phrase and query.slop == 1:
        key = (query.fieldname, tuple(query.words))
        if key not in phrases:
            phrases[key] = _phrase_docs(searcher, query)
        return phrases[key]
    if kind is Every and query.fieldname in (None, "", "*"):
        return _live_docs(searcher)
    if query is NullQuery:
        return set()
    if kind is NumericRange and query.start is not None and query.end is not None:
        return _range_docs(searcher, query)
    return set(searcher.docs_for_query(query))


def _range_docs(searcher: Searcher, query: NumericRange) -> set[int]:
    """A range of whole numbers (year:2010-2020) as the union of its values' posting lists,
    read as arrays: Whoosh's matchers over its trie terms took half a second at L."""
    field = searcher.schema[query.fieldname]
    first = int(query.start) + bool(query.startexcl)
    last = int(query.end) - bool(query.endexcl)
    if last - first > MAX_RANGE_VALUES:
        return set(searcher.docs_for_query(query))
    return set().union(*(_term_docs(searcher, query.fieldname, field.to_bytes(value))
                         for value in range(first, last + 1)))


def _phrase_docs(searcher: Searcher, phrase: Phrase) -> set[int]:
    """Documents with the words at consecutive positions: the documents with every word but
    the commonest, then, rarest word first, the (document, start) pairs where the phrase can
    still start, as sorted 64-bit keys intersected in C."""
    words = phrase.words
    if len(words) < 2:
        return set.intersection(*(_term_docs(searcher, phrase.fieldname, w) for w in words)) \
            if words else set()
    rarest_first = sorted(range(len(words)), key=lambda i: searcher.doc_frequency(
        phrase.fieldname, words[i]))
    candidates = set.intersection(*(_term_docs(searcher, phrase.fieldname, words[i])
                                    for i in rarest_first[:-1]))
    if not candidates:
        return set()
    wanted = np.sort(np.fromiter(candidates, dtype=np.int64, count=len(candidates)))
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
            shifted = term_positions(reader, phrase.fieldname, words[i]).starts(docs, i)
            starts = shifted if starts is None else np.intersect1d(starts, shifted,
                                                                   assume_unique=True)
        if starts is not None and starts.size:
            found.append(np.unique(starts >> 32) + offset)
    return set(np.concatenate(found).tolist()) if found else set()


_BIAS = 1 << 16  # keeps a phrase's start (a position minus the word's place) positive


class TermPositions:
    """Every position of a term in one segment: the positions of the k-th document of `ids`
    are positions[bounds[k]:bounds[k + 1]]."""

    def __init__(self, ids: np.ndarray, bounds: np.ndarray, positions: np.ndarray) -> None:
        self.ids, self.bounds, self.positions = ids, bounds, positions

    def __len__(self) -> int:
        return len(self.positions)

    def starts(self, docs: np.ndarray, place: int) -> np.ndarray:
        """Sorted keys (document << 32) | (position - place + _BIAS) for the sorted `docs`."""
        selected = np.flatnonzero(np.isin(self.ids, docs, assume_unique=True))
        counts = self.bounds[selected + 1] - self.bounds[selected]
        first = np.repeat(self.bounds[selected] - (np.cumsum(counts) - counts), counts)
        positions = self.positions[first + np.arange(int(counts.sum()))].astype(np.int64)
        documents = np.repeat(self.ids[selected].astype(np.int64), counts)
        keys = (documents << 32) | (positions - place + _BIAS)
        return keys  # documents ascending, positions ascending within each: sorted


# Where the index has no arrays (a segment an update is writing), decoded positions of whole
# posting lists, most recently used kept: decoding unpickles a value per posting.
_positions: BoundedCache[tuple[str, str, object], TermPositions] = BoundedCache(
    4_000_000, size=lambda found: len(found) + 1)  # about 20 MB


def _segment_key(reader: IndexReader, fieldname: str,
                 word: object) -> tuple[str, str, object] | None:
    segment = reader.segment() if isinstance(reader, SegmentReader) else None
    return (segment.segment_id(), fieldname, word) if segment else None


def term_positions(reader: IndexReader, fieldname: str, word: object) -> TermPositions:
    """The term's positions: a slice of the index's arrays, else decoded (and kept)."""
    arrays = field_arrays(reader, fieldname)
    if arrays is not None and isinstance(word, str):
        return TermPositions(*arrays.positions(word))
    key = _segment_key(reader, fieldname, word)
    kept = _positions.get(key) if key is not None else None
    if kept is not None:
        return kept
    decoded = decode_positions(reader, fieldname, word)
    found = TermPositions(np.array(decoded.ids, dtype=np.int32),
                          np.array(decoded.bounds, dtype=np.int64),
                          np.array(decoded.positions, dtype=np.int32))
    if key is not None:
        _positions.put(key, found)
    return found


def _live_docs(searcher: Searcher) -> set[int]:
    return set(searcher.reader().all_doc_ids())


def _term_docs(searcher: Searcher, fieldname: str, text: object) -> set[int]:
    docs: set[int] = set()
    for leaf, offset in searcher.leaf_searchers():
        ids = _posting_ids(leaf.reader(), fieldname, text)
        docs.update(ids if not offset else map(offset.__add__, ids))
    return docs


def _posting_ids(reader: IndexReader, fieldname: str, text: object) -> set[int]:
    """One segment's live document numbers in the term's posting list."""
    ids, _, deleted = postings(reader, fieldname, text)
    return set(ids.tolist()) - deleted if deleted else set(ids.tolist())


# Decoded posting lists where a segment has no arrays, most recently used kept: common words
# come back in many queries, and counting and scoring read the same lists. 4 M postings are
# about 32 MB.
_decoded: BoundedCache[tuple[str, str, object], tuple[np.ndarray, np.ndarray]] = (BoundedCache(
    4_000_000, size=lambda kept: len(kept[0]) + 1))
_NO_IDS = np.zeros(0, dtype=np.uint32)
_NO_WEIGHTS = np.zeros(0, dtype=np.float32)


def postings(reader: IndexReader, fieldname: str, text: object
              ) -> tuple[np.ndarray, np.ndarray, set[int]]:
    """The term's postings in one segment (document numbers and weights, the term's
    frequency, as arrays) and the segment's deleted documents, which they still hold."""
    deleted = getattr(reader, "deleted_docs_set", None) or set()
    arrays = field_arrays(reader, fieldname)
    if arrays is not None and isinstance(text, str):
        return (*arrays.postings(text), deleted)
    key = _segment_key(reader, fieldname, text)
    kept = _decoded.get(key) if key is not None else None
    if kept is not None:
        return (*kept, deleted)
    decoded_ids, decoded_weights = decode_postings(reader, fieldname, text)
    ids = np.frombuffer(decoded_ids, dtype=np.uint32) if decoded_ids else _NO_IDS
    weights = np.frombuffer(decoded_weights, dtype=np.float32) if decoded_weights else _NO_WEIGHTS
    if key is not None:
        _decoded.put(key, (ids, weights))
    return ids, weights, deleted


def positions_in(searcher: Searcher, fieldname: str, word: str, doc: int) -> np.ndarray:
    """The word's positions in one document (by the searcher's document number)."""
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        if offset <= doc < offset + reader.doc_count_all():
            arrays = field_arrays(reader, fieldname)
            if arrays is not None:  # a lookup, not the term's whole list
                return arrays.positions_of(word, doc - offset)
            found = term_positions(reader, fieldname, word)
            k = int(np.searchsorted(found.ids, doc - offset))
            if k < len(found.ids) and found.ids[k] == doc - offset:
                return found.positions[found.bounds[k]:found.bounds[k + 1]]
    return np.zeros(0, dtype=np.int32)
