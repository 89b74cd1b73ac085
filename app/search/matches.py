"""Matching and ranking over whole posting lists, instead of Whoosh's matchers.

Counts and facets need every match but no score. Whoosh's matchers step through postings
one document at a time in Python: half of a common query's time at L (profiled: "learning",
"graph neural network", "in-context learning"). Here a term's posting list is read a block
at a time and its document numbers decoded in C, and the query's And / Or / Not become set
operations; a phrase reads positions only in the documents that hold all its words; other
nodes (year ranges) keep Whoosh's matchers. The best matches are then ranked with the scores
Whoosh's BM25F would give them, from the same decoded posting lists.
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Iterator
from itertools import accumulate

import numpy as np
from whoosh.codec.whoosh3 import W3LeafMatcher, W3PerDocReader
from whoosh.matching.wrappers import FilterMatcher
from whoosh.query import And, AndNot, Every, Not, NullQuery, Or, Phrase, Query, Term
from whoosh.reading import IndexReader, SegmentReader, TermNotFound
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from app.search.lengths import decoded_lengths

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
    return set(searcher.docs_for_query(query))


def _phrase_docs(searcher: Searcher, phrase: Phrase) -> set[int]:
    """Documents with the words at consecutive positions: the documents with every word,
    then positions in only those, rarest word first and each next word only where the phrase
    can still start (Whoosh walks every posting of every word, and words like "in" of
    "in-context learning" are in nearly every abstract)."""
    words = phrase.words
    if len(words) < 2:
        return set.intersection(*(_term_docs(searcher, phrase.fieldname, w) for w in words)) \
            if words else set()
    rarest_first = sorted(range(len(words)), key=lambda i: searcher.doc_frequency(
        phrase.fieldname, words[i]))
    # The commonest word's postings are only read where the others already make the phrase.
    candidates = set.intersection(*(_term_docs(searcher, phrase.fieldname, words[i])
                                    for i in rarest_first[:-1]))
    found: set[int] = set()
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        local = sorted(doc - offset for doc in candidates
                       if offset <= doc < offset + reader.doc_count_all())
        starts: set[tuple[int, int]] | None = None  # (document, where the phrase starts)
        for i in rarest_first:
            docs = local if starts is None else sorted({doc for doc, _ in starts})
            shifted = {(doc, position - i) for doc, positions
                       in _positions(reader, phrase.fieldname, words[i], docs)
                       for position in positions}
            starts = shifted if starts is None else starts & shifted
            if not starts:
                break
        found.update(doc + offset for doc, _ in starts or ())
    return found


def _positions(reader: IndexReader, fieldname: str, word: str,
               docs: list[int]) -> Iterator[tuple[int, list[int]]]:
    """The word's positions in each of the (sorted) documents that hold it."""
    decode = reader.schema[fieldname].format.decode_positions
    for doc, _, value in _selected_postings(reader, fieldname, word, docs):
        yield doc, decode(value)


def _selected_postings(reader: IndexReader, fieldname: str, word: object,
                       docs: list[int]) -> Iterator[tuple[int, float, bytes]]:
    """The word's postings (document, weight, encoded value) in the (sorted) documents that
    hold it, reading only the posting blocks that can hold one of them."""
    try:
        matcher = reader.postings(fieldname, word)
    except TermNotFound:
        return
    if isinstance(matcher, FilterMatcher):
        matcher = matcher.child
    wanted = set(docs)
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        while matcher.is_active():
            if matcher.id() in wanted:
                yield matcher.id(), matcher.weight(), matcher.value()
            matcher.next()
        return
    pending = iter(docs)
    target = next(pending, None)
    while target is not None and matcher.is_active():
        if matcher._maxid >= target:  # else the whole block lies before the next document
            matcher._read_weights()
            matcher._read_values()
            for doc, weight, value in zip(accumulate(matcher._data[0]), matcher._weights,
                                          matcher._values, strict=True):
                if doc in wanted:
                    yield doc, weight, value
            while target is not None and target <= matcher._maxid:
                target = next(pending, None)
        matcher._next_block()


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
    ids, _, deleted = _postings(reader, fieldname, text)
    return set(ids.tolist()) - deleted if deleted else set(ids.tolist())


