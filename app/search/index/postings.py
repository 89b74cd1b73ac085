"""Postings in one shape: a term's postings in one segment (TermPostings), however they were
read, and a new segment's postings, collected document by document and sorted in bulk.

Whoosh's writer sends every posting through a pool of Python tuples that it sorts, spills to
disk and merges back (most of the time and memory of a full build, profiled). Here a field's
postings are appended to flat arrays as documents arrive (a term number, a document number,
a weight and the positions or the encoded value) and put in Whoosh's order (term bytes, then
document) by one stable numpy sort when a run of them is set aside or the segment is written.
The sorted form is the layout of the posting arrays beside the index (app/search/index/arrays.py).
"""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Iterator
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
    weights: np.ndarray  # float32 (float16 from the arrays: a frequency times a boost)
    bounds: np.ndarray | None = None  # one more entry than ids
    positions: np.ndarray | None = None  # int32 (uint16 from the arrays)

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

    def part(self, name: str, first: int, last: int | None) -> np.ndarray:
        """A range of one of the arrays, as a run on disk reads it (RunOnDisk.part)."""
        return getattr(self, name)[first:last]


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

    def drain(self) -> FieldPostings:
        """The postings in index order (term bytes, then document), leaving the collector
        empty: each array as they arrived goes once read, not beside its sorted copy (the
        peak of a build's memory)."""
        numbers = ({text.encode("utf-8"): n for text, n in self.vocabulary.items()}
                   if self.positional else self.vocabulary)
        self.vocabulary = {}
        terms = sorted(numbers)  # Whoosh's order: by the terms' bytes
        rank = np.empty(len(terms), dtype=np.int32)
        rank[[numbers[term] for term in terms]] = np.arange(len(terms), dtype=np.int32)
        keys = rank[as_numpy(self.terms, np.uint32)]
        self.terms = array("I")
        order = np.argsort(keys, kind="stable")  # a term's documents stay ascending
        starts = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(np.bincount(keys, minlength=len(terms)), out=starts[1:])
        del keys
        ids = as_numpy(self.docs, np.uint32)[order]
        self.docs = array("I")
        if not self.positional:
            weights = as_numpy(self.weights, np.float64)[order].astype(np.float32)
            values, self.weights, self.values = self.values, array("d"), []
            return FieldPostings(terms, starts, ids, weights,
                                 values=[values[k] for k in order.tolist()])
        freqs = as_numpy(self.freqs, np.uint32).astype(np.int64)
        self.freqs = array("I")
        firsts = (np.cumsum(freqs) - freqs)[order]  # where each posting's positions arrived
        counts = freqs[order]  # each sorted posting's count of positions
        del freqs, order
        # Whoosh weighs a posting by its count of positions times the field's boost.
        weights = (counts * self.boost).astype(np.float32)
        bounds = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        del counts
        arrived, self.positions = self.positions, array("i")
        return FieldPostings(terms, starts, ids, weights, bounds,
                             _moved_positions(as_numpy(arrived, np.int32), firsts, bounds))


def _moved_positions(arrived: np.ndarray, firsts: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The positions of postings in their new order: posting k's come from `arrived` at
    firsts[k]. Gathered a slice of postings at a time: two int64 arrays per position of the
    whole run were the peak of a build's memory."""
    moved = np.empty(int(bounds[-1]), dtype=np.int32)
    for a in range(0, len(firsts), MERGE_CHUNK):
        b = min(a + MERGE_CHUNK, len(firsts))
        # Position j of posting k comes from firsts[k] + (j - bounds[k]).
        shift = np.repeat(firsts[a:b] - bounds[a:b], np.diff(bounds[a:b + 1]))
        moved[bounds[a]:bounds[b]] = arrived[_plus_offsets(shift, int(bounds[a]))]
    return moved


def as_numpy(values: array, dtype: type) -> np.ndarray:
    """The array's items viewed as numpy's (an empty array too)."""
    return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)


