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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.ids import series_slug
from app.topics.softmax import SoftmaxRegression, read_terms

FAMILIES_FILE = Path(__file__).with_name("families.json")


@dataclass(frozen=True)
class Family:
    name: str
    series: tuple[str, ...]
    topic: str | None  # the topic a paper reading like this family leans to; None: no lean


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
