"""Which kind of venue a paper reads like: vision, language, robotics, learning theory or
general machine learning, learned from the series that publish each kind.

Phrases alone miss that a detection or parsing paper at a general venue is an application
paper: its text names a method (contrastive, transformer, domain adaptation) more often than
its domain. A CVPR paper, whatever its method, is an application to vision; so the series
name is a label that costs nothing. A linear model over a paper's words and word pairs,
trained on papers of those series, says how much a paper reads like each kind, and
`TopicScorer` adds a boost to the kind's topic when it is the likely one.

    .venv/bin/python -m app.topics.families [--corpus DIR]

retrains it from the corpus into app/topics/families.json. Only papers of the series named in
that file are read: AAAI and IJCAI, whose areas measure the assignment (bench/topics.py), are
in no family and are refused by name.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.config import PROJECT_ROOT
from app.ids import series_slug
from app.ingest.normalize import normalize_abstract
from app.search.analysis import analyze
from app.tex import title_text

FAMILIES_FILE = Path(__file__).with_name("families.json")
CORPUS = PROJECT_ROOT.parent / "shared" / "corpus"
# Their areas are the yardstick of bench/topics.py: a model that read them would be fitted
# to its own test.
EVALUATION_VENUES = frozenset({"AAAI", "IJCAI"})
# Enough papers per family that rare families are not drowned by ICRA and IROS (36,000).
PAPERS_PER_FAMILY = 8000
# Words and pairs in fewer training papers are noise; 50 keeps ~10,000 and loses nothing
# against 5 on held-out papers of the families.
MIN_PAPERS = 50
EPOCHS = 5
LEARNING_RATE = 0.5
L2 = 1e-6
BATCH = 512


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
    the topic lean of lean.py."""

    def __init__(self, terms: dict[str, int], idf: np.ndarray, weights: np.ndarray,
                 bias: np.ndarray) -> None:
        self.terms, self.idf, self.weights, self.bias = terms, idf, weights, bias
        self.vocabulary = frozenset(terms)

    def probabilities(self, terms: set[str]) -> np.ndarray:
        """The probability of each class for a paper of these `features`."""
        # Most of a paper's terms are unknown to the model: a set intersection drops them
        # at C speed.
        ids = list(map(self.terms.__getitem__, self.vocabulary.intersection(terms)))
        logits = self.bias.copy()
        if ids:
            x = self.idf[ids]
            logits += (x / np.sqrt(x @ x)) @ self.weights[ids]
        odds = np.exp(logits - logits.max())
        return odds / odds.sum()


class FamilyModel(SoftmaxRegression):
    """Which family's series a paper reads like, and the topic boosts that follow."""

    def __init__(self, families: list[Family], terms: dict[str, int], idf: np.ndarray,
                 weights: np.ndarray, bias: np.ndarray, boost: float, threshold: float) -> None:
        super().__init__(terms, idf, weights, bias)
        self.families = families
        self.boost, self.threshold = boost, threshold
        self.family_of_series = {series_slug(s): i for i, f in enumerate(families)
                                 for s in f.series}

    def leaning_topic(self, series: str | None) -> str | None:
        """The topic a paper of this series leans to for certain (its family's), if any: then
        `boosts` reads no text."""
        family = self.family_of_series.get(series or "")
        return None if family is None else self.families[family].topic

    def boosts(self, headline: Sequence[str], text: Sequence[str],
               series: str | None = None, terms: set[str] | None = None
               ) -> list[tuple[str, float]]:
        """Topic boosts: `boost` for a family that is certain, nothing below `threshold`,
        linear between (a paper equally like two families leans to neither). A paper of a
        family's series (by slug: "cvpr") is certain of it: the text model only guesses the
        series; a general series (NeurIPS) says nothing, so its papers are read. `terms`: the
        paper's `features` when the caller has them."""
        leaning = self.leaning_topic(series)
        if leaning:
            return [(leaning, self.boost)]
        p = self.probabilities(terms if terms is not None else features(headline, text))
        return [(family.topic,
                 float(self.boost * (p[i] - self.threshold) / (1 - self.threshold)))
                for i, family in enumerate(self.families)
                if family.topic and p[i] > self.threshold]


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


def written_terms(terms: dict[str, int], idf: np.ndarray,
                  weights: np.ndarray) -> dict[str, list[float]]:
    """The terms as a model file keeps them: IDF then one weight per class, rounded."""
    return {t: [round(float(idf[i]), 2)] + [round(float(w), 3) for w in weights[i]]
            for t, i in terms.items()}