# --- runs: a build larger than memory ----------------------------------------------------------
# A build past its memory bound sets each field's postings aside, sorted, as a run on disk and
# collects anew; the segment is then written from all runs merged, a range of terms at a time.
# Runs hold consecutive documents, so a term's merged postings are its postings in each run,
# one run after another: the very arrays one collector of every document gives, hence the
# same index bytes, without Whoosh's merge of segments (most of an ingest of 4× L), and with
# the memory of a range of terms, not of the field.

_RUN_ARRAYS = ("starts", "ids", "weights", "bounds", "positions")
MERGE_CHUNK = 1 << 21  # postings merged and written at once


def save_run(target: Path, postings: FieldPostings) -> None:
    target.mkdir(parents=True)
    for name in _RUN_ARRAYS:
        if (array_ := getattr(postings, name)) is not None:
            np.save(target / f"{name}.npy", array_)
    with (target / "lists.pickle").open("wb") as out:
        pickle.dump((postings.terms, postings.values), out, protocol=pickle.HIGHEST_PROTOCOL)


class RunOnDisk:
    """A run set aside: its terms and their starts in memory, its postings read a range at a
    time (a mapping of the whole files would count every page read in the build's memory)."""

    def __init__(self, target: Path) -> None:
        with (target / "lists.pickle").open("rb") as lists:
            self.terms, self.values = pickle.load(lists)
        self.target = target
        self.starts = np.load(target / "starts.npy")

    def part(self, name: str, first: int, last: int | None) -> np.ndarray:
        mapped = np.load(self.target / f"{name}.npy", mmap_mode="r")
        return np.array(mapped[first:last])  # a copy: the mapping goes with `mapped`


def term_slice(source: FieldPostings | RunOnDisk, lo: int, hi: int) -> FieldPostings:
    """Terms lo to hi - 1 of the source and their postings (starts and bounds from 0)."""
    first, last = int(source.starts[lo]), int(source.starts[hi])
    terms, starts = source.terms[lo:hi], source.starts[lo:hi + 1] - first
    ids, weights = source.part("ids", first, last), source.part("weights", first, last)
    if source.values is not None:
        return FieldPostings(terms, starts, ids, weights, values=source.values[first:last])
    bounds = source.part("bounds", first, last + 1)
    return FieldPostings(terms, starts, ids, weights, bounds - bounds[0],
                         source.part("positions", int(bounds[0]), int(bounds[-1])))


class MergedRuns:
    """Runs of consecutive documents (each run's after the previous run's) merged into one
    field's postings in index order, as one collector of all their documents would sort
    them: the terms and totals at once, the postings a range of terms at a time."""

    def __init__(self, runs: list[FieldPostings | RunOnDisk]) -> None:
        self.runs = runs
        if len(runs) == 1:
            self.terms = runs[0].terms
            self.mapped = [np.arange(len(self.terms), dtype=np.int64)]
        else:
            self.terms = sorted(set().union(*(run.terms for run in runs)))
            number = {term: i for i, term in enumerate(self.terms)}
            self.mapped = [np.fromiter((number[term] for term in run.terms), dtype=np.int64,
                                       count=len(run.terms)) for run in runs]
        per_term = np.zeros(len(self.terms), dtype=np.int64)
        for run, mapped in zip(runs, self.mapped, strict=True):
            per_term[mapped] += np.diff(run.starts)
        self.ends = np.cumsum(per_term)  # postings up to each term's last
        self.postings = int(self.ends[-1]) if len(self.ends) else 0
        self.positions = sum(int(run.part("bounds", int(run.starts[-1]), None)[0])
                             for run in runs if run.values is None)

    def chunks(self) -> Iterator[FieldPostings]:
        """The merged postings, about `MERGE_CHUNK` at a time, in order (a term is never
        split)."""
        lo, ends = 0, self.ends
        while lo < len(self.terms):
            before = int(ends[lo - 1]) if lo else 0
            hi = max(lo + 1, int(np.searchsorted(ends, before + MERGE_CHUNK, side="right")))
            parts = [term_slice(run, *np.searchsorted(mapped, [lo, hi]).tolist())
                     for run, mapped in zip(self.runs, self.mapped, strict=True)]
            yield merge_runs([part for part in parts if part.terms])
            lo = hi


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
