"""Every document a query matches, as a set of document numbers, by set algebra over whole
posting lists.

Counts and facets need every match but no score. Whoosh's matchers step through postings
one document at a time in Python: half of a common query's time at L (profiled: "learning",
"graph neural network", "in-context learning"). Here a term's posting list is read a block
at a time and its document numbers decoded in C, and the query's And / Or / Not become set
operations. Nodes that need positions or ranges (phrases, year ranges) keep Whoosh's
matchers.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from itertools import accumulate

from whoosh.codec.whoosh3 import W3LeafMatcher, W3PerDocReader
from whoosh.matching import Matcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.query import And, AndNot, Every, Not, NullQuery, Or, Query, Term
from whoosh.reading import IndexReader, TermNotFound
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from app.search.lengths import decoded_lengths


def matching_docs(searcher: Searcher, query: Query) -> set[int]:
    """The document numbers (of the searcher) of every live document the query matches."""
    kind = type(query)
    if kind is Term:
        return _term_docs(searcher, query.fieldname, query.text)
    if kind is And:
        parts = sorted((matching_docs(searcher, q) for q in query.subqueries), key=len)
        return set.intersection(*parts) if parts else set()
    if kind is Or:
        return set().union(*(matching_docs(searcher, q) for q in query.subqueries))
    if kind is AndNot:
        positive = matching_docs(searcher, query.a)
        return positive - matching_docs(searcher, query.b) if positive else positive
    if kind is Not:
        return _live_docs(searcher) - matching_docs(searcher, query.query)
    if kind is Every and query.fieldname in (None, "", "*"):
        return _live_docs(searcher)
    if query is NullQuery:
        return set()
    return set(searcher.docs_for_query(query))


def _live_docs(searcher: Searcher) -> set[int]:
    return set(searcher.reader().all_doc_ids())


def _term_docs(searcher: Searcher, fieldname: str, text: object) -> set[int]:
    docs: set[int] = set()
    for leaf, offset in searcher.leaf_searchers():
        ids = _posting_ids(leaf.reader(), fieldname, text)
        docs.update(ids if not offset else (docnum + offset for docnum in ids))
    return docs


def _posting_ids(reader: IndexReader, fieldname: str, text: object) -> set[int]:
    """One segment's live document numbers in the term's posting list."""
    blocks, deleted = _postings(reader, fieldname, text)
    ids: set[int] = set()
    for block_ids, _ in blocks:
        ids.update(block_ids)
    return ids - deleted if deleted else ids


Block = tuple[Sequence[int], Sequence[float]]  # document numbers, weights (term frequency)


def _postings(reader: IndexReader, fieldname: str, text: object
              ) -> tuple[Iterator[Block], set[int]]:
    """The term's postings in one segment, a block at a time, and the segment's deleted
    documents, which the postings still hold and the caller leaves out."""
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return iter(()), set()
    deleted: set[int] = set()
    if isinstance(matcher, FilterMatcher) and matcher._exclude:
        deleted, matcher = matcher._ids, matcher.child
    return _blocks(matcher), deleted


def _blocks(matcher: Matcher) -> Iterator[Block]:
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        items = list(matcher.items_as("weight"))
        yield [doc for doc, _ in items], [weight for _, weight in items]
        return
    while matcher.is_active():
        matcher._read_weights()  # reads the block; weights may be stored compactly
        yield list(accumulate(matcher._data[0])), matcher._weights  # ids stored as deltas
        matcher._next_block()


def top_by_terms(searcher: Searcher, fieldname: str, weighted_terms: list[tuple[str, float]],
                 limit: int) -> list[tuple[int, float]]:
    """The `limit` best documents for weighted terms (any of them), by Whoosh's BM25F
    formula summed over the terms as its Or query sums them, computed over whole posting
    lists: for the 20 terms of "more like this", Whoosh's matchers took 0.3-3 s at L."""
    b, k1 = BM25F().B, BM25F().K1
    average = searcher.avg_field_length(fieldname) or 1
    scores: dict[int, float] = {}
    get = scores.get
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        perdoc = getattr(reader, "_perdoc", None)
        lengths = decoded_lengths(perdoc, fieldname) if isinstance(
            perdoc, W3PerDocReader) else None
        for text, boost in weighted_terms:
            idf = searcher.idf(fieldname, text) * boost
            blocks, deleted = _postings(reader, fieldname, text)
            for ids, weights in blocks:
                for doc, tf in zip(ids, weights, strict=True):
                    if doc in deleted:
                        continue
                    norm = k1 * (1 - b + b * (lengths[doc] if lengths else 1) / average)
                    key = doc + offset
                    scores[key] = get(key, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
    # Equal scores in document order, as Whoosh ranks them.
    return heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], -item[0]))
