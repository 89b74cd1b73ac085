"""BM25F over whole posting lists, with the weights of `app/search/rank/weights.py`: a score per
document for weighted terms, computed a posting list at a time with numpy, and the best of
them. What ranks a query (ranking.py) and related papers (similar.py); Whoosh's own searcher
gets the same BM25F (`weighting()`), so a paper scores alike on either path.
"""

from __future__ import annotations

import numpy as np
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from app.search.index.arrays import deleted_docs, term_postings
from app.search.index.whoosh import SegmentLengthBM25F, segment_lengths
from app.search.rank import weights


def weighting() -> BM25F:
    """The weighting of Whoosh's searcher: BM25F with these weights."""
    return SegmentLengthBM25F(B=weights.WEIGHTS.b, K1=weights.WEIGHTS.k1)


# A scored term: field, text, boost, and the documents where it counts, a mask (None:
# wherever it occurs; a phrase's words count only where the phrase matches).
Leaf = tuple[str, object, float, "np.ndarray | None"]


def top_by_terms(searcher: Searcher, fieldname: str, weighted_terms: list[tuple[str, float]],
                 limit: int) -> list[tuple[int, float]]:
    """The `limit` best documents for weighted terms (any of them), scored as Whoosh's BM25F
    scores an Or of the terms."""
    leaves: list[Leaf] = [(fieldname, text, boost, None) for text, boost in weighted_terms]
    return best_scores(bm25_sums(searcher, leaves, None), limit)


def bm25_sums(searcher: Searcher, leaves: list[Leaf],
              docs: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The documents (of the mask `docs`, or any) where a term counts, and every document's
    sum of BM25F over the terms that count in it, computed a posting list at a time."""
    b, k1 = weights.WEIGHTS.b, weights.WEIGHTS.k1
    total = searcher.doc_count_all()
    scores = np.zeros(total, dtype=np.float64)
    touched = np.zeros(total, dtype=bool)
    # Where each term counts, over all segments: a phrase's words only where it matches.
    counted_by_leaf = [docs if where is None else where if docs is None else docs & where
                       for *_, where in leaves]
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
            if deleted.size:
                live = ~np.isin(local, deleted)
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
