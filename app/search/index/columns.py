"""Facet columns as arrays: each document's value of a facet (series, edition, year, topic,
status, code) as a small integer code, or its several values (institutions, countries) as a
run of codes.

Filtering the matches (a mask over the documents) by facet values and counting them per value
(filters.py) are then comparisons and `bincount`s in C: for "learning" at L (33,000 matches,
six facets each counted without its own filter) Python's Counter over the looked-up values
cost ~25 ms of a 50 ms search.

A column's values are sorted arrays (texts as prefix_table.SortedKeys, one UTF-8 text and
where each begins; years as integers), so that an index generation writes its columns once and
every server worker maps them (filters.py): read as Python objects, each worker held its own
124,000 author names and their lookup table. (As fixed-width bytes, the author names took 12 MB
of every worker's memory after a load, each page read by some search: 3.6 MB as one text.)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

import numpy as np
from whoosh.searching import Searcher

from app.search.words.prefix_table import SortedKeys


def _sorted_codes(values: list[object]) -> tuple[np.ndarray | SortedKeys, np.ndarray]:
    """The distinct values in order, and each value's code (its place there)."""
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        kept, codes = np.unique(np.array(values, dtype=np.int64), return_inverse=True)
        return kept, codes.astype(np.int32).reshape(-1)
    # UTF-8 bytes sort as their texts do
    written = np.array([str(v if v is not None else "").encode() for v in values], dtype=bytes)
    kept, codes = np.unique(written, return_inverse=True)
    return (SortedKeys.of([value.decode() for value in kept]),
            codes.astype(np.int32).reshape(-1))


@dataclass(frozen=True)
class FacetColumn:
    codes: np.ndarray  # int32 code per document number
    values: np.ndarray | SortedKeys  # each code's value, sorted; `value` reads one back

    @classmethod
    def of(cls, values: Iterable[object], count: int) -> FacetColumn:
        kept, codes = _sorted_codes(list(values))
        return cls(codes, kept)

    def value(self, code: int) -> object:
        value = self.values[code]
        return value if isinstance(value, str) else int(value)

    def decoded(self) -> list[object]:
        """Every code's value, as `value` reads it (for the few values of a small facet)."""
        return [self.value(code) for code in range(len(self.values))]

    def code(self, value: object) -> int:
        """The value's code, or -1 when no document has it."""
        if isinstance(self.values, SortedKeys):
            if not isinstance(value, str):
                return -1
            at = bisect_left(self.values, value)
        elif isinstance(value, int) and not isinstance(value, bool):
            at = int(np.searchsorted(self.values, value))
        else:
            return -1
        return at if at < len(self.values) and self.values[at] == value else -1

    def has_values(self) -> bool:
        # The empty value sorts first: if another is held, it is the first or the second.
        return any(self.value(code) != "" for code in range(min(len(self.values), 2)))

    def holding(self, value: object) -> np.ndarray:
        """Which documents have the value (a mask)."""
        return self.codes == self.code(value)

    def counted(self, docs: np.ndarray) -> np.ndarray:
        """How many of the documents (their numbers, in order) have each code."""
        return np.bincount(self.codes[docs], minlength=len(self.values))

    def top(self, counted: np.ndarray, listed: int | None) -> list[tuple[object, int]]:
        """The `listed` values (all when None) with most documents, ties by value; never the
        empty value."""
        # Over the counts' mask: flatnonzero over the author facet's 124,000 counts themselves
        # took 0.2 ms, over their mask 0.05.
        held = np.flatnonzero(counted > 0)
        if (empty := self.code("")) >= 0:
            held = held[held != empty]
        # An author facet has 124,000 values: only those that can reach the list are sorted
        # in Python, the ones counting at least the `listed`-th largest count. Of those tied
        # at that count, a text column's codes are in the order of its values, so the first
        # ones are those listed (else a search's 10,000 authors of one paper each were read,
        # and every page of the author column was in every worker's memory).
        if listed is not None and 0 < listed < len(held):
            least = np.partition(counted[held], len(held) - listed)[len(held) - listed]
            above, tied = held[counted[held] > least], held[counted[held] == least]
            if isinstance(self.values, SortedKeys):
                tied = tied[:listed - len(above)]
            held = np.concatenate((above, tied))
        pairs = [(self.value(code), int(counted[code])) for code in held]
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
        runs = [str(text).split() for text in values]
        lengths = np.fromiter(map(len, runs), dtype=np.int64, count=count)
        starts = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        kept, codes = _sorted_codes([value for run in runs for value in run])
        return cls(codes, kept, starts,
                   np.repeat(np.arange(count, dtype=np.int32), lengths))

    def holding(self, value: object) -> np.ndarray:
        held = np.zeros(len(self.starts) - 1, dtype=bool)
        held[self.owners[self.codes == self.code(value)]] = True
        return held

    def counted(self, docs: np.ndarray) -> np.ndarray:
        # Of fewer than half the documents, their runs of codes, read one after another: a mask
        # over every code (`owners`) cost the author facet's 349,000 a search, however few
        # documents matched (1 ms at L). Of more, the mask costs less (88,183: 3.1 against 5.2).
        if 2 * len(docs) > len(self.starts) - 1:
            held = np.zeros(len(self.starts) - 1, dtype=bool)
            held[docs] = True
            return np.bincount(self.codes[held[self.owners]], minlength=len(self.values))
        first = self.starts[docs]
        lengths = self.starts[docs + 1] - first
        places = np.repeat(first - np.cumsum(lengths) + lengths, lengths) + np.arange(
            lengths.sum())
        return np.bincount(self.codes[places], minlength=len(self.values))


