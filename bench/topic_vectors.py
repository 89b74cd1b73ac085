"""Topic assignment from the papers' vectors, beside the catalog's phrase scorer (issue 59):
each paper's topic as the nearest topic centroid, or by a vote of its nearest papers, over the
sentence vectors (`meaning.npy`) or the LSA vectors (`vectors.npy`) of a full-corpus catalog's
live generation, which is only read.

    python -m bench.topic_vectors --data /tmp/L [--neighbours 20]

A centroid is the unit mean of the vectors of the papers the catalog puts in that topic (its
primary topic, "other" left out), over every paper but AAAI's and IJCAI's; a vote sums the
cosines of a paper's `--neighbours` nearest such papers (itself never among them) by their
topic. "phrases + centroid" adds to the scorer's scores, each divided by the best, `w` times
the softmax of the centroid cosines (temperature 0.05); `w` is chosen on the ICLR keyword
labels alone (the tuning evidence of bench/topic_tuning.py), and the votes' sizes are printed
on them too (20, the one scored, was set before). "both" is the two kinds side by side, each
of unit length (bench/map_variants.py).

Scored on the evidence of bench/topic_tuning.py (ICLR papers whose author keywords map to one
topic: top-1 and top-3) and, once, on the venues' own areas of bench/topics.py (AAAI 2022
and IJCAI 2020-24 `primary_area` mapped onto our topics by its `AREAS`: top-1 and top-3):
those areas evaluate and tune nothing; no centroid is made from an AAAI or IJCAI paper.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.ids import series_slug
from app.ingest.normalize import normalize_abstract
from app.map.layout import knn
from app.tex import title_text
from app.topics import OTHER, default_scorer
from bench.live_catalog import EVALUATION_VENUES, LiveCatalog
from bench.map_variants import LSA, MEANING, inputs, unit
from bench.topics import AREAS, GROUPS

LABELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "topic_tuning_labels.json"
TEMPERATURE = 0.05
BLEND_WEIGHTS = (0.25, 0.5, 1.0, 2.0, 4.0)
VOTES = (5, 10, 20, 50)
Ranked = list[str]  # topics, best first


def labelled(catalog: LiveCatalog) -> tuple[dict[int, str], dict[int, tuple[str, ...]]]:
    """Documents with a label: ICLR keyword labels (doc → topic) and the evaluation papers
    whose area maps onto ours (doc → the topics allowed)."""
    keyword_topic = json.loads(LABELS.read_text(encoding="utf-8"))["keywords"]
    iclr, areas = {}, {}
    for doc, row in enumerate(catalog.rows):
        if row is None:
            continue
        if row["venue"] == "ICLR":
            topics = {keyword_topic[k.strip().lower()] for k in row.get("keywords") or ()
                      if k.strip().lower() in keyword_topic}
            if len(topics) == 1:
                iclr[doc] = topics.pop()
        elif row["venue"] in EVALUATION_VENUES and (row.get("primary_area") or "") in AREAS:
            areas[doc] = AREAS[row["primary_area"]]
    return iclr, areas


def phrase_scores(catalog: LiveCatalog, docs: list[int]) -> dict[int, list[tuple[str, float]]]:
    """The scorer's scores of each document's corpus text, as bench/topics.py reads it."""
    scorer = default_scorer()
    found = {}
    for doc in docs:
        row = catalog.rows[doc]
        plain = normalize_abstract(row["abstract"]).plain
        headline = title_text(row.get("title") or "") or plain[:200]
        found[doc] = scorer.scores(headline, plain, series_slug(row["venue"]))
    return found


def phrases_ranked(scores: list[tuple[str, float]]) -> Ranked:
    """The scorer's call: its primary ("other" below the threshold), then the others."""
    primary = default_scorer()._assigned(scores)[0][0]
    return [primary] + [slug for slug, _ in scores if slug != primary]


class VectorTopics:
    """Centroids and neighbours of one kind of vectors, from the non-evaluation papers."""

    def __init__(self, vectors: np.ndarray, topics: np.ndarray, training: np.ndarray) -> None:
        self.vectors = vectors
        self.training = np.flatnonzero(training & (topics != OTHER) & vectors.any(axis=1))
        self.topics = topics
        self.names = sorted(set(topics[self.training]))
        self.centroids = unit(np.stack([vectors[self.training][topics[self.training] == t]
                                        .mean(axis=0) for t in self.names]))

    def cosines(self, docs: list[int]) -> np.ndarray:
        return self.vectors[docs] @ self.centroids.T

    def centroid(self, docs: list[int]) -> dict[int, Ranked]:
        order = np.argsort(-self.cosines(docs), axis=1)
        return {doc: [self.names[i] for i in row] for doc, row in zip(docs, order, strict=True)}

    def vote(self, docs: list[int], k: int) -> dict[int, Ranked]:
        index, sims = knn(self.vectors[self.training], k + 1, queries=self.vectors[docs])
        found = {}
        for doc, near, weights in zip(docs, index, sims, strict=True):
            votes: Counter[str] = Counter()
            others = [(i, w) for i, w in zip(self.training[near], weights, strict=True)
                      if i != doc][:k]
            for i, w in others:
                votes[self.topics[i]] += float(w)
            found[doc] = [t for t, _ in votes.most_common()]
        return found

    def blend(self, docs: list[int], scores: dict[int, list[tuple[str, float]]],
              weight: float) -> dict[int, Ranked]:
        cos = self.cosines(docs) / TEMPERATURE
        soft = np.exp(cos - cos.max(axis=1, keepdims=True))
        soft /= soft.sum(axis=1, keepdims=True)
        found = {}
        for doc, p in zip(docs, soft, strict=True):
            best = scores[doc][0][1] if scores[doc] else 1.0
            total = Counter({t: weight * float(x) for t, x in zip(self.names, p, strict=True)})
            for slug, score in scores[doc]:
                if slug != OTHER:
                    total[slug] += score / best
            found[doc] = [t for t, _ in total.most_common()]
        return found


