"""The live index generation, opened once per version (opened.OpenIndex) and reopened when a
newer generation is in place. Every use goes through one guard, `with_index`, which answers
as asked while no index has been built yet, or while the only one is damaged.

A generation is checked against its manifest (manifest.py) before it is opened, and again at
every `warm` (the keeper's few seconds): a damaged one is never opened, and one found damaged
while open is dropped; the previous one, when this process has it, is served meanwhile. Where
only files made again alone are damaged (the sentence vectors, the map: generation.
damaged_parts), the generation is opened without them, so search by words goes on.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from app.search.index.generation import (
    VERSION_FILE,
    PartsNotRegistered,
    damaged_parts,
    open_held,
)
from app.search.index.manifest import DAMAGED_FILE, mark_damaged, verify
from app.search.index.opened import Identity, OpenIndex
from app.search.index.whoosh import open_index

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
        # What is wrong with the live generation, while it is not served (None: nothing), or
        # served without what it names (`OpenIndex.without`: damaged, made again alone).
        self.problem: str | None = None

    def index_identity(self) -> Identity | None:
        """Which index generation is live: its directory, when its version was written, and
        when damage was marked in it: found damaged, it is opened again by every worker
        (without what is made again alone), and nothing kept from its full opening (results,
        pages, their ETags) is served for it."""
        try:
            target = self.index_path.resolve(strict=True)
            version = (target / VERSION_FILE).stat().st_mtime
        except OSError:
            return None
        try:
            damaged = (target / DAMAGED_FILE).stat().st_mtime
        except OSError:
            damaged = 0.0
        return str(target), version, damaged

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
                opened = self._opened(identity)
                if opened is None:  # damaged: the previous generation, if any, goes on
                    if self._open is not None:
                        return self._open
                    raise IndexUnavailable(self.problem)
                self._open = opened
            return self._open

    def _opened(self, identity: Identity) -> OpenIndex | None:
        """The generation opened (without what is damaged there and made again alone), or
        None when it is damaged elsewhere (`problem` says how)."""
        directory = Path(identity[0])
        self.problem = verify(directory)
        without = damaged_parts(directory)
        if without is None:
            return None
        try:
            index = open_index(directory)
            held = open_held(directory, index.doc_count_all(), without)
        except PartsNotRegistered:  # this process's fault, not the generation's
            raise
        except Exception as error:  # noqa: BLE001 - what no manifest lists (or none exists)
            self.problem = mark_damaged(directory, f"the index generation {directory.name} "
                                                   f"could not be opened: {error}")
            return None
        # Threads still searching the previous version finish on their own searchers.
        opened = OpenIndex(index, identity, **held, without=without)  # type: ignore[arg-type]
        _kept_out_of_collections()
        return opened

    def check_damage(self) -> None:
        """Check the open generation's files again (only those changed since: manifest.py);
        one damaged since it was opened is dropped, so that no request reads the damage."""
        current = self._open
        if current is None:
            return
        directory = Path(current.identity[0])
        verify(directory)
        damaged = damaged_parts(directory)
        if damaged is None or not set(damaged) <= set(current.without):
            with self._lock:
                if self._open is current:
                    self._open = None

    def close(self) -> None:
        with self._lock:
            self._open = None

    def opened(self) -> Identity | None:
        """The identity of the index generation open now (None before the first)."""
        current = self._open
        return None if current is None else current.identity

    def warm(self) -> None:
        """Check the open generation for damage, and open the live one now, if it is new (0.8
        s at L), so that a reader's first search after a start or an update does not wait."""
        self.check_damage()
        self.with_index(lambda current: None, None)

    def with_index(self, work: Callable[[OpenIndex], T], unavailable: T) -> T:
        """`work` on the live index, or `unavailable` before any index was built."""
        try:
            current = self._current()
        except IndexUnavailable:
            return unavailable
        try:
            return work(current)
        except Exception:
            # A file damaged under an open generation fails a request before the keeper's
            # next check: check now, so that /healthz says so from this request on.
            self.check_damage()
            raise


def _kept_out_of_collections() -> None:
    """Move what the process holds now (its modules, the index just opened) out of the cyclic
    collector's passes. A full pass walked it all, about 0.2 s at L holding the interpreter
    lock, and requests that allocate much (the map's points, downloads) set one off every few
    seconds: /healthz waited behind them (docs/performance.md). None of it is cyclic garbage
    when a newer generation replaces it: reference counting frees it."""
    gc.collect()  # what is garbage already is freed, not kept for good
    gc.freeze()