def read_columns(searcher: Searcher, names: Iterable[str],
                 multi: Collection[str] = ()) -> dict[str, FacetColumn]:
    """The named columns the index has (those in `multi` hold several values a document)."""
    reader = searcher.reader()
    count = reader.doc_count_all()
    return {name: (MultiColumn if name in multi else FacetColumn).of(
                reader.column_reader(name), count)
            for name in names if name in searcher.schema and reader.has_column(name)}


def column_arrays(columns: dict[str, FacetColumn]) -> dict[str, np.ndarray]:
    """The columns' arrays by "name.part": what `write_array_directory` writes (texts as
    "name.texts" and "name.text_starts", integers as "name.values")."""
    arrays = {}
    for name, column in columns.items():
        for part in _PARTS[type(column)]:
            arrays[f"{name}.{part}"] = getattr(column, part)
        values = column.values
        arrays.update({f"{name}.texts": values.text, f"{name}.text_starts": values.starts}
                      if isinstance(values, SortedKeys) else {f"{name}.values": values})
    return arrays


def columns_of(arrays: dict[str, np.ndarray]) -> dict[str, FacetColumn]:
    """The columns whose arrays `column_arrays` gave (mapped, or in memory)."""
    names = sorted({name.split(".", 1)[0] for name in arrays})
    columns: dict[str, FacetColumn] = {}
    for name in names:
        kind = MultiColumn if f"{name}.starts" in arrays else FacetColumn
        values = (arrays[f"{name}.values"] if f"{name}.values" in arrays else
                  SortedKeys(arrays[f"{name}.texts"], arrays[f"{name}.text_starts"]))
        columns[name] = kind(values=values,
                             **{part: arrays[f"{name}.{part}"] for part in _PARTS[kind]})
    return columns


_PARTS = {FacetColumn: ("codes",), MultiColumn: ("codes", "starts", "owners")}


def as_mask(docs: np.ndarray, total: int) -> np.ndarray:
    """Document numbers as a mask over all `total` documents."""
    mask = np.zeros(total, dtype=bool)
    mask[docs] = True
    return mask
