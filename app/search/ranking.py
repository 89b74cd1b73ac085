"""How search ranks: BM25F over whole posting lists, the scores of both scoring paths,
with the weights of `app/search/weights.py`.

Most queries are scored here with numpy, a posting list at a time (Whoosh's matchers step one
document at a time in Python: orders of magnitude slower for a related-papers query,
docs/performance.md). Sorting by venue and the queries these functions cannot score go
through Whoosh's searcher, whose weighting (`weighting()`) is the same BM25F with the same
k1 and b, so a paper scores alike on either path.
"""

from __future__ import annotations

import numpy as np
from whoosh.query import And, AndNot, Every, Or, Phrase, Query, Term
from whoosh.query.ranges import NumericRange
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from app.search import weights
from app.search.arrays import deleted_docs, term_postings
from app.search.columns import as_mask
from app.search.matches import Phrases, matching_docs
from app.search.whoosh_adapter import SegmentLengthBM25F, segment_lengths

# Parts that weigh no word, so they order nothing: a year range (year:2010-2020), and the
# everything a query of exclusions alone starts from (-model). Ranked by Whoosh's matchers
# instead, they stepped through every paper: over a second at L for -(-(-model)) nested.
CONSTANT = (Every, NumericRange)


def weighting() -> BM25F:
    """The weighting of Whoosh's searcher: BM25F with these weights."""
    return SegmentLengthBM25F(B=weights.WEIGHTS.b, K1=weights.WEIGHTS.k1)


# A scored term: field, text, boost, and the documents where it counts (None: wherever it
# occurs; a phrase's words count only where the phrase matches).
Leaf = tuple[str, object, float, "set[int] | None"]


def top_by_terms(searcher: Searcher, fieldname: str, weighted_terms: list[tuple[str, float]],
                 limit: int) -> list[tuple[int, float]]:
    """The `limit` best documents for weighted terms (any of them), scored as Whoosh's BM25F
    scores an Or of the terms."""
    leaves: list[Leaf] = [(fieldname, text, boost, None) for text, boost in weighted_terms]
    return best_scores(bm25_sums(searcher, leaves, None), limit)


def top_matches(searcher: Searcher, query: Query, docs: set[int], limit: int,
                phrases: Phrases | None = None) -> list[tuple[int, float]] | None:
    """The `limit` best of `docs` (the query's matches) with the scores Whoosh gives them,
    for queries of words and phrases joined by And, Or and AndNot, where a match's score is
    the sum of the BM25F scores of the terms that match it (a phrase's: of its words); None
    for other queries (ranges, filter fields...)."""
    scored = _scores(searcher, query, docs, phrases)
    return None if scored is None else best_scores(scored, limit)


def match_scores(searcher: Searcher, query: Query, docs: set[int],
                 phrases: Phrases | None = None) -> np.ndarray | None:
    """The scores `top_matches` ranks by, of every document (by document number; 0 outside
    `docs` and where no term counts); None for the queries it cannot score."""
    scored = _scores(searcher, query, docs, phrases)
    return None if scored is None else scored[1]


def _scores(searcher: Searcher, query: Query, docs: set[int],
            phrases: Phrases | None) -> tuple[np.ndarray, np.ndarray] | None:
    leaves = _scored_terms(searcher, query, {} if phrases is None else phrases)
    if leaves is None or not all(
            name in searcher.schema and searcher.schema[name].scorable for name, *_ in leaves):
        return None  # filter terms (ID fields) Whoosh scores by weight alone
    counted, scores = bm25_sums(searcher, leaves, docs)
    if len(counted) < len(docs):  # matched by a constant part alone (-model, year:2020 -x)
        counted = np.fromiter(sorted(docs), dtype=np.int64, count=len(docs))
    return counted, scores


def _scored_terms(searcher: Searcher, query: Query, phrases: Phrases) -> list[Leaf] | None:
    kind = type(query)
    if kind is Term:
        return [(query.fieldname, query.text, query.boost, None)]
    if kind in CONSTANT:
        return []
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


def bm25_sums(searcher: Searcher, leaves: list[Leaf],
              docs: set[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """The documents (of `docs`, or any) where a term counts, and every document's sum of
    BM25F over the terms that count in it, computed a posting list at a time."""
    b, k1 = weights.WEIGHTS.b, weights.WEIGHTS.k1
    total = searcher.doc_count_all()
    scores = np.zeros(total, dtype=np.float64)
    touched = np.zeros(total, dtype=bool)
    allowed = None if docs is None else as_mask(docs, total)
    # Where each term counts, over all segments: a phrase's words only where it matches.
    counted_by_leaf = [allowed if where is None else as_mask(
        where if docs is None else docs & where, total) for *_, where in leaves]
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        for (fieldname, text, boost, _), counted in zip(leaves, counted_by_leaf, strict=True):
            lengths = segment_lengths(reader, fieldname)
            average = searcher.avg_field_length(fieldname) or 1
            idf = searcher.idf(fieldname, text) * boost
            found = term_postings(reader, fieldname, text)
            local, frequencies = found.ids.astype(np.int64), found.weights
            deleted = deleted_docs(reader)
            keep = counted[local + offset] if counted is not None else None
            if deleted:
                live = ~np.isin(local, np.fromiter(deleted, dtype=np.int64))
                keep = live if keep is None else keep & live
            if keep is not None:
                local, frequencies = local[keep], frequencies[keep]
            tf = frequencies.astype(np.float64)
            length = (np.frombuffer(lengths, dtype=np.uint32)[local] if lengths is not None
                      else 1)
            norm = k1 * (1 - b + b * length / average)
            scores[local + offset] += idf * tf * (k1 + 1) / (tf + norm)
            touched[local + offset] = True
    return np.flatnonzero(touched), scores


def best_scores(scored: tuple[np.ndarray, np.ndarray], limit: int) -> list[tuple[int, float]]:
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
