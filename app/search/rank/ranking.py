"""How search ranks a query's matches: BM25F over whole posting lists (bm25.py) summed over
the words and phrases the query is made of.

Most queries are scored here with numpy, a posting list at a time (Whoosh's matchers step one
document at a time in Python: orders of magnitude slower for a related-papers query,
docs/performance.md). Sorting by venue and the queries these functions cannot score go
through Whoosh's searcher, whose weighting (`bm25.weighting()`) is the same BM25F with the
same k1 and b, so a paper scores alike on either path.
"""

from __future__ import annotations

import numpy as np
from whoosh.query import And, AndNot, Every, Or, Phrase, Query, Term
from whoosh.query.ranges import NumericRange
from whoosh.searching import Searcher

from app.search.rank.bm25 import Leaf, best_scores, bm25_sums
from app.search.rank.matches import Phrases, matching_docs

# Parts that weigh no word, so they order nothing: a year range (year:2010-2020), and the
# everything a query of exclusions alone starts from (-model). Ranked by Whoosh's matchers
# instead, they stepped through every paper: over a second at L for -(-(-model)) nested.
CONSTANT = (Every, NumericRange)


def top_matches(searcher: Searcher, query: Query, docs: np.ndarray, limit: int,
                phrases: Phrases | None = None) -> list[tuple[int, float]] | None:
    """The `limit` best of `docs` (the query's matches, a mask) with the scores Whoosh gives them,
    for queries of words and phrases joined by And, Or and AndNot, where a match's score is
    the sum of the BM25F scores of the terms that match it (a phrase's: of its words); None
    for other queries (ranges, filter fields...)."""
    scored = _scores(searcher, query, docs, phrases)
    return None if scored is None else best_scores(scored, limit)


def match_scores(searcher: Searcher, query: Query, docs: np.ndarray,
                 phrases: Phrases | None = None) -> np.ndarray | None:
    """The scores `top_matches` ranks by, of every document (by document number; 0 outside
    `docs` and where no term counts); None for the queries it cannot score."""
    scored = _scores(searcher, query, docs, phrases)
    return None if scored is None else scored[1]


def _scores(searcher: Searcher, query: Query, docs: np.ndarray,
            phrases: Phrases | None) -> tuple[np.ndarray, np.ndarray] | None:
    leaves = _scored_terms(searcher, query, {} if phrases is None else phrases)
    if leaves is None or not all(
            name in searcher.schema and searcher.schema[name].scorable for name, *_ in leaves):
        return None  # filter terms (ID fields) Whoosh scores by weight alone
    counted, scores = bm25_sums(searcher, leaves, docs)
    if len(counted) < np.count_nonzero(docs):  # matched by a constant part alone (-model)
        counted = np.flatnonzero(docs)
    return counted, scores


def _scored_terms(searcher: Searcher, query: Query, phrases: Phrases) -> list[Leaf] | None:
    kind = type(query)
    if kind is Term:
        return [(query.fieldname, query.text, query.boost, None)]
    if kind in CONSTANT:
        return []
    if isinstance(query, Phrase) and query.slop == 1:
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