# Decoded posting lists, most recently used kept: common words come back in many queries,
# and counting and scoring read the same lists. 4 M postings are about 32 MB.
POSTINGS_KEPT = 4_000_000
_decoded: OrderedDict[tuple[str, str, object], tuple[np.ndarray, np.ndarray]] = OrderedDict()
_decoded_size = 0
_decoded_lock = threading.Lock()


_NO_IDS = np.zeros(0, dtype=np.uint32)
_NO_WEIGHTS = np.zeros(0, dtype=np.float32)


def _postings(reader: IndexReader, fieldname: str, text: object
              ) -> tuple[np.ndarray, np.ndarray, set[int]]:
    """The term's postings in one segment (document numbers and weights, the term's
    frequency, as arrays) and the segment's deleted documents, which they still hold."""
    global _decoded_size
    deleted = getattr(reader, "deleted_docs_set", None) or set()
    segment = reader.segment() if isinstance(reader, SegmentReader) else None
    key = (segment.segment_id() if segment else "", fieldname, text)
    with _decoded_lock:
        if key in _decoded:
            _decoded.move_to_end(key)
            return (*_decoded[key], deleted)
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return _NO_IDS, _NO_WEIGHTS, deleted
    if isinstance(matcher, FilterMatcher):
        matcher = matcher.child
    decoded_ids, decoded_weights = array("I"), array("f")
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        for doc, weight in matcher.items_as("weight"):
            decoded_ids.append(doc)
            decoded_weights.append(weight)
    else:
        while matcher.is_active():
            matcher._read_weights()  # reads the block; weights may be stored compactly
            decoded_ids.extend(accumulate(matcher._data[0]))  # stored as deltas
            decoded_weights.extend(matcher._weights)
            matcher._next_block()
    ids = np.frombuffer(decoded_ids, dtype=np.uint32) if decoded_ids else _NO_IDS
    weights = np.frombuffer(decoded_weights, dtype=np.float32) if decoded_weights else _NO_WEIGHTS
    if segment is not None:
        with _decoded_lock:
            _decoded[key] = (ids, weights)
            _decoded_size += len(ids)
            while _decoded_size > POSTINGS_KEPT:
                _, (old, _) = _decoded.popitem(last=False)
                _decoded_size -= len(old)
    return ids, weights, deleted


# A scored term: field, text, boost, and the documents where it counts (None: wherever it
# occurs; a phrase's words count only where the phrase matches).
Leaf = tuple[str, object, float, "set[int] | None"]


def top_by_terms(searcher: Searcher, fieldname: str, weighted_terms: list[tuple[str, float]],
                 limit: int) -> list[tuple[int, float]]:
    """The `limit` best documents for weighted terms (any of them), scored as Whoosh's BM25F
    scores an Or of the terms, over whole posting lists: for the 20 terms of "more like
    this", Whoosh's matchers took 0.3-3 s at L."""
    leaves: list[Leaf] = [(fieldname, text, boost, None) for text, boost in weighted_terms]
    return _best(_bm25_sums(searcher, leaves, None), limit)


def top_matches(searcher: Searcher, query: Query, docs: set[int], limit: int,
                phrases: Phrases | None = None) -> list[tuple[int, float]] | None:
    """The `limit` best of `docs` (the query's matches) with the scores Whoosh gives them,
    for queries of words and phrases joined by And, Or and AndNot, where a match's score is
    the sum of the BM25F scores of the terms that match it (a phrase's: of its words); None
    for other queries (ranges, filter fields...)."""
    leaves = _scored_terms(searcher, query, {} if phrases is None else phrases)
    if leaves is None or not all(
            name in searcher.schema and searcher.schema[name].scorable for name, *_ in leaves):
        return None  # filter terms (ID fields) Whoosh scores by weight alone
    return _best(_bm25_sums(searcher, leaves, docs), limit)