def corpus_papers(corpus: Path) -> Iterator[tuple[str, int, str, str]]:
    """(venue, CRC of the abstract, title, abstract) of every corpus paper a model may train
    on: never those of the venues whose areas evaluate the topics."""
    for path in sorted(corpus.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as rows:
            for line in rows:
                row = json.loads(line)
                if row["venue"] not in EVALUATION_VENUES:
                    yield (row["venue"], zlib.crc32(row["abstract"].encode()),
                           row.get("title") or "", row["abstract"])


def paper_text(title: str, abstract: str) -> tuple[str, str]:
    """A corpus paper's headline and plain text, as ingest makes them for the scorer."""
    plain = normalize_abstract(abstract).plain
    return title_text(title) or plain[:200], plain


def training_papers(corpus: Path, families: list[Family]) -> list[tuple[int, set[str]]]:
    """(family, features) for up to PAPERS_PER_FAMILY papers of each family, the same ones
    on every run (the smallest CRC of the abstract), so that years and series mix."""
    family_of = {s: i for i, f in enumerate(families) for s in f.series}
    if EVALUATION_VENUES & family_of.keys():
        raise ValueError(f"{sorted(EVALUATION_VENUES & family_of.keys())} are for evaluation")
    picked = sorted((family_of[venue], crc, title, abstract)
                    for venue, crc, title, abstract in corpus_papers(corpus)
                    if venue in family_of)
    papers: list[tuple[int, set[str]]] = []
    taken: Counter[int] = Counter()
    for family, _, title, abstract in picked:
        if taken[family] < PAPERS_PER_FAMILY:
            taken[family] += 1
            headline, plain = paper_text(title, abstract)
            papers.append((family, features(analyze(headline), analyze(plain))))
    return papers


def fit(papers: list[tuple[int, set[str]]], classes: int, min_papers: int = MIN_PAPERS
        ) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray]:
    """Terms (seen in at least `min_papers`), IDF, weights and bias of a softmax regression
    (AdaGrad, fixed seed)."""
    df: Counter[str] = Counter()
    for _, terms_of_paper in papers:
        df.update(terms_of_paper)
    terms = {t: i for i, t in enumerate(sorted(t for t, n in df.items() if n >= min_papers))}
    idf = np.array([math.log(len(papers) / df[t]) for t in terms])
    encoded = []
    for _, terms_of_paper in papers:
        ids = np.array(sorted(terms[t] for t in terms_of_paper if t in terms), dtype=np.int64)
        encoded.append((ids, idf[ids] / (np.linalg.norm(idf[ids]) or 1.0)))
    labels = np.array([family for family, _ in papers])
    weights, bias = np.zeros((len(terms), classes)), np.zeros(classes)
    squares, bias_squares = np.full_like(weights, 1e-8), np.full(classes, 1e-8)
    rng = np.random.default_rng(0)
    for _ in range(EPOCHS):
        order = rng.permutation(len(papers))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            ids = np.concatenate([encoded[i][0] for i in batch])
            x = np.concatenate([encoded[i][1] for i in batch])
            doc = np.repeat(np.arange(len(batch)), [len(encoded[i][0]) for i in batch])
            logits = np.zeros((len(batch), classes))
            np.add.at(logits, doc, weights[ids] * x[:, None])
            logits += bias
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(batch)), labels[batch]] -= 1  # now the gradient of the loss
            rows, at = np.unique(ids, return_inverse=True)
            grad = np.zeros((len(rows), classes))
            np.add.at(grad, at, p[doc] * x[:, None])
            grad = grad / len(batch) + L2 * weights[rows]
            squares[rows] += grad * grad
            weights[rows] -= LEARNING_RATE * grad / np.sqrt(squares[rows])
            bias_grad = p.mean(axis=0)
            bias_squares += bias_grad * bias_grad
            bias -= LEARNING_RATE * bias_grad / np.sqrt(bias_squares)
    return terms, idf, weights, bias


def train(corpus: Path, path: Path = FAMILIES_FILE) -> None:
    """Refit the model on the corpus and write it into `path`, keeping the families."""
    data = json.loads(path.read_text(encoding="utf-8"))
    families = [Family(f["name"], tuple(f["series"]), f.get("topic")) for f in data["families"]]
    terms, idf, weights, bias = fit(training_papers(corpus, families), len(families))
    data["bias"] = [round(float(b), 3) for b in bias]
    data["terms"] = written_terms(terms, idf, weights)
    path.write_text(readable_json(data), encoding="utf-8")
    family_model.cache_clear()


def readable_json(data: dict[str, object]) -> str:
    """The model file with one family and one term a line: diffs say which terms moved."""
    def items(value: object) -> str:
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return "[\n  " + ",\n  ".join(json.dumps(v) for v in value) + "\n ]"
        if isinstance(value, dict):
            return "{\n  " + ",\n  ".join(f"{json.dumps(k, ensure_ascii=False)}: "
                                          f"{json.dumps(v)}" for k, v in value.items()) + "\n }"
        return json.dumps(value, ensure_ascii=False)
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {items(v)}" for k, v in data.items()) + "\n}\n"


def refit_command(train: Callable[[Path], None], doc: str) -> None:
    """`python -m` of a model's module: refit it on the corpus (or `--corpus DIR`)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    train(parser.parse_args().corpus)


def main() -> None:
    refit_command(train, __doc__)


if __name__ == "__main__":
    main()
