"""The live index generation, opened once per version: a Whoosh searcher per request thread,
the facet columns, paper IDs, vocabulary, completions, acronyms, edition terms, paper
vectors and map read beside it, reopened when a newer generation is in place. Every use goes through
one guard, `with_index`, which answers as asked while no index has been built yet."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypeVar

import numpy as np
from whoosh import index as whoosh_index
from whoosh.searching import Searcher

from app.facets import FACETS
from app.search import bm25
from app.search.acronyms import Meaning
from app.search.columns import FacetColumn
from app.search.completions import Completions
from app.search.expand import Synonyms
from app.search.filters import read_facet_columns
from app.search.generation import open_held
from app.search.index import VERSION_FILE
from app.search.vectors import Model, read_model
from app.search.vocabulary import Vocabulary
from app.search.whoosh_adapter import open_index
from app.whats_new.edition_terms import EditionTerms

T = TypeVar("T")


class IndexUnavailable(RuntimeError):
    pass


@dataclass
class OpenIndex:
    """One version of the index, its facet columns, and a searcher for each thread.

    Whoosh searchers are not safe to share between threads; opening one on a segment written
    with compound=False costs about a millisecond, so every request thread gets its own and
    no request waits for another's search.
    """

    index: whoosh_index.Index
    identity: tuple[str, float]
    columns: dict[str, FacetColumn]  # facet name → value per document number
    ids: list[str]  # paper ID per document number (Whoosh's stored fields unpickle a dict)
    # What the generation holds beside Whoosh's files (generation.HELD), as opened.
    vocabulary: Vocabulary
    completions: Completions
    meanings: list[Meaning]  # acronyms learned from the catalog
    edition_terms: EditionTerms
    vectors: np.ndarray | None  # unit paper vectors by document number (vectors.py)
    positions: np.ndarray | None  # places on the map, by document number (layout.py)
    local: threading.local = field(default_factory=threading.local)
    synonyms: Synonyms = field(init=False)

    def __post_init__(self) -> None:
        self.synonyms = Synonyms.of(self.meanings)

    @cached_property
    def document_numbers(self) -> dict[str, int]:
        return {paper_id: doc for doc, paper_id in enumerate(self.ids)}

    @cached_property
    def with_vectors(self) -> np.ndarray:
        """The documents that have a vector (deleted ones have none): related papers' field."""
        return (np.flatnonzero(self.vectors.any(axis=1)) if self.vectors is not None
                else np.zeros(0, np.int64))

    @cached_property
    def vector_model(self) -> Model | None:
        """What projects a text beside the papers' vectors (pasted texts), where they exist."""
        return read_model(Path(self.identity[0])) if self.vectors is not None else None

    @cached_property
    def live(self) -> np.ndarray:
        """The documents that have a place on the map (deleted ones have none)."""
        return ~np.isnan(self.positions[:, 0]) if self.positions is not None else np.zeros(0, bool)

    @property
    def searcher(self) -> Searcher:
        searcher = getattr(self.local, "searcher", None)
        if searcher is None:
            searcher = self.local.searcher = self.index.searcher(weighting=bm25.weighting())
        return searcher


class LiveIndex:
    """Holds the open index; checks at most every `check_interval` seconds for a newer one."""

    def __init__(self, index_path: Path, check_interval: float = 1.0) -> None:
        self.index_path = index_path
        self.check_interval = check_interval
        self._lock = threading.Lock()
        self._open: OpenIndex | None = None
        self._checked_at = 0.0

    def index_identity(self) -> tuple[str, float] | None:
        """Which index generation is live: its directory and when its version was written."""
        try:
            target = self.index_path.resolve(strict=True)
            return str(target), (target / VERSION_FILE).stat().st_mtime
        except OSError:
            return None

    def _current(self) -> OpenIndex:
        """The open index, reopened when a newer one is in place (checked every interval)."""
        with self._lock:
            now = time.monotonic()
            if self._open is not None and now - self._checked_at < self.check_interval:
                return self._open
            self._checked_at = now
            identity = self.index_identity()
            if identity is None:
                if self._open is not None:
                    return self._open
                raise IndexUnavailable("the search index has not been built yet")
            if self._open is None or identity != self._open.identity:
                # Threads still searching the previous version finish on their own searchers.
                index = open_index(identity[0])
                with index.searcher() as searcher:
                    columns = read_facet_columns(searcher, FACETS)
                    ids = list(searcher.reader().column_reader("id"))
                held = open_held(Path(identity[0]), len(ids))
                self._open = OpenIndex(index, identity, columns, ids, **held)  # type: ignore[arg-type]
                _kept_out_of_collections()
            return self._open

    def close(self) -> None:
        with self._lock:
            self._open = None

    def opened(self) -> tuple[str, float] | None:
        """The identity of the index generation open now (None before the first)."""
        current = self._open
        return None if current is None else current.identity

    def warm(self) -> None:
        """Open the live index generation now, if it is new (0.8 s at L), so that a reader's
        first search after a start or an update does not wait for it."""
        self.with_index(lambda current: None, None)

    def with_index(self, work: Callable[[OpenIndex], T], unavailable: T) -> T:
        """`work` on the live index, or `unavailable` before any index was built."""
        try:
            current = self._current()
        except IndexUnavailable:
            return unavailable
        return work(current)


def _kept_out_of_collections() -> None:
    """Move what the process holds now (its modules, the index just opened) out of the cyclic
    collector's passes. A full pass walked it all, about 0.2 s at L holding the interpreter
    lock, and requests that allocate much (the map's points, downloads) set one off every few
    seconds: /healthz waited behind them (docs/performance.md). None of it is cyclic garbage
    when a newer generation replaces it: reference counting frees it."""
    gc.collect()  # what is garbage already is freed, not kept for good
    gc.freeze()
