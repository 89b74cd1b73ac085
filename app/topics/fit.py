"""Fitting the two learned models of topic assignment from the corpus, deterministically:

    .venv/bin/python -m app.topics.fit families [--corpus DIR]
    .venv/bin/python -m app.topics.fit lean [--corpus DIR]

`families` refits which kind of venue a paper reads like (families.py) from the papers of the
series each family names, into families.json; `lean` refits the topic lean (lean.py) from the
papers whose phrase topic is confident, into lean.json (about a minute). Both are a softmax
regression over the same features (`fit`). AAAI and IJCAI, whose areas measure the assignment
(bench/topics.py), are never read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from app.config import PROJECT_ROOT
from app.ids import series_slug
from app.ingest.normalize import normalize_abstract
from app.search.words.analysis import analyze
from app.tex import title_text
from app.topics import OTHER, TopicScorer
from app.topics.families import FAMILIES_FILE, Family, family_model
from app.topics.lean import LEAN_FILE, topic_lean
from app.topics.softmax import features

CORPUS = PROJECT_ROOT.parent / "shared" / "corpus"
# Their areas are the yardstick of bench/topics.py: a model that read them would be fitted
# to its own test.
EVALUATION_VENUES = frozenset({"AAAI", "IJCAI"})
# The family model: enough papers per family that rare families are not drowned by ICRA and
# IROS (36,000).
PAPERS_PER_FAMILY = 8000
# Words and pairs in fewer training papers are noise; 50 keeps ~10,000 and loses nothing
# against 5 on held-out papers of the families.
MIN_PAPERS = 50
EPOCHS = 5
LEARNING_RATE = 0.5
L2 = 1e-6
BATCH = 512
# The topic lean.
PAPERS_PER_VENUE = 4000  # ICRA and IROS alone have 36,000
PAPERS_PER_TOPIC = 3000
MIN_TOP = 6.0
MARGIN = 2.0
LEAN_MIN_PAPERS = 50


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


def train_families(corpus: Path, path: Path = FAMILIES_FILE) -> None:
    """Refit the family model on the corpus and write it into `path`, keeping the families."""
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


def train_lean(corpus: Path, path: Path = LEAN_FILE) -> None:
    """Refit the topic lean on the papers whose phrase topic is confident, into `path`."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {
        "about": "A topic lean learned from confident phrase matches (app/topics/lean.py). "
                 "A topic whose probability passes `threshold` adds up to `boost` to its "
                 "phrase score. Refit with `python -m app.topics.fit lean` after editing "
                 "topics.json.",
        "boost": 3.0, "threshold": 0.3}
    topics, papers = confident_papers(corpus)
    terms, idf, weights, _ = fit(papers, len(topics), LEAN_MIN_PAPERS)
    data["topics"] = topics
    data["terms"] = written_terms(terms, idf, weights)
    path.write_text(readable_json(data), encoding="utf-8")
    topic_lean.cache_clear()


TRAINERS = {"families": train_families, "lean": train_lean}


def main() -> None:
    parser = argparse.ArgumentParser(description="Refit a learned model of topic assignment.")
    parser.add_argument("model", choices=sorted(TRAINERS))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    arguments = parser.parse_args()
    TRAINERS[arguments.model](arguments.corpus)


if __name__ == "__main__":
    main()
