"""Which kind of venue a paper reads like: vision, language, robotics, learning theory or
general machine learning, learned from the series that publish each kind.

Phrases alone miss that a detection or parsing paper at a general venue is an application
paper: its text names a method (contrastive, transformer, domain adaptation) more often than
its domain. A CVPR paper, whatever its method, is an application to vision; so the series
name is a label that costs nothing. A linear model over a paper's words and word pairs,
trained on papers of those series, says how much a paper reads like each kind, and
`TopicScorer` adds a boost to the kind's topic when it is the likely one.

    .venv/bin/python -m app.topics.fit families [--corpus DIR]

retrains it from the corpus into app/topics/families.json (fit.py). Only papers of the series
named in that file are read: AAAI and IJCAI, whose areas measure the assignment
(bench/topics.py), are in no family and are refused by name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from pathlib import Path

import numpy as np

from app.ids import series_slug

FAMILIES_FILE = Path(__file__).with_name("families.json")


def features(headline: Sequence[str], text: Sequence[str]) -> set[str]:
    """A paper's analyzed words and adjacent word pairs, present or not: counting them cost
    a Counter per paper, a third of the model's time."""
    terms = set(headline).union(text)
    for tokens in (headline, text):
        terms.update(map(" ".join, zip(tokens, tokens[1:], strict=False)))
    return terms


@dataclass(frozen=True)
class Family:
    name: str
    series: tuple[str, ...]
    topic: str | None  # the topic a paper reading like this family leans to; None: no lean


class SoftmaxRegression:
    """Softmax regression over IDF-weighted term presence (unit length): the families here,
    the topic lean of lean.py. A class may name a topic (`topics`), which `boosts` lifts by up
    to `boost` when its probability passes `threshold`."""

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


class FamilyModel(SoftmaxRegression):
    """Which family's series a paper reads like, and the topic boosts that follow."""

    def __init__(self, families: list[Family], terms: dict[str, int], idf: np.ndarray,
                 weights: np.ndarray, bias: np.ndarray, boost: float, threshold: float) -> None:
        super().__init__(terms, idf, weights, bias, [f.topic for f in families], boost,
                         threshold)
        self.families = families
        self.family_of_series = {series_slug(s): i for i, f in enumerate(families)
                                 for s in f.series}

    def leaning_topic(self, series: str | None) -> str | None:
        """The topic a paper of this series leans to for certain (its family's), if any: then
        its text is not read. A paper of a family's series (by slug: "cvpr") is certain of it:
        the text model only guesses the series; a general series (NeurIPS) says nothing."""
        family = self.family_of_series.get(series or "")
        return None if family is None else self.families[family].topic


@lru_cache(maxsize=1)
def family_model() -> FamilyModel:
    data = json.loads(FAMILIES_FILE.read_text(encoding="utf-8"))
    families = [Family(f["name"], tuple(f["series"]), f.get("topic")) for f in data["families"]]
    return FamilyModel(families, *read_terms(data["terms"]), np.array(data["bias"]),
                       float(data["boost"]), float(data["threshold"]))


def read_terms(rows: dict[str, list[float]]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """A model file's terms: each term's number, the IDF and the weights (a row per term)."""
    table = np.array(list(rows.values()), dtype=np.float64).reshape(len(rows), -1)
    return {t: i for i, t in enumerate(rows)}, table[:, 0], table[:, 1:]
