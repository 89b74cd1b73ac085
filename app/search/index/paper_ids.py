"""Each document's paper ID, written once per index generation and mapped by every worker
(generation.held()): held as a Python list and a dict by ID, they were ~14 MB of each worker's
own memory at L."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import numpy as np

from app.search.index.held_files import mapped_arrays, write_array_directory
from app.search.index.whoosh import open_index

IDS_DIR = "paper_ids"


def write_paper_ids(directory: Path) -> None:
    """Write the IDs of a committed index's documents into its directory."""
    write_array_directory(directory / IDS_DIR, _read(directory))


def _read(directory: Path) -> dict[str, np.ndarray]:
    """The IDs from the index's own column."""
    ix = open_index(directory)
    try:
        with ix.reader() as reader:  # an index of no documents has no column
            ids = np.array([paper_id.encode() for paper_id in reader.column_reader("id")]
                           if reader.has_column("id") else [], dtype=bytes)
    finally:
        ix.close()
    # Stable: an updated paper's IDs keep document order, its live (later) number last.
    return {"ids": ids, "order": np.argsort(ids, kind="stable")}


@dataclass(frozen=True)
class PaperIds(Sequence[str]):
    ids: np.ndarray  # each document's paper ID, UTF-8
    order: np.ndarray  # the document numbers sorted by ID

    @classmethod
    def mapped(cls, directory: Path) -> PaperIds:
        return cls(**mapped_arrays(directory / IDS_DIR, lambda: _read(directory)))

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, doc: int) -> str: ...

    @overload
    def __getitem__(self, docs: slice) -> list[str]: ...

    def __getitem__(self, doc: int | slice) -> str | list[str]:
        if isinstance(doc, slice):
            return [paper_id.decode() for paper_id in self.ids[doc]]
        return self.ids[doc].decode()

    def number(self, paper_id: str) -> int | None:
        """The paper's document number (its latest, when it was updated), or None."""
        key = paper_id.encode()
        at = bisect_right(self.order, key, key=lambda doc: self.ids[doc])
        return int(self.order[at - 1]) if at and self.ids[self.order[at - 1]] == key else None
