"""A full index build in a second process, fed while an ingest stores the papers.

The first ingest into an empty catalog is the largest one (every paper is new), and it had two
halves that each kept one core busy: parsing, normalizing and storing, then indexing. Here
the ingest hands each new paper's document to a child process as soon as it is normalized
(through a queue: neither waits on the other's slower batches); the child indexes and counts
what the generation holds beside the index while the parent goes on, writes the index's
files once the last paper is sent (while the parent inserts the papers), and swaps its index
in only after the parent's transaction has committed and the paper counts agree. On any
failure the child's index is discarded and the usual build from the database runs. What no
search needs (registry.Held.deferred: the vectors, the map) it leaves to derive after the
ingest returns.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
from multiprocessing.connection import Connection

from app.config import Settings
from app.models import Edition, Paper
from app.search.index.registry import WithParts
from app.search.index.sync import IndexBuild, IndexStamp, index_lock, paper_document
from app.search.words.analysis import forget_words_met, learn_words, words_met

BATCH = 256  # documents per message: few messages, and the child is never starved
# Messages the parent may be ahead of the child (a batch is about a megabyte). Sent as they
# came, each side waited for the other whenever one batch took it longer: at L, each spent
# about 18 s of the ingest waiting (docs/performance.md, "Ingest").
QUEUED = 32


class ParallelIndexBuild:
    """The parent's end: `add` papers, `seal` after the last one, then `finish` after
    committing (or `abort`)."""

    def __init__(self, settings: Settings) -> None:
        # spawn, not fork: the child inherits no database connection or lock of the parent.
        context = multiprocessing.get_context("spawn")
        self._pipe, child_end = context.Pipe()
        self._process = context.Process(target=WithParts(_build_from_pipe),
                                        args=(settings, child_end), name="index-build",
                                        daemon=True)
        self._process.start()
        child_end.close()
        self._batch: list[dict[str, object]] = []
        self._failed = False
        self._outbox: queue.Queue[tuple[str, object] | None] = queue.Queue(QUEUED)
        self._sender = threading.Thread(target=self._send_queued, name="index-build-sender",
                                        daemon=True)
        self._sender.start()
        # Scoring topics analyzed the papers' words here first: the child learns each word's
        # terms with the first batch that holds it instead of running the filter chain on it.
        self._words, self._words_sent = words_met(), 0

    def add(self, paper: Paper, venue: Edition) -> None:
        self._batch.append(paper_document(paper, venue))
        if len(self._batch) >= BATCH:
            self._send_batch()

    def seal(self) -> None:
        """No more papers: the child writes its index now (it is not live yet)."""
        self._send_batch()
        forget_words_met()
        self._send("write", None)

    def _send_batch(self) -> None:
        words = self._words[self._words_sent:]
        self._words_sent += len(words)
        self._send("add", (words, self._batch))
        self._batch = []

    def finish(self, stamp: IndexStamp, papers: int) -> int | None:
        """Swap the child's index in when it holds `papers` documents; returns how many it
        indexed, or None when it failed or counted otherwise (its index is then dropped)."""
        self._send_batch()
        self._send("finish", (stamp, papers))
        self._drain()
        try:
            indexed = None if self._failed else self._pipe.recv()
        except (EOFError, OSError):
            indexed = None
        self._process.join()
        return indexed

    def abort(self) -> None:
        forget_words_met()
        while True:  # what the child has not received yet is not worth its time
            try:
                self._outbox.get_nowait()
            except queue.Empty:
                break
        self._send("abort", None)
        self._drain()
        self._process.join(timeout=60)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    def _send(self, kind: str, payload: object) -> None:
        if not self._failed:
            self._outbox.put((kind, payload))

    def _send_queued(self) -> None:
        """The sender thread: the queued messages in order, until `_drain`."""
        while (message := self._outbox.get()) is not None:
            if self._failed:
                continue
            try:
                self._pipe.send(message)
            except OSError:  # the child is gone: the usual build will run instead
                self._failed = True

    def _drain(self) -> None:
        """Until every queued message is sent (or the child is found gone)."""
        self._outbox.put(None)
        self._sender.join()


def _build_from_pipe(settings: Settings, pipe: Connection) -> None:
    with index_lock(settings):
        # What no search needs is derived after the ingest returns.
        build = IndexBuild(settings, defer=True)
        try:
            while True:
                kind, payload = pipe.recv()
                if kind == "add":
                    words, documents = payload
                    learn_words(words)
                    for document in documents:
                        build.add(document)
                elif kind == "write":
                    build.write()
                elif kind == "finish":
                    stamp, papers = payload
                    if build.count != papers:
                        build.abort()
                        pipe.send(None)
                    else:
                        pipe.send(build.finish(stamp))
                    return
                else:
                    build.abort()
                    return
        except BaseException as error:
            build.abort()
            if isinstance(error, OSError):  # a full disk: the usual build after the ingest
                return  # meets it too, and the command names it in one line
            raise
