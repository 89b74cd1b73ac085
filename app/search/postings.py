"""Postings in one shape: a term's postings in one segment (TermPostings), however they were
read, and a new segment's postings, collected document by document and sorted in bulk.

Whoosh's writer sends every posting through a pool of Python tuples that it sorts, spills to
disk and merges back (most of the time and memory of a full build, profiled). Here a field's
postings are appended to flat arrays as documents arrive (a term number, a document number,
a weight and the positions or the encoded value) and put in Whoosh's order (term bytes, then
document) by one stable numpy sort when the segment is written. The sorted form is the
layout of the posting arrays beside the index (app/search/arrays.py).
"""

from __future__ import annotations

import pickle
from array import array
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class TermPostings:
    """One term's postings in one segment, memory-mapped or decoded: document ids[k]
    (ascending) weighs weights[k] (the term's frequency, as Whoosh weighs it) and, in a
    positional field, holds the term at positions[bounds[k]:bounds[k + 1]]. The bounds need
    not start at 0: a slice of a field's arrays keeps the field's offsets."""

    ids: np.ndarray  # uint32
    weights: np.ndarray  # float32
    bounds: np.ndarray | None = None  # one more entry than ids
    positions: np.ndarray | None = None  # int32

    def __len__(self) -> int:
        return len(self.ids)

    def positions_of(self, doc: int) -> np.ndarray:
        """The term's positions in one document (empty when it does not hold the term)."""
        assert self.bounds is not None and self.positions is not None
        k = int(np.searchsorted(self.ids, doc))
        if k >= len(self.ids) or self.ids[k] != doc:
            return self.positions[:0]
        return self.positions[int(self.bounds[k]):int(self.bounds[k + 1])]


NO_POSTINGS = TermPostings(np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.float32),
                           np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))


@dataclass
class FieldPostings:
    """One field's postings in index order: term i's postings are ids[starts[i]:starts[i+1]]
    (ascending), posting k's positions are positions[bounds[k]:bounds[k+1]] (positional
    fields) and its encoded value values[k] (other fields)."""

    terms: list[bytes]
    starts: np.ndarray  # int64, one more entry than terms
    ids: np.ndarray  # uint32
    weights: np.ndarray  # float32
    bounds: np.ndarray | None = None  # int64, one more entry than postings
    positions: np.ndarray | None = None  # int32
    values: list[bytes] | None = None

    def term_range(self, i: int) -> tuple[int, int]:
        return int(self.starts[i]), int(self.starts[i + 1])

class FieldCollector:
    """A field's postings in arrival order. Documents arrive in ascending order."""

    def __init__(self, positional: bool, boost: float = 1.0) -> None:
        self.positional = positional
        self.boost = boost
        # a term's number: by its text (positional fields) or bytes (others, e.g. numbers)
        self.vocabulary: dict[str | bytes, int] = {}
        self.terms = array("I")
        self.docs = array("I")
        self.freqs = array("I")  # positional fields: how many positions each posting has
        self.positions = array("i")
        self.weights = array("d")  # other fields: each posting's weight, as Whoosh gives it
        self.values: list[bytes] = []

    def add_positions(self, doc: int, positions: dict[str, list[int]]) -> None:
        vocabulary = self.vocabulary
        number = vocabulary.setdefault
        self.terms.extend([number(text, len(vocabulary)) for text in positions])
        self.freqs.extend(map(len, positions.values()))
        self.positions.extend(chain.from_iterable(positions.values()))
        self.docs.extend([doc] * len(positions))

    def add_value(self, doc: int, term: bytes, weight: float, value: bytes) -> None:
        number = self.vocabulary.setdefault(term, len(self.vocabulary))
        self.terms.append(number)
        self.docs.append(doc)
        self.weights.append(weight)
        self.values.append(value)

    def __len__(self) -> int:
        return len(self.docs)

    def sorted(self) -> FieldPostings:
        """The postings in index order (term bytes, then document)."""
        numbers = ({text.encode("utf-8"): n for text, n in self.vocabulary.items()}
                   if self.positional else self.vocabulary)
        terms = sorted(numbers)  # Whoosh's order: by the terms' bytes
        rank = np.empty(len(terms), dtype=np.int64)
        rank[[numbers[term] for term in terms]] = np.arange(len(terms))
        keys = rank[as_numpy(self.terms, np.uint32)]
        order = np.argsort(keys, kind="stable")  # a term's documents stay ascending
        starts = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(np.bincount(keys, minlength=len(terms)), out=starts[1:])
        ids = as_numpy(self.docs, np.uint32)[order]
        if not self.positional:
            values = self.values
            return FieldPostings(terms, starts, ids,
                                 as_numpy(self.weights, np.float64)[order].astype(np.float32),
                                 values=[values[k] for k in order.tolist()])
        freqs = as_numpy(self.freqs, np.uint32).astype(np.int64)
        first = np.cumsum(freqs) - freqs  # where each posting's positions start, as arrived
        counts = freqs[order]  # each sorted posting's count of positions
        # Whoosh weighs a posting by its count of positions times the field's boost.
        weights = (counts * self.boost).astype(np.float32)
        bounds = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        # Position j of sorted posting k comes from first[order[k]] + (j - bounds[k]).
        shift = np.repeat(first[order] - bounds[:-1], counts)
        gather = shift + np.arange(int(bounds[-1]), dtype=np.int64)
        return FieldPostings(terms, starts, ids, weights, bounds,
                             as_numpy(self.positions, np.int32)[gather])