def _scored_terms(searcher: Searcher, query: Query, phrases: Phrases) -> list[Leaf] | None:
    kind = type(query)
    if kind is Term:
        return [(query.fieldname, query.text, query.boost, None)]
    if kind is Phrase and query.slop == 1:
        where = matching_docs(searcher, query, phrases)
        return [(query.fieldname, word, query.boost, where) for word in query.words]
    if query.boost != 1.0:
        return None
    if kind in (And, Or):
        if kind is Or and query.scale is not None:
            return None
        leaves: list[Leaf] = []
        for sub in query.subqueries:
            sub_leaves = _scored_terms(searcher, sub, phrases)
            if sub_leaves is None:
                return None
            leaves.extend(sub_leaves)
        return leaves
    if kind is AndNot:  # the excluded part only removes matches
        return _scored_terms(searcher, query.a, phrases)
    return None


def _bm25_sums(searcher: Searcher, leaves: list[Leaf],
               docs: set[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """The documents (of `docs`, or any) where a term counts, and every document's sum of
    Whoosh's BM25F over the terms that count in it, computed a posting list at a time."""
    model = BM25F()
    b, k1 = model.B, model.K1
    total = searcher.doc_count_all()
    scores = np.zeros(total, dtype=np.float64)
    touched = np.zeros(total, dtype=bool)
    allowed = None if docs is None else _mask(docs, total)
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        perdoc = getattr(reader, "_perdoc", None)
        for fieldname, text, boost, where in leaves:
            lengths = decoded_lengths(perdoc, fieldname) if isinstance(
                perdoc, W3PerDocReader) else None
            average = searcher.avg_field_length(fieldname) or 1
            idf = searcher.idf(fieldname, text) * boost
            if where is None:
                ids, weights, deleted = _postings(reader, fieldname, text)
                local = ids.astype(np.int64)
                keep = allowed[local + offset] if allowed is not None else None
                if deleted:
                    live = ~np.isin(local, np.fromiter(deleted, dtype=np.int64))
                    keep = live if keep is None else keep & live
            else:  # a phrase's word: only where the phrase matches, often few of its postings
                counted = where if docs is None else docs & where
                selected = [(doc, weight) for doc, weight, _ in _selected_postings(
                    reader, fieldname, text, sorted(key - offset for key in counted
                                                    if key >= offset))]
                local = np.array([doc for doc, _ in selected], dtype=np.int64)
                weights = np.array([weight for _, weight in selected], dtype=np.float64)
                keep = None
            if keep is not None:
                local, weights = local[keep], weights[keep]
            tf = weights.astype(np.float64)
            length = (np.frombuffer(lengths, dtype=np.uint32)[local] if lengths is not None
                      else 1)
            norm = k1 * (1 - b + b * length / average)
            scores[local + offset] += idf * tf * (k1 + 1) / (tf + norm)
            touched[local + offset] = True
    return np.flatnonzero(touched), scores


def _mask(docs: set[int], total: int) -> np.ndarray:
    mask = np.zeros(total, dtype=bool)
    mask[np.fromiter(docs, dtype=np.int64, count=len(docs))] = True
    return mask


def _best(scored: tuple[np.ndarray, np.ndarray], limit: int) -> list[tuple[int, float]]:
    """The `limit` highest scores, ties in document order (as Whoosh's collector breaks
    them), without sorting every scored document."""
    docs, scores = scored
    values = scores[docs]
    if len(docs) > limit > 0:
        cutoff = np.partition(values, len(values) - limit)[len(values) - limit]
        keep = values >= cutoff
        docs, values = docs[keep], values[keep]
    order = np.lexsort((docs, -values))[:limit]
    return [(int(docs[i]), float(values[i])) for i in order]
