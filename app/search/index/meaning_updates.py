"""The papers' sentence vectors made after an ingest and published as they come: the papers
lacking one are encoded (app/meaning/job.py, a batch committed at a time, so a killed run
resumes), and every `PUBLISH_EVERY` papers a generation with them is published, so that the
catalog searches by meaning the papers that have vectors while the rest are encoded. Run by
`catalog update-index` (after an ingest, in the background) and by a server's keeper, in a
process of its own."""

from __future__ import annotations

import logging
import multiprocessing
import sys
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess

from sqlmodel import Session

from app.config import Settings
from app.db import get_engine
from app.meaning.encoder import Encoder
from app.meaning.job import EncodingElsewhere, encode_missing
from app.meaning.model_files import ModelCheck, ModelMissing, ModelRefused
from app.meaning.store import counts
from app.search.index.registry import WithParts
from app.search.rank.by_meaning import MODEL_DIR

# Papers encoded between two generations: reading which papers lack a vector takes seconds at
# L, so not after every batch.
PUBLISH_EVERY = 8192
# A server counts the papers with a vector this often (two counts, 10-30 ms at L), and
# starts encoding those lacking one at most this often.
COUNT_SECONDS = 10.0
CHECK_SECONDS = 30.0
MODEL_REFUSED = 3  # the encoding process's exit code when the model is missing or refused
log = logging.getLogger("uvicorn.error.meaning")
Progress = Callable[[int, int], None]  # (papers with a vector of their text now, papers)
# What publishes a generation holding the vectors stored so far (sync.publish_vectors): the
# caller's, so that encoding imports nothing of how an index is built.
Publish = Callable[[Settings, Session], object]


def encode_and_publish(settings: Settings, session: Session, publish: Publish,
                       progress: Progress = lambda done, total: None,
                       wait: bool = True) -> int:
    """Encode every paper lacking a vector and publish the generations holding them; how
    many were encoded. Without `wait`, job.EncodingElsewhere when another process encodes."""
    encoder = Encoder.load(settings.data_dir / MODEL_DIR)
    encoded = 0
    while made := _encode_some(session, encoder, progress, wait):
        encoded += made
        publish(settings, session)
        if made < PUBLISH_EVERY:
            break
    return encoded


def _encode_some(session: Session, encoder: Encoder, progress: Progress, wait: bool) -> int:
    """Encode up to about `PUBLISH_EVERY` papers lacking a vector; how many."""
    _, total = counts(session)
    done = [0]

    def seen(encoded: int, missing: int) -> None:
        # Out of the papers whose vector is current: a paper whose text (or the model's
        # settings) changed has a vector, but not of its text, and is encoded again.
        done[0] = encoded
        progress(max(total - missing + encoded, 0), total)

    return encode_missing(session, encoder, progress=seen, wait=wait,
                          should_stop=lambda: done[0] >= PUBLISH_EVERY)


def progress_bar(write: Callable[[str], None]) -> Progress:
    """A progress line for the command line: a bar, the share, the papers, the rate."""
    started = time.monotonic()
    first: list[int] = []

    def show(done: int, total: int) -> None:
        first[:] = first or [done]
        share = done / total if total else 1.0
        rate = (done - first[0]) / max(time.monotonic() - started, 1e-9)
        bar = "#" * int(share * 30)
        write(f"\rvectors [{bar:<30}] {share:4.0%} {done:,}/{total:,} papers, "
              f"{rate:,.0f}/s ")

    return show


class BackgroundEncoding:
    """A server's part: when papers lack a vector (after an ingest from anywhere, or a
    catalog from before search by meaning), encode them in a process of its own, started at
    most every `CHECK_SECONDS`; the keeper polls it after each of its checks. Several workers
    (or nodes) start one each: all but one find another encoding and end."""

    def __init__(self, settings: Settings, publish: Publish) -> None:
        self.settings, self.publish = settings, publish
        self.problem: str | None = None  # why search by meaning is off (the model refused)
        # Checked at each poll, not only by an encoding: a catalog whose papers all have
        # vectors runs none, and a damaged model went unnamed while every description lost
        # its meaning (docs/search.md).
        self._model = ModelCheck(settings.data_dir / MODEL_DIR)
        self.counts: tuple[int, int] | None = None  # (papers with a vector, papers), for /healthz
        self._child: BaseProcess | None = None
        self._counted_at = 0.0
        # Not at once: a server's first minute goes to its index (and tests' short-lived
        # servers never encode the catalog they only read).
        self._start_after = self._archive_after = time.monotonic() + CHECK_SECONDS

    def poll(self, session: Session) -> None:
        if time.monotonic() - self._counted_at >= COUNT_SECONDS:
            self._counted_at = time.monotonic()
            self.counts = counts(session)
        child = self._child
        if child is not None and child.exitcode is not None:
            if child.exitcode == MODEL_REFUSED:
                self._model.refused("the sentence encoder's model was refused (see the log)")
            child = self._child = None
        # The wheel's archive read through only after the first `CHECK_SECONDS` (0.6 s of a
        # core): a copy of the model already extracted is checked at once
        problem = self._model.current(read_archive=time.monotonic() >= self._archive_after)
        if problem is not None and self.problem is None:
            log.error("search by meaning is off: %s", problem)
        self.problem = problem and f"search by meaning is off: {problem}"
        with_vectors, total = self.counts or (0, 0)
        if (child is None and self.settings.encode_vectors and self.problem is None
                and with_vectors < total and time.monotonic() >= self._start_after):
            self._start_after = time.monotonic() + CHECK_SECONDS
            context = multiprocessing.get_context("spawn")  # no inherited connection or lock
            self._child = context.Process(target=WithParts(_encode_in_child),
                                          args=(self.settings, self.publish),
                                          name="encode-vectors", daemon=True)
            self._child.start()

    def stop(self) -> None:
        child = self._child
        if child is not None and child.is_alive():  # the batches committed stay
            child.terminate()
            child.join(timeout=10)


def _encode_in_child(settings: Settings, publish: Publish) -> None:
    try:
        with Session(get_engine(settings.database_url)) as session:
            encode_and_publish(settings, session, publish, wait=False)
    except EncodingElsewhere:
        return
    except (ModelRefused, ModelMissing) as error:
        log.error("search by meaning is off: %s", error)
        sys.exit(MODEL_REFUSED)
