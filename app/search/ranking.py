"""How search ranks, in one place: every weight (`WEIGHTS`), and BM25F over whole posting
lists, the scores of both scoring paths.

Most queries are scored here with numpy, a posting list at a time (Whoosh's matchers step one
document at a time in Python: orders of magnitude slower for a related-papers query,
docs/performance.md). Sorting by venue and the queries these functions cannot score go
through Whoosh's searcher, whose weighting (`weighting()`) is the same BM25F with the same
k1 and b, so a paper scores alike on either path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from whoosh.query import And, AndNot, Every, Or, Phrase, Query, Term
from whoosh.query.ranges import NumericRange
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from app.search.arrays import deleted_docs, term_postings
from app.search.columns import as_mask
from app.search.matches import Phrases, matching_docs
from app.search.whoosh_adapter import SegmentLengthBM25F, segment_lengths


@dataclass(frozen=True)
class Weights:
    """What each part of a match is worth. Measured with bench/relevance (ICLR keywords,
    the seed judgments): docs/search.md gives the runs behind each value."""

    k1: float = 1.2  # BM25F: how fast a term's repeats stop counting (Whoosh's default)
    b: float = 0.75  # BM25F: how much a long field is discounted (Whoosh's default)
    headline_field: float = 1.5  # the headline field's boost in the index (a change re-indexes)
    # How much more a match in the headline (the title, when there is one) counts than the
    # same match in the abstract, on top of the headline field's own boost.
    headline_match: float = 0.5
    # A match of another form of the typed word's group, beside one of the form typed: "RNN"
    # finds the papers that write "recurrent neural network" too, after those that write RNN.
    other_form: float = 0.5
    proximity: float = 0.6  # the re-rank's gain for query words close together
    partial_share: float = 0.5  # the share of a query's parts a partial match holds at least
    # A question or a description lists the papers holding at least this share of its
    # concepts' weight that the best papers hold (all of it when some hold every concept;
    # each part weighs its IDF: question.py)...
    bag_share: float = 0.5
    # ...and ranks a paper lacking some by BM25F × (the share of the weight it holds) ** this.
    coverage: float = 1.0
    # A question's word also finds the words of its family (derivations) at this weight.
    family: float = 0.25
    same_topic: float = 1.3  # a related paper of the same primary topic
    # The share of the score of a paper like a paper (related papers) or like a pasted text
    # that is the cosine of their vectors (vectors.py), the rest its lexical score over the
    # best; for a reading list, the cosine with the mean of its papers' vectors.
    related_vectors: float = 0.5
    list_vectors: float = 0.4
    # The weight of the words of a phrase that listed papers share, where the phrase stands,
    # over the mean of the list's terms (similar.py; all three: docs/search.md).
    list_phrases: float = 2.0


# Read at each use (`ranking.WEIGHTS.proximity`), so a benchmark may try others by replacing
# it: bench/relevance/keywords.py.
WEIGHTS = Weights()
# Parts that weigh no word, so they order nothing: a year range (year:2010-2020), and the
# everything a query of exclusions alone starts from (-model). Ranked by Whoosh's matchers
# instead, they stepped through every paper: over a second at L for -(-(-model)) nested.
CONSTANT = (Every, NumericRange)


def weighting() -> BM25F:
    """The weighting of Whoosh's searcher: BM25F with these weights."""
    return SegmentLengthBM25F(B=WEIGHTS.b, K1=WEIGHTS.k1)


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
    b, k1 = WEIGHTS.b, WEIGHTS.k1
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
            local, weights = found.ids.astype(np.int64), found.weights
            deleted = deleted_docs(reader)
            keep = counted[local + offset] if counted is not None else None
            if deleted:
                live = ~np.isin(local, np.fromiter(deleted, dtype=np.int64))
                keep = live if keep is None else keep & live
            if keep is not None:
                local, weights = local[keep], weights[keep]
            tf = weights.astype(np.float64)
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
