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

from itertools import accumulate

from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.query import And, AndNot, Every, Not, NullQuery, Or, Query, Term
from whoosh.reading import IndexReader, TermNotFound
from whoosh.searching import Searcher


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
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return set()
    deleted: set[int] = set()
    if isinstance(matcher, FilterMatcher) and matcher._exclude:
        deleted, matcher = matcher._ids, matcher.child
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        return set(matcher.all_ids()) - deleted
    ids: set[int] = set()
    while matcher.is_active():
        if matcher._data is None:
            matcher._read_data()
        ids.update(accumulate(matcher._data[0]))  # stored as deltas
        matcher._next_block()
    return ids - deleted if deleted else ids