def as_numpy(values: array, dtype: type) -> np.ndarray:
    """The array's items viewed as numpy's (an empty array too)."""
    return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)


# --- runs: a build larger than memory ----------------------------------------------------------
# A build past its memory bound sets each field's postings aside, sorted, as a run on disk
# (arrays memory-mapped back) and collects anew; the segment is then written from all runs
# merged. Runs hold consecutive documents, so a term's merged postings are its postings in
# each run, one run after another: the very arrays one collector of every document gives,
# hence the same index bytes, without Whoosh's merge of segments (most of an ingest of 4× L).

_RUN_ARRAYS = ("starts", "ids", "weights", "bounds", "positions")


def save_run(target: Path, postings: FieldPostings) -> None:
    target.mkdir(parents=True)
    for name in _RUN_ARRAYS:
        if (array_ := getattr(postings, name)) is not None:
            np.save(target / f"{name}.npy", array_)
    with (target / "lists.pickle").open("wb") as out:
        pickle.dump((postings.terms, postings.values), out, protocol=pickle.HIGHEST_PROTOCOL)


def load_run(target: Path) -> FieldPostings:
    with (target / "lists.pickle").open("rb") as lists:
        terms, values = pickle.load(lists)
    # Plain arrays over the mapped files: each slice of a numpy memmap runs Python code.
    arrays = {name: np.asarray(np.load(target / f"{name}.npy", mmap_mode="r"))
              for name in _RUN_ARRAYS if (target / f"{name}.npy").exists()}
    return FieldPostings(terms, values=values, **arrays)


def merge_runs(runs: list[FieldPostings]) -> FieldPostings:
    """Runs of consecutive documents (each run's after the previous run's) as one field's
    postings in index order, as one collector of all their documents would sort them."""
    if len(runs) == 1:
        return runs[0]
    terms = sorted(set().union(*(run.terms for run in runs)))
    number = {term: i for i, term in enumerate(terms)}
    mapped = [np.fromiter((number[term] for term in run.terms), dtype=np.int64,
                          count=len(run.terms)) for run in runs]
    counts = np.zeros((len(runs), len(terms)), dtype=np.int64)
    for r, run in enumerate(runs):
        counts[r, mapped[r]] = np.diff(run.starts)
    starts = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=starts[1:])
    # Where each run's postings of a term go: after the earlier runs' postings of the term.
    firsts = starts[:-1] + np.cumsum(counts, axis=0) - counts
    places = [_plus_offsets(np.repeat(firsts[r, mapped[r]] - run.starts[:-1],
                                      np.diff(run.starts)), 0) for r, run in enumerate(runs)]
    total = int(starts[-1])
    merged = FieldPostings(terms, starts, np.empty(total, dtype=np.uint32),
                           np.empty(total, dtype=np.float32))
    for run, place in zip(runs, places, strict=True):
        merged.ids[place] = run.ids
        merged.weights[place] = run.weights
    if runs[0].positions is None:
        values: list[bytes] = [b""] * total
        for run, place in zip(runs, places, strict=True):
            for k, value in zip(place.tolist(), run.values or [], strict=True):
                values[k] = value
        merged.values = values
        return merged
    _merge_positions(merged, runs, places)
    return merged


def _merge_positions(merged: FieldPostings, runs: list[FieldPostings],
                     places: list[np.ndarray]) -> None:
    """Each posting's positions, moved with it."""
    sizes = np.empty(len(merged.ids), dtype=np.int64)
    for run, place in zip(runs, places, strict=True):
        assert run.bounds is not None
        sizes[place] = np.diff(run.bounds)
    merged.bounds = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=merged.bounds[1:])
    merged.positions = np.empty(int(merged.bounds[-1]), dtype=np.int32)
    for run, place in zip(runs, places, strict=True):
        assert run.bounds is not None and run.positions is not None
        own = np.diff(run.bounds)
        shift = np.repeat(merged.bounds[place] - run.bounds[:-1], own)
        merged.positions[_plus_offsets(shift, int(run.bounds[0]))] = run.positions


def _plus_offsets(shift: np.ndarray, first: int) -> np.ndarray:
    """shift[k] + first + k, in place: one array per posting or position fewer at the peak
    of writing a segment (the build's largest)."""
    shift += np.arange(first, first + len(shift), dtype=shift.dtype)
    return shift