def hits(ranked: dict[int, Ranked], allowed: dict[int, tuple[str, ...]]) -> tuple[float, float]:
    """top-1: the first is allowed; top-3: an allowed topic among the three best ("other",
    the scorer's call below its threshold, is no topic there: bench/topics.py)."""
    top1 = np.mean([ranked[d][0] in ok for d, ok in allowed.items()])
    top3 = np.mean([any(t in ok for t in [t for t in ranked[d] if t != OTHER][:3])
                    for d, ok in allowed.items()])
    return float(top1), float(top3)


def per_area(ranked: dict[int, Ranked], allowed: dict[int, tuple[str, ...]],
             catalog: LiveCatalog) -> dict[str, tuple[int, float]]:
    groups: dict[str, dict[int, tuple[str, ...]]] = {}
    for doc, ok in allowed.items():
        area = catalog.rows[doc]["primary_area"]
        groups.setdefault(GROUPS.get(area, area), {})[doc] = ok
    return {area: (len(docs), hits(ranked, docs)[0]) for area, docs in groups.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a catalog's data directory")
    parser.add_argument("--neighbours", type=int, default=20)
    args = parser.parse_args()
    catalog = LiveCatalog(args.data)
    iclr, areas = labelled(catalog)
    iclr_allowed = {doc: (topic,) for doc, topic in iclr.items()}
    training = ~np.isin(catalog.series, [series_slug(v) for v in EVALUATION_VENUES])
    scores = phrase_scores(catalog, [*iclr, *areas])
    methods: dict[str, Callable[[list[int]], dict[int, Ranked]]] = {
        "phrases (the catalog today)": lambda docs: {d: phrases_ranked(scores[d]) for d in docs}}
    kinds = {"MiniLM": VectorTopics(catalog.vectors(MEANING), catalog.topics, training),
             "LSA": VectorTopics(catalog.vectors(LSA), catalog.topics, training),
             "both": VectorTopics(inputs(catalog, "both"), catalog.topics, training)}
    for name, kind in kinds.items():  # the vote's size, on the ICLR labels alone: not tuned
        print(f"{name} vote on ICLR keyword labels by neighbours (top-1, top-3): " + ", ".join(
            f"{k}: {a:.3f} {b:.3f}" for k in VOTES
            for a, b in [hits(kind.vote(list(iclr), k), iclr_allowed)]))
    for name, kind in kinds.items():
        methods[f"{name} nearest centroid"] = kind.centroid
        methods[f"{name} vote of {args.neighbours} nearest"] = (
            lambda docs, kind=kind: kind.vote(docs, args.neighbours))
    for name, kind in list(kinds.items())[:2]:  # the blend's weight, on ICLR labels alone
        tried = {w: hits(kind.blend(list(iclr), scores, w), iclr_allowed) for w in BLEND_WEIGHTS}
        best = max(tried, key=lambda w: tried[w])
        print(f"{name} blend weights on ICLR keyword labels (top-1, top-3): "
              + ", ".join(f"{w}: {a:.3f} {b:.3f}" for w, (a, b) in tried.items()))
        methods[f"phrases + {name} centroid (w {best})"] = (
            lambda docs, kind=kind, best=best: kind.blend(docs, scores, best))
    print(f"\n{len(iclr)} ICLR papers with a keyword label; {len(areas)} AAAI/IJCAI papers "
          f"whose area maps onto ours; centroids of {training.sum()} papers")
    print(f"{'':40} {'ICLR top-1':>10} {'top-3':>6} {'areas top-1':>11} {'top-3':>6}")
    found = {}
    for name, method in methods.items():
        found[name] = ranked = method([*iclr, *areas])
        a1, a3 = hits(ranked, iclr_allowed)
        b1, b3 = hits(ranked, areas)
        print(f"{name:40} {a1:10.1%} {a3:6.1%} {b1:11.1%} {b3:6.1%}", flush=True)
    print("\ntop-1 by area:")
    table = {name: per_area(ranked, areas, catalog) for name, ranked in found.items()}
    first = next(iter(table.values()))
    for area in sorted(first, key=lambda a: -first[a][0]):
        print(f"  {area:40} {first[area][0]:5} " + " ".join(
            f"{table[name][area][1]:6.1%}" for name in table))
    print("  columns: " + " | ".join(table))


if __name__ == "__main__":
    main()
