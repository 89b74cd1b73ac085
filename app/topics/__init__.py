"""Topic assignment: one taxonomy (ICLR's primary areas, in topics.json) for every venue.

Each topic is a set of weighted phrases. A paper's text is analyzed exactly as search analyzes
it (inflections folded, British→American spelling), so "optimisation" and "optimizations" both
hit the phrase "optimization"; "optimizer" does not. A topic scores the sum over its phrases
of weight × (1 + ln count), the headline (the title, or the first sentence where there is
none) counting twice, plus a boost to the topic of the kind of venue the paper comes from or
reads like (vision and language papers lean to applications, families.py) and a
lean learned from the phrases' confident calls (lean.py). The best topic is primary
when it reaches `min_score`, otherwise the paper goes to "other"; up to two more topics within
`secondary_share` of the best become secondary topics.

The package: this module assigns; families.py and lean.py are the two learned models it
reads, and fit.py refits them from the corpus (`python -m app.topics.fit families|lean`).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.config import Settings
from app.search.analysis import analyze
from app.topics.families import family_model, features
from app.topics.lean import topic_lean

OTHER = "other"
MAX_PHRASE_TOKENS = 6


@dataclass(frozen=True)
class Topic:
    slug: str
    name: str
    description: str
    phrases: dict[str, float]


@dataclass(frozen=True)
class Taxonomy:
    topics: list[Topic]
    min_score: float
    secondary_share: float

    def by_slug(self) -> dict[str, Topic]:
        return {topic.slug: topic for topic in self.topics}

    def topic(self, slug: str) -> Topic | None:
        return next((topic for topic in self.topics if topic.slug == slug), None)


_taxonomy_file = Settings.topics_file


def use_taxonomy(path: Path) -> None:
    """Take topics from this file from now on (the settings' `topics_file`): the CLI and the
    app call it once at start, as every page asks `load_taxonomy` for topic names."""
    global _taxonomy_file
    if path != _taxonomy_file:
        _taxonomy_file = path
        reload_taxonomy()


def load_taxonomy() -> Taxonomy:
    """The taxonomy in use (app/topics/topics.json unless the settings name another file)."""
    return _read_taxonomy(_taxonomy_file)


@lru_cache(maxsize=4)
def _read_taxonomy(path: Path) -> Taxonomy:
    data = json.loads(path.read_text(encoding="utf-8"))
    topics = [Topic(t["slug"], t["name"], t["description"], dict(t.get("phrases", {})))
              for t in data["topics"]]
    if OTHER not in {t.slug for t in topics}:
        topics.append(Topic(OTHER, "Other topics in machine learning",
                            "Papers that fit none of the areas above.", {}))
    return Taxonomy(topics, float(data.get("min_score", 2.0)),
                    float(data.get("secondary_share", 0.35)))


class TopicScorer:
    def __init__(self, taxonomy: Taxonomy | None = None, lean: bool = True) -> None:
        self.taxonomy = taxonomy or load_taxonomy()
        self.lean = lean  # the self-trained lean (lean.py); off while it is refit
        # analyzed phrase → [(topic slug, weight)]; the first tokens gate the n-gram scan
        self.phrases: dict[tuple[str, ...], list[tuple[str, float]]] = {}
        for topic in self.taxonomy.topics:
            for phrase, weight in topic.phrases.items():
                tokens = analyze(phrase)[:MAX_PHRASE_TOKENS]
                if tokens:
                    self.phrases.setdefault(tokens, []).append((topic.slug, float(weight)))
        # first token → the lengths of the phrases it starts: the scan tries only those
        self.lengths: dict[str, list[int]] = {}
        for tokens in self.phrases:
            self.lengths.setdefault(tokens[0], []).append(len(tokens))
        for lengths in self.lengths.values():
            lengths.sort()
        self.slugs = {topic.slug for topic in self.taxonomy.topics}

    def scores(self, headline: str, text: str,
               series: str | None = None) -> list[tuple[str, float]]:
        """Every topic with a positive score, best first; `series` is the slug of the paper's
        conference ("icra") when known."""
        analyzed = analyze(headline), analyze(text)
        counts: Counter[tuple[str, ...]] = Counter()
        for tokens in analyzed:
            for i, token in enumerate(tokens):
                for n in self.lengths.get(token, ()):
                    gram = tokens[i : i + n]
                    if len(gram) == n and gram in self.phrases:
                        counts[gram] += 1
        totals: Counter[str] = Counter()
        for gram, count in counts.items():
            for slug, weight in self.phrases[gram]:
                totals[slug] += weight * (1 + math.log(count))
        # A paper of a vision, language, robotics or theory series takes its family's lean and
        # nothing more; any other paper's words and pairs are read by both models, once.
        terms = features(*analyzed) if not family_model().leaning_topic(series) else None
        boosts = family_model().boosts(*analyzed, series, terms=terms)
        lean = topic_lean() if self.lean and terms is not None else None
        if lean is not None:
            boosts += lean.boosts(terms)
        for slug, boost in boosts:
            if slug in self.slugs:
                totals[slug] += boost
        return sorted(((slug, round(score, 3)) for slug, score in totals.items()),
                      key=lambda pair: (-pair[1], pair[0]))

    def assign(self, headline: str, text: str,
               series: str | None = None) -> list[tuple[str, float]]:
        """The primary topic first, then up to two secondary ones, with their scores."""
        ranked = self.scores(headline, text, series)
        if not ranked or ranked[0][1] < self.taxonomy.min_score:
            return [(OTHER, ranked[0][1] if ranked else 0.0)]
        best = ranked[0][1]
        return [ranked[0]] + [pair for pair in ranked[1:3]
                              if pair[1] >= self.taxonomy.secondary_share * best]


@lru_cache(maxsize=1)
def default_scorer() -> TopicScorer:
    return TopicScorer()


def reload_taxonomy() -> None:
    """Read topics.json again (it was edited): the next scorer and pages use the new one."""
    _read_taxonomy.cache_clear()
    default_scorer.cache_clear()
