"""The live index generation, opened once per version (opened.OpenIndex) and reopened when a
newer generation is in place. Every use goes through one guard, `with_index`, which answers
as asked while no index has been built yet."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from app.search.generation import VERSION_FILE, open_held
from app.search.opened import OpenIndex
from app.search.whoosh_adapter import open_index

T = TypeVar("T")


class IndexUnavailable(RuntimeError):
    pass


class LiveIndex:
    """Holds the open index; checks at most every `check_interval` seconds for a newer one.

    By default at every use (a readlink and a stat): every worker then answers from the
    generation published last, so totals seen on two connections never go backwards.
    """

    def __init__(self, index_path: Path, check_interval: float = 0.0) -> None:
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
                held = open_held(Path(identity[0]), index.doc_count_all())
                self._open = OpenIndex(index, identity, **held)  # type: ignore[arg-type]
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
