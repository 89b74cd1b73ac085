"""Fitting the topic lean of lean.py from the corpus: the papers whose phrase
topic is confident label themselves, and a softmax regression learns those topics from the
whole text.

    .venv/bin/python -m app.topics.lean_fit [--corpus DIR]

rewrites app/topics/lean.json (about a minute, deterministic). AAAI and IJCAI, whose areas
measure the assignment (bench/topics.py), are never read.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from pathlib import Path

from app.ids import series_slug
from app.search.analysis import analyze
from app.topics import OTHER, TopicScorer
from app.topics.families import (
    corpus_papers,
    features,
    fit,
    paper_text,
    readable_json,
    refit_command,
    written_terms,
)
from app.topics.lean import LEAN_FILE, topic_lean

PAPERS_PER_VENUE = 4000  # ICRA and IROS alone have 36,000
PAPERS_PER_TOPIC = 3000
MIN_TOP = 6.0
MARGIN = 2.0
MIN_PAPERS = 50


def confident_papers(corpus: Path) -> tuple[list[str], list[tuple[int, set[str]]]]:
    """Topics, and (topic, features) of the papers whose phrase topic is confident: up to
    PAPERS_PER_VENUE per venue and PAPERS_PER_TOPIC per topic, by CRC of the abstract."""
    scorer = TopicScorer(lean=False)
    topics = [t.slug for t in scorer.taxonomy.topics if t.slug != OTHER]
    by_venue: dict[str, list[tuple[int, str, str]]] = {}
    for venue, crc, title, abstract in corpus_papers(corpus):
        by_venue.setdefault(venue, []).append((crc, title, abstract))
    picked: list[tuple[int, int, set[str]]] = []
    for venue, papers in sorted(by_venue.items()):
        for crc, title, abstract in sorted(papers)[:PAPERS_PER_VENUE]:
            headline, plain = paper_text(title, abstract)
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
        "about": "A topic lean learned from confident phrase matches (app/topics/lean.py). "
                 "A topic whose probability passes `threshold` adds up to `boost` to its "
                 "phrase score. Refit with `python -m app.topics.lean_fit` after editing "
                 "topics.json.",
        "boost": 3.0, "threshold": 0.3}
    topics, papers = confident_papers(corpus)
    terms, idf, weights, _ = fit(papers, len(topics), MIN_PAPERS)
    data["topics"] = topics
    data["terms"] = written_terms(terms, idf, weights)
    path.write_text(readable_json(data), encoding="utf-8")
    topic_lean.cache_clear()


def main() -> None:
    refit_command(train, __doc__)


if __name__ == "__main__":
    main()
