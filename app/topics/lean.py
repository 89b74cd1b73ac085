"""A topic lean learned from the phrases' own confident calls (self-training, issue 30).

Phrases fire on a few words; most of a paper's words say nothing to them. Papers whose
phrase-based primary topic is confident (score ≥ MIN_TOP and ≥ MARGIN × the second, with the
venue-kind lean of families.py and the paper's series, as ingest scores it) label
themselves; a softmax regression over the same features as the family model (IDF-weighted
presence of analyzed words and word pairs, unit length) learns to predict that topic from the
whole text, and `TopicScorer` adds up to `boost` to a topic whose probability passes
`threshold`, linearly to certainty. The bias is not kept: a topic's share among confident
papers (robotics, from ICRA and IROS) is no prior for a paper of unknown venue, and with it
the lean took papers from rare topics.

    .venv/bin/python -m app.topics.fit lean [--corpus DIR]

refits it into app/topics/lean.json (about a minute, deterministic; fit.py).
Run it after editing the phrases in topics.json, then `catalog retopic`. AAAI and IJCAI, whose
areas measure the assignment (bench/topics.py), are never read.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.topics.softmax import SoftmaxRegression, read_terms

LEAN_FILE = Path(__file__).with_name("lean.json")


class TopicLean(SoftmaxRegression):
    """The topic regression, without a bias; `boosts` as the family model's."""

    def __init__(self, topics: list[str], terms: dict[str, int], idf: np.ndarray,
                 weights: np.ndarray, boost: float, threshold: float) -> None:
        super().__init__(terms, idf, weights, np.zeros(len(topics)), topics, boost, threshold)
        self.topics = topics


@lru_cache(maxsize=1)
def topic_lean() -> TopicLean | None:
    if not LEAN_FILE.exists():
        return None
    data = json.loads(LEAN_FILE.read_text(encoding="utf-8"))
    return TopicLean(list(data["topics"]), *read_terms(data["terms"]), float(data["boost"]),
                     float(data["threshold"]))
