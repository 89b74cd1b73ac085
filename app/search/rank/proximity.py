"""Proximity: a paper whose abstract has the query's words close together ranks above one
where the same words lie scattered (a phrase is the closest case).

The best matches by BM25F are re-ranked: each score grows by W × the mean, over each pair
of consecutive query words, of 1 / (the least distance between them in the text), so
adjacent words add W, words three apart a third of it (W: `weights.WEIGHTS.proximity`).
Only the first RERANKED matches move; the positions come from the index's arrays.
"""

from __future__ import annotations

import numpy as np
from whoosh.searching import Searcher

from app.search.index.arrays import term_postings
from app.search.rank import weights
from app.search.words.analysis import STOP_BITS

RERANKED = 50
REVERSED = 1  # what the other order adds to two words' distance
# ...in a question, whose consecutive words are the field's terms in the order the field
# writes them: "double descent" reversed is "gradient descent with double-pass". A
# description's words are prose that papers say in any order (measured: docs/search.md).
REVERSED_IN_QUESTION = 3


def positions_in(searcher: Searcher, fieldname: str, word: str, doc: int) -> np.ndarray:
    """The word's places in one document (by the searcher's document number), stop words
    not counted."""
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        if offset <= doc < offset + reader.doc_count_all():
            return term_postings(reader, fieldname, word, positions=True).positions_of(
                doc - offset) >> STOP_BITS
    return np.zeros(0, dtype=np.int32)


def _apart(gap: np.ndarray, reversed_by: int) -> np.ndarray:
    """How far apart two words are, `gap` positions from the first to the second: the words
    in the query's order count as written; in the other order `reversed_by` farther
    ("gradient descent with double-pass" is not about double descent)."""
    return np.where(gap > 0, gap, np.abs(gap) + reversed_by)


def closeness(searcher: Searcher, words: list[str], doc: int,
              reversed_by: int = REVERSED) -> float:
    """Mean over consecutive pairs of the words of 1 / their least distance in the text."""
    positions = [np.asarray(positions_in(searcher, "text", word, doc), dtype=np.int64)
                 for word in words]
    total = 0.0
    for a, b in zip(positions, positions[1:], strict=False):
        if not len(a) or not len(b):
            continue
        at = np.searchsorted(b, a)  # b is sorted: the nearest is at `at` or just before
        right = b[np.minimum(at, len(b) - 1)]
        left = b[np.maximum(at - 1, 0)]
        nearest = int(np.minimum(_apart(right - a, reversed_by),
                                 _apart(left - a, reversed_by)).min())
        total += 1.0 / max(1, nearest)
    return total / (len(words) - 1)


def rerank(searcher: Searcher, words: list[str], best: list[tuple[int, float]],
           reversed_by: int = REVERSED) -> list[tuple[int, float]]:
    """The best matches with the first RERANKED re-scored for closeness, in the new order."""
    if len(words) < 2 or weights.WEIGHTS.proximity == 0:
        return best
    head = [(doc, score * (1 + weights.WEIGHTS.proximity
                           * closeness(searcher, words, doc, reversed_by)))
            for doc, score in best[:RERANKED]]
    head.sort(key=lambda item: (-item[1], item[0]))
    return head + best[RERANKED:]
