"""IndexKeeper: keeps this node's search index in step with the shared catalog database.

Every node (and every worker process on a node) runs one in a background thread. It asks the
database for the catalog version every few seconds, two primary-key reads, and when an ingest
from anywhere has moved it on, applies the change log to the local index (or rebuilds
it). PaperSearch notices the new index generation and swaps it in;
requests meanwhile keep being answered from the previous one. Workers sharing an index
directory take turns through the index lock: whoever holds it updates the index for all.

A rebuild, or a large catch-up, runs in a child process, not in the server: building an index
holds the GIL for seconds at a time (uvicorn's supervisor then took a worker for hung) and
grows the heap by the writer's posting pool, which the server would keep. A few thousand
changed papers are written in the server's own thread: the child's start-up costs more.
(Measurements: docs/performance.md.)
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from sqlmodel import Session

from app.config import Settings
from app.db import catalog_id, check_database, get_engine
from app.faults import describe
from app.search.index.generation import damaged_parts
from app.search.index.meaning_updates import BackgroundEncoding
from app.search.index.registry import WithParts
from app.search.index.sync import (
    SyncKind,
    SyncOutcome,
    index_busy,
    pending_changes,
    publish_vectors,
    read_index_stamp,
    sync_index,
)

# Up to this many changed papers, the update runs in the server (about 1 ms per paper).
IN_PROCESS_CHANGES = 2_000
# After a failed update the next waits twice as long as the last, up to this (seconds): on a
# full disk a rebuild every poll took three quarters of a core. Sooner once this much more
# space is free than when it failed: space freed, the index catches up at the next poll.
BACKOFF_CAP = 300.0
FREED_BYTES = 8 << 20
# A child of uvicorn's own logger: printed beside the server's messages, in its format.
log = logging.getLogger("uvicorn.error.index")
NOT_CHECKED = "not checked yet"  # /healthz's index before the keeper's first check


class IndexKeeper:
    def __init__(self, settings: Settings,
                 after_check: Callable[[], None] = lambda: None,
                 derive_catalog: Callable[[Session], object] | None = None) -> None:
        self.settings = settings
        self.after_check = after_check  # e.g. open the index it may have just updated
        # What an ingest left the catalog to derive (its keyphrases), derived before the
        # index's part in the update's child (a module-level function: the child is spawned).
        self.derive_catalog = derive_catalog
        self.state = NOT_CHECKED
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._child: BaseProcess | None = None
        self._failures = 0  # updates failed in a row
        self._retry_at = 0.0  # no update before this (time.monotonic())
        self._free_at_failure = 0  # bytes free on the data dir's device when the last failed
        self.encoding = BackgroundEncoding(settings, publish_vectors)  # the papers' vectors

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="index-keeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        child = self._child
        if child is not None and child.is_alive():  # an interrupted build leaves the live
            child.terminate()  # index as it was
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.encoding.stop()

    def _run(self) -> None:
        # The database first: an index is not rebuilt from a damaged one (/healthz names it).
        try:
            check_database(self.settings.database_url)
        except Exception:  # unreachable, locked...: the updates report it
            log.exception("checking the catalog database")
        while not self._stop.is_set():
            if time.monotonic() >= self._retry_at or self._space_freed():
                self.check()
            self._encode()
            try:
                self.after_check()
            except Exception:  # e.g. an index swapped out while opening: the next check retries
                log.exception("after the index check")
            self._stop.wait(self.settings.poll_seconds)

    def check(self) -> str:
        """Bring the index up to date if the catalog changed; returns what was done."""
        try:
            with Session(get_engine(self.settings.database_url)) as session:
                pending = pending_changes(self.settings, session)
                in_process = pending is not None and pending <= IN_PROCESS_CHANGES
                if in_process:
                    outcome = sync_index(self.settings, session, wait=False)
            if not in_process:
                # A child started while another process holds the lock (an ingest's deferred
                # work, for minutes) would only find it busy.
                busy = index_busy(self.settings)
                if not busy:  # /healthz says so while it works, minutes at L
                    self.state = self._working(pending) + time.strftime(" since %H:%M:%S UTC",
                                                                        time.gmtime())
                outcome = SyncOutcome(SyncKind.BUSY) if busy else self._update()
            state = str(outcome)
            if outcome.changed:
                log.info("search index %s", state)
        except Exception as error:  # the database may be briefly unreachable: keep serving
            self._failures += 1
            fault = describe(error, self.settings.data_dir)
            # On a full disk, trying again before space is freed only burns a core.
            wait = BACKOFF_CAP if fault and "no space left" in fault else min(
                self.settings.poll_seconds * 2 ** self._failures, BACKOFF_CAP)
            self._retry_at = time.monotonic() + wait
            self._free_at_failure = _free_bytes(self.settings)
            if fault is None:
                log.exception("search index update failed")
            else:
                log.warning("search index update failed: %s", fault)
            state = (f"update failed: {fault or type(error).__name__}; trying again in "
                     f"{wait:.0f} s, or once {FREED_BYTES >> 20} MB more are free")
        else:
            self._failures = 0
        self.state = state
        return state

    def _working(self, pending: int | None) -> str:
        """What the update about to run does, as /healthz says it meanwhile."""
        if pending is not None:
            return f"updating {pending:,} papers"
        damaged = damaged_parts(self.settings.index_path.resolve())
        return f"making {', '.join(damaged)} again" if damaged else "rebuilding"

    def _encode(self) -> None:
        try:
            with Session(get_engine(self.settings.database_url)) as session:
                self.encoding.poll(session)
        except Exception:  # the database briefly unreachable: the next poll tries again
            log.exception("checking the papers' vectors")

    def _space_freed(self) -> bool:
        return bool(self._failures) and (
            _free_bytes(self.settings) > self._free_at_failure + FREED_BYTES)

    def _update(self) -> SyncOutcome:
        """The update run by `_sync_in_child` in a process of its own; its outcome."""
        context = multiprocessing.get_context("spawn")  # no inherited connection or lock
        outcome, sender = context.Pipe(duplex=False)
        child = context.Process(target=WithParts(_sync_in_child),
                                args=(self.settings, sender, self.derive_catalog),
                                name="index-update", daemon=True)
        child.start()
        self._child = child
        try:
            sender.close()
            try:
                answer = outcome.recv()
            except EOFError:  # it died without an answer (killed, out of memory)
                child.join()
                raise RuntimeError(f"the index update exited with {child.exitcode}") from None
            if isinstance(answer, Exception):  # what stopped it (a full disk...), as raised
                raise answer
            return answer
        finally:
            child.join()
            self._child = None

    def ready(self, session: Session) -> bool:
        """Whether this node has an index of this catalog to answer from (maybe a bit behind)."""
        stamp = read_index_stamp(self.settings.index_path)
        return stamp is not None and stamp.catalog == catalog_id(session)


def _free_bytes(settings: Settings) -> int:
    try:
        stat = os.statvfs(settings.data_dir)
    except OSError:
        return 0
    return stat.f_bavail * stat.f_frsize


def _sync_in_child(settings: Settings, outcome: Connection,
                   derive_catalog: Callable[[Session], object] | None) -> None:
    try:
        with Session(get_engine(settings.database_url)) as session:
            outcome.send(sync_index(settings, session, wait=False,
                                    derive_catalog=derive_catalog))
    except Exception as error:  # noqa: BLE001 - the parent reports it (keeper.check)
        outcome.send(error)
