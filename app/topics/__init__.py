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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.config import Settings
from app.search.words.analysis import analyze
from app.topics.families import family_model
from app.topics.lean import topic_lean
from app.topics.softmax import features

OTHER = "other"
MAX_PHRASE_TOKENS = 6
Tokens = tuple[str, ...]
PaperText = tuple[str, str, str | None]  # what a topic is scored from: headline, text, series


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
        return self.scores_of([(headline, text, series)])[0]

    def scores_of(self, papers: Sequence[PaperText]) -> list[list[tuple[str, float]]]:
        """`scores` of many papers (headline, text, series): the learned models read them in
        one sparse product each, which one paper at a time took a third of topic scoring."""
        analyzed = [(analyze(headline), analyze(text)) for headline, text, _ in papers]
        boosts = self._boosts(analyzed, [series for *_, series in papers])
        return [self._ranked(tokens, extra) for tokens, extra in zip(analyzed, boosts,
                                                                      strict=True)]

    def _boosts(self, analyzed: list[tuple[Tokens, Tokens]],
                series: list[str | None]) -> list[list[tuple[str, float]]]:
        """Each paper's boosts from the learned models. A paper of a vision, language,
        robotics or theory series takes its family's lean and nothing more; any other paper's
        words and pairs are read by both models, once."""
        families = family_model()
        leaning = list(map(families.leaning_topic, series))
        boosts = [[(topic, families.boost)] if topic else [] for topic in leaning]
        reading = [i for i, topic in enumerate(leaning) if not topic]
        if not reading:
            return boosts
        terms = [features(*analyzed[i]) for i in reading]
        lean = topic_lean() if self.lean else None
        for model in (families, lean) if lean is not None and lean.boost else (families,):
            for i, p in zip(reading, model.probabilities_of(terms), strict=True):
                boosts[i] += model.boosts(p)
        return boosts

    def _ranked(self, analyzed: tuple[Tokens, Tokens],
                boosts: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """The topics' scores from the phrases found in the tokens, and the boosts."""
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
        for slug, boost in boosts:
            if slug in self.slugs:
                totals[slug] += boost
        return sorted(((slug, round(score, 3)) for slug, score in totals.items()),
                      key=lambda pair: (-pair[1], pair[0]))

    def assign(self, headline: str, text: str,
               series: str | None = None) -> list[tuple[str, float]]:
        """The primary topic first, then up to two secondary ones, with their scores."""
        return self.assign_of([(headline, text, series)])[0]

    def assign_of(self, papers: Sequence[PaperText]) -> list[list[tuple[str, float]]]:
        """`assign` of many papers (headline, text, series), scored together."""
        return list(map(self._assigned, self.scores_of(papers)))

    def _assigned(self, ranked: list[tuple[str, float]]) -> list[tuple[str, float]]:
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
