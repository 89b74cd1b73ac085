"""A topic lean learned from the phrases' own confident calls (self-training, issue 30).

Phrases fire on a few words; most of a paper's words say nothing to them. Papers whose
phrase-based primary topic is confident (score ≥ MIN_TOP and ≥ MARGIN × the second, with the
venue-kind lean of app/topic_families.py and the paper's series, as ingest scores it) label
themselves; a softmax regression over the same features as the family model (IDF-weighted
presence of analyzed words and word pairs, unit length) learns to predict that topic from the
whole text, and `TopicScorer` adds up to `boost` to a topic whose probability passes
`threshold`, linearly to certainty. The bias is not kept: a topic's share among confident
papers (robotics, from ICRA and IROS) is no prior for a paper of unknown venue, and with it
the lean took papers from rare topics.

    .venv/bin/python -m app.topic_lean [--corpus DIR]

refits it into app/topic_lean.json (about a minute, deterministic). Run it after editing the
phrases in topics.json, then `catalog retopic`. AAAI and IJCAI, whose areas measure the
assignment (bench/topics.py), are never read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import zlib
from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.ids import series_slug
from app.ingest.normalize import normalize_abstract, title_text
from app.search.analysis import analyze
from app.topic_families import (
    CORPUS,
    EVALUATION_VENUES,
    SoftmaxRegression,
    features,
    fit,
    readable_json,
)

LEAN_FILE = Path(__file__).with_name("topic_lean.json")
PAPERS_PER_VENUE = 4000  # ICRA and IROS alone have 36,000
PAPERS_PER_TOPIC = 3000
MIN_TOP = 6.0
MARGIN = 2.0
MIN_PAPERS = 50


class TopicLean(SoftmaxRegression):
    """The topic regression, without a bias; `boosts` as the family model's."""

    def __init__(self, topics: list[str], terms: dict[str, int], idf: np.ndarray,
                 weights: np.ndarray, boost: float, threshold: float) -> None:
        super().__init__(terms, idf, weights, np.zeros(len(topics)))
        self.topics = topics
        self.boost, self.threshold = boost, threshold

    def boosts(self, terms: set[str]) -> list[tuple[str, float]]:
        if not self.boost:
            return []
        p = self.probabilities(terms)
        return [(topic, float(self.boost * (p[i] - self.threshold) / (1 - self.threshold)))
                for i, topic in enumerate(self.topics) if p[i] > self.threshold]


@lru_cache(maxsize=1)
def topic_lean() -> TopicLean | None:
    if not LEAN_FILE.exists():
        return None
    data = json.loads(LEAN_FILE.read_text(encoding="utf-8"))
    rows = data["terms"]
    table = np.array(list(rows.values()), dtype=np.float64).reshape(len(rows), -1)
    return TopicLean(list(data["topics"]), {t: i for i, t in enumerate(rows)}, table[:, 0],
                     table[:, 1:], float(data["boost"]), float(data["threshold"]))


def confident_papers(corpus: Path) -> tuple[list[str], list[tuple[int, set[str]]]]:
    """Topics, and (topic, features) of the papers whose phrase topic is confident: up to
    PAPERS_PER_VENUE per venue and PAPERS_PER_TOPIC per topic, by CRC of the abstract."""
    from app.topics import OTHER, TopicScorer

    scorer = TopicScorer(lean=False)
    topics = [t.slug for t in scorer.taxonomy.topics if t.slug != OTHER]
    by_venue: dict[str, list[tuple[int, str, str]]] = {}
    for path in sorted(corpus.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as rows:
            for line in rows:
                row = json.loads(line)
                if row["venue"] in EVALUATION_VENUES:
                    continue
                by_venue.setdefault(row["venue"], []).append(
                    (zlib.crc32(row["abstract"].encode()), row.get("title") or "",
                     row["abstract"]))
    picked: list[tuple[int, int, set[str]]] = []
    for venue, papers in sorted(by_venue.items()):
        for crc, title, abstract in sorted(papers)[:PAPERS_PER_VENUE]:
            plain = normalize_abstract(abstract).plain
            headline = title_text(title) or plain[:200]
            ranked = scorer.scores(headline, plain, series_slug(venue))
            if not ranked or ranked[0][0] not in topics:
                continue
            top, second = ranked[0][1], ranked[1][1] if len(ranked) > 1 else 0.0
            if top >= MIN_TOP and top >= MARGIN * second:
                picked.append((zlib.crc32(f"lean{crc}".encode()), topics.index(ranked[0][0]),
                               features(analyze(headline), analyze(plain))))
    picked.sort(key=lambda p: p[0])
    taken: Counter[int] = Counter()
    papers = []
    for _, topic, terms in picked:
        if taken[topic] < PAPERS_PER_TOPIC:
            taken[topic] += 1
            papers.append((topic, terms))
    return topics, papers


def train(corpus: Path, path: Path = LEAN_FILE) -> None:
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {
        "about": "A topic lean learned from confident phrase matches (app/topic_lean.py). A "
                 "topic whose probability passes `threshold` adds up to `boost` to its phrase "
                 "score. Refit with `python -m app.topic_lean` after editing topics.json.",
        "boost": 3.0, "threshold": 0.3}
    topics, papers = confident_papers(corpus)
    terms, idf, weights, _ = fit(papers, len(topics), MIN_PAPERS)
    data["topics"] = topics
    data["terms"] = {t: [round(float(idf[i]), 2)] + [round(float(w), 3) for w in weights[i]]
                     for t, i in terms.items()}
    path.write_text(readable_json(data), encoding="utf-8")
    topic_lean.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    train(parser.parse_args().corpus)


if __name__ == "__main__":
    main()
