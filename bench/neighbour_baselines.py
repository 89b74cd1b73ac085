"""What a researcher would use instead of the catalog's related papers and recommendations,
each scoring every paper's likeness to a list of papers (bench/recommend.py): a sublinear
TF-IDF cosine with the list's centroid, the sentence encoder alone (the cosine with the unit
mean of the list's vectors, as the index holds them), and the mean of the two.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import numpy as np

from app.search.index.opened import OpenIndex
from app.search.searcher import PaperSearch
from app.search.words.analysis import analyze

Recommender = Callable[[list[str]], list[str]]

Scorer = Callable[[list[str]], dict[str, float]]  # every paper's likeness to the listed


def tfidf_centroid(plain: dict[str, str]) -> Scorer:
    """The usual way: unit TF-IDF vectors (sublinear), each paper's cosine with the mean of
    the list's."""
    documents = {pid: Counter(analyze(text)) for pid, text in plain.items()}
    df = Counter(term for counts in documents.values() for term in counts)
    vectors: dict[str, dict[str, float]] = {}
    postings: dict[str, list[tuple[str, float]]] = {}
    for pid, counts in documents.items():
        vector = {t: (1 + math.log(n)) * math.log(len(documents) / df[t])
                  for t, n in counts.items()}
        norm = math.sqrt(sum(x * x for x in vector.values())) or 1.0
        vectors[pid] = {t: x / norm for t, x in vector.items()}
        for term, x in vectors[pid].items():
            postings.setdefault(term, []).append((pid, x))

    def score(listed: list[str]) -> dict[str, float]:
        centroid: Counter[str] = Counter()
        for pid in listed:
            for term, x in vectors[pid].items():
                centroid[term] += x / len(listed)
        norm = math.sqrt(sum(x * x for x in centroid.values())) or 1.0
        scores: Counter[str] = Counter()
        for term, x in centroid.items():
            for pid, y in postings.get(term, ()):
                scores[pid] += x / norm * y
        return scores

    return score


def encoder_centroid(search: PaperSearch) -> Scorer:
    """The sentence encoder alone (all-MiniLM-L6-v2, the index's vectors): each paper's
    cosine with the unit mean of the list's vectors."""
    def score(listed: list[str]) -> dict[str, float]:
        def cosines(current: OpenIndex) -> dict[str, float]:
            docs = [current.searcher.document_number(id=pid) for pid in listed]
            mean = current.meaning[docs].mean(axis=0)
            found = current.meaning @ (mean / np.linalg.norm(mean))
            return {current.ids[doc]: float(found[doc]) for doc in range(len(found))}

        return search.with_index(cosines, {})

    return score


def mean_of(*scorers: Scorer) -> Scorer:
    """The mean of the scorers' likenesses (a paper one lacks counts 0 there)."""
    def score(listed: list[str]) -> dict[str, float]:
        total: Counter[str] = Counter()
        for scorer in scorers:
            total.update(scorer(listed))
        return total

    return score


def ranked(scorer: Scorer, top: int) -> Recommender:
    """The `top` papers most alike, none of the listed."""
    return lambda listed: [pid for pid, _ in Counter(scorer(listed)).most_common(
        top + len(listed)) if pid not in listed]
