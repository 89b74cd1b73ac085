"""The facet table's columns (columns.py) read from an index, and one search's matches
filtered and counted by them: each facet's counts without its own filter, largest first."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.facets import BY_NAME, FACETS
from app.search.index.columns import FacetColumn, column_arrays, columns_of, read_columns
from app.search.index.held_files import mapped_arrays, write_array_directory
from app.search.index.whoosh import open_index
from app.search.rank import by_meaning

# The facet table's columns, in an index generation's directory (named anew when their layout
# changes: a generation written before is still served while the next is built, its columns
# made from the index).
COLUMNS_DIR = "facet_columns"


def write_facet_columns(directory: Path) -> None:
    """Write the facet table's columns of a committed index into its directory, once for
    every server worker that maps them (`mapped_facet_columns`)."""
    write_array_directory(directory / COLUMNS_DIR, _read(directory))


def _read(directory: Path) -> dict[str, np.ndarray]:
    """The arrays of the facet table's columns, from the index's own."""
    ix = open_index(directory)
    try:
        with ix.searcher() as searcher:
            return column_arrays(read_columns(
                searcher, [facet.name for facet in FACETS],
                {facet.name for facet in FACETS if facet.kind.several}))
    finally:
        ix.close()


def mapped_facet_columns(directory: Path) -> dict[str, FacetColumn]:
    """The columns `write_facet_columns` wrote, in the facet table's order (the sidebar's and
    the JSON's)."""
    columns = columns_of(mapped_arrays(directory / COLUMNS_DIR, lambda: _read(directory)))
    return {facet.name: columns[facet.name] for facet in FACETS if facet.name in columns}


def unknown_filters(columns: dict[str, FacetColumn],
                    filters: dict[str, object]) -> list[tuple[str, object]]:
    """The filters whose value no document has (a facet the index lacks has none)."""
    return [(name, value) for name, value in filters.items()
            if name not in columns or columns[name].code(value) < 0]


class FacetFilter:
    """The matches of one search (a mask over the documents) against the request's
    filters, each facet's counts computed without its own filter."""

    def __init__(self, columns: dict[str, FacetColumn], filters: dict[str, object],
                 docs: np.ndarray) -> None:
        self.columns = columns
        self.docs = docs
        # A filter on a facet the index lacks matches nothing, as a missing value would.
        self.masks = {name: columns[name].holding(value)
                      if name in columns else np.zeros(len(docs), dtype=bool)
                      for name, value in filters.items()}

    def allowed(self, skip: str | None = None, docs: np.ndarray | None = None) -> np.ndarray:
        """The documents (the matches, or `docs`) every filter but `skip`'s lets through."""
        mask = (self.docs if docs is None else docs).copy()
        for name, filter_mask in self.masks.items():
            if name != skip:
                mask &= filter_mask
        return mask

    def counts(self, joinable: np.ndarray | None = None) -> dict[str, list[tuple[object, int]]]:
        """Per facet, (value, matches) largest first, ignoring the facet's own filter so that
        its other values stay visible and clickable. With `joinable` (the papers a question
        or a description lists for their meaning: the `NEAR_PAPERS` closest of those its
        filters allow), a value counts as many of them as a click on it lists: the sidebar
        had said "Oral 18" where the click listed 117."""
        facets: dict[str, list[tuple[object, int]]] = {}
        numbers: dict[str | None, np.ndarray] = {}  # of the documents each facet counts
        near: dict[str | None, np.ndarray] = {}  # of the joinable ones
        for name, column in self.columns.items():
            skip = name if name in self.masks else None  # unfiltered, the same documents
            if skip not in numbers:
                numbers[skip] = np.flatnonzero(self.allowed(skip=skip))
                if joinable is not None:
                    near[skip] = np.flatnonzero(self.allowed(skip, joinable))
            counted = column.counted(numbers[skip])
            if joinable is not None:
                counted = counted + np.minimum(by_meaning.NEAR_PAPERS, column.counted(near[skip]))
            pairs = column.top(counted, BY_NAME[name].listed)
            if pairs:
                facets[name] = pairs
        return facets
