"""The learned linear model of topic assignment: softmax regression over a paper's analyzed
words and word pairs (`features`), IDF-weighted and of unit length. Two models are one of it,
each with its own classes and file: which kind of venue a paper reads like (families.py) and
the topic lean (lean.py)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np


def features(headline: Sequence[str], text: Sequence[str]) -> set[str]:
    """A paper's analyzed words and adjacent word pairs, present or not: counting them cost
    a Counter per paper, a third of the model's time."""
    terms = set(headline).union(text)
    for tokens in (headline, text):
        terms.update(map(" ".join, zip(tokens, tokens[1:], strict=False)))
    return terms


class SoftmaxRegression:
    """Softmax regression over IDF-weighted term presence (unit length): the families of
    families.py, the topic lean of lean.py. A class may name a topic (`topics`), which
    `boosts` lifts by up to `boost` when its probability passes `threshold`."""

    def __init__(self, terms: dict[str, int], idf: np.ndarray, weights: np.ndarray,
                 bias: np.ndarray, topics: Sequence[str | None], boost: float,
                 threshold: float) -> None:
        self.terms, self.idf, self.weights, self.bias = terms, idf, weights, bias
        self.vocabulary = frozenset(terms)
        self.class_topics, self.boost, self.threshold = list(topics), boost, threshold

    def probabilities(self, terms: set[str]) -> np.ndarray:
        """The probability of each class for a paper of these `features`."""
        return self.probabilities_of([terms])[0]

    def probabilities_of(self, papers: Sequence[set[str]]) -> np.ndarray:
        """`probabilities` of many papers, a row each, as one sparse product: one paper at a
        time, numpy's calls cost more than their arithmetic."""
        # Most of a paper's terms are unknown to the model: a set intersection drops them
        # at C speed.
        rows = [list(map(self.terms.__getitem__, self.vocabulary.intersection(terms)))
                for terms in papers]
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        ids = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(lengths.sum()))
        row_of = np.repeat(np.arange(len(rows)), lengths)
        x = self.idf[ids]
        x /= np.sqrt(np.bincount(row_of, weights=x * x, minlength=len(rows)))[row_of]
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        # Imported by the process that scores topics (an ingest), not by every server worker
        # that imports app.topics: scipy was 24 MB of each one's private memory.
        from scipy.sparse import csr_matrix

        matrix = csr_matrix((x, ids, indptr), shape=(len(rows), len(self.idf)))
        logits = self.bias + matrix @ self.weights
        odds = np.exp(logits - logits.max(axis=1, keepdims=True))
        return odds / odds.sum(axis=1, keepdims=True)

    def boosts(self, p: np.ndarray) -> list[tuple[str, float]]:
        """The topic boosts of a paper of class probabilities `p`: `boost` for a class that is
        certain, nothing below `threshold`, linear between (a paper equally like two classes
        leans to neither)."""
        return [(topic, float(self.boost * (p[i] - self.threshold) / (1 - self.threshold)))
                for i, topic in enumerate(self.class_topics)
                if topic and p[i] > self.threshold]


def read_terms(rows: dict[str, list[float]]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """A model file's terms: each term's number, the IDF and the weights (a row per term)."""
    table = np.array(list(rows.values()), dtype=np.float64).reshape(len(rows), -1)
    return {t: i for i, t in enumerate(rows)}, table[:, 0], table[:, 1:]
