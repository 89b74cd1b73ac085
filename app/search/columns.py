"""Facet columns as arrays: each document's value of a facet (series, edition, year, topic,
status, code) as a small integer code, or its several values (institutions, countries) as a
run of codes, read once per opened index.

Filtering the matches (a mask over the documents) by facet values and counting them per value
(filters.py) are then comparisons and `bincount`s in C: for "learning" at L (33,000 matches,
six facets each counted without its own filter) Python's Counter over the looked-up values
cost ~25 ms of a 50 ms search.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from whoosh.searching import Searcher


@dataclass(frozen=True)
class FacetColumn:
    codes: np.ndarray  # int32 code per document number
    values: list[object]  # the value of each code

    @classmethod
    def of(cls, values: Iterable[object], count: int) -> FacetColumn:
        index: dict[object, int] = {}
        codes = np.fromiter((index.setdefault(v, len(index)) for v in values),
                            dtype=np.int32, count=count)
        return cls(codes, list(index))

    def code(self, value: object) -> int:
        """The value's code, or -1 when no document has it."""
        return self._codes.get(value, -1)

    @cached_property
    def _codes(self) -> dict[object, int]:  # thousands of institutions: not a list search
        return {value: code for code, value in enumerate(self.values)}

    def has_values(self) -> bool:
        return any(v not in ("", None) for v in self.values)

    def holding(self, value: object) -> np.ndarray:
        """Which documents have the value (a mask)."""
        return self.codes == self.code(value)

    def counted(self, docs: np.ndarray) -> np.ndarray:
        """How many of the documents (a mask) have each code."""
        return np.bincount(self.codes[docs], minlength=len(self.values))

    def top(self, counted: np.ndarray, listed: int | None) -> list[tuple[object, int]]:
        """The `listed` values (all when None) with most documents, ties by value; never the
        empty value."""
        counted = counted.copy()
        for empty in ("", None):
            if (code := self.code(empty)) >= 0:
                counted[code] = 0
        held = np.flatnonzero(counted)
        # An author facet has 124,000 values: only those that can reach the list are sorted
        # in Python, the ones counting at least the `listed`-th largest count (ties kept).
        if listed is not None and 0 < listed < len(held):
            least = np.partition(counted[held], len(held) - listed)[len(held) - listed]
            held = held[counted[held] >= least]
        pairs = [(self.values[code], int(counted[code])) for code in held]
        pairs.sort(key=lambda kv: (-kv[1], str(kv[0])))
        return pairs[:listed]


@dataclass(frozen=True)
class MultiColumn(FacetColumn):
    """Several values per document, written space-separated: document d's codes are
    codes[starts[d]:starts[d + 1]] (`owners` gives each code's document)."""

    starts: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    owners: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @classmethod
    def of(cls, values: Iterable[object], count: int) -> MultiColumn:
        index: dict[object, int] = {}
        runs = [[index.setdefault(v, len(index)) for v in str(text).split()] for text in values]
        lengths = np.fromiter(map(len, runs), dtype=np.int64, count=count)
        starts = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        codes = np.fromiter((c for run in runs for c in run), dtype=np.int32,
                            count=int(starts[-1]))
        return cls(codes, list(index), starts, np.repeat(np.arange(count), lengths))

    def holding(self, value: object) -> np.ndarray:
        held = np.zeros(len(self.starts) - 1, dtype=bool)
        held[self.owners[self.codes == self.code(value)]] = True
        return held

    def counted(self, docs: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes[docs[self.owners]], minlength=len(self.values))


def read_columns(searcher: Searcher, names: Iterable[str],
                 multi: Collection[str] = ()) -> dict[str, FacetColumn]:
    """The named columns the index has (those in `multi` hold several values a document)."""
    reader = searcher.reader()
    count = reader.doc_count_all()
    return {name: (MultiColumn if name in multi else FacetColumn).of(
                reader.column_reader(name), count)
            for name in names if name in searcher.schema and reader.has_column(name)}


def as_mask(docs: np.ndarray, total: int) -> np.ndarray:
    """Document numbers as a mask over all `total` documents."""
    mask = np.zeros(total, dtype=bool)
    mask[docs] = True
    return mask
