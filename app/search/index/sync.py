"""The Whoosh index: schema, full builds and incremental updates, each published as a
generation of its own (publish.py), and which a node needs (`sync_index`). Each generation
records the catalog version, and the catalog, it reflects.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC
from enum import Enum
from functools import partial
from pathlib import Path

import numpy as np
from sqlalchemy import distinct, func
from sqlmodel import Session, col, select
from whoosh import index as whoosh_index
from whoosh.writing import NO_MERGE, SegmentWriter

from app.config import Settings
from app.db import batched, catalog_id, catalog_version, full_rebuild_version, pending_keyphrases
from app.facets import FACETS
from app.meaning import store as vector_store
from app.models import CatalogChange, Edition, Paper
from app.search.index.arrays import arrays_writer
from app.search.index.generation import (
    VERSION_FILE,
    damaged_parts,
    deferred_of,
    drop_damaged,
    start_counts,
    write_deferred,
    write_held,
)
from app.search.index.index_schema import build_schema, index_format_now
from app.search.index.manifest import damage_of, verify
from app.search.index.paper_ids import PaperIds
from app.search.index.publish import new_directory, publish, successor
from app.search.index.whoosh import create_index, open_index
from app.search.index.whoosh.writing import BulkSegmentWriter
from app.search.rank.by_meaning import NO_VECTORS, behind, write_meaning

# Whoosh's posting pool (incremental updates) spills to disk beyond this (when full builds
# still merged segments with it, a merge of L peaked at 2.2 GB with 2 GB, 1.4 GB with 1 GB).
WRITER_MEMORY_MB = 1024
# Text whose postings a full build holds in arrays before it sets them aside on disk as a
# run (the segment is written from the runs merged, a range of terms at a time): about half
# of L (~100 M characters), so that the build's memory stays that of a run at any size.
BUILD_RUN_CHARS = 50_000_000


def paper_document(paper: Paper, venue: Edition) -> dict[str, object]:
    return {
        "id": paper.id,
        **{facet.name: facet.value(paper, venue) for facet in FACETS},
        "venue_name": f"{venue.name} {venue.slug}",
        # Author keywords count like title words (a headline match, measured for titles:
        # their own weight cannot be measured here, as keywords are the only judgments).
        "headline": "\n".join([paper.headline, *paper.keyword_list]),
        # The title and keywords lead the text: every headline word is a text word.
        "text": "\n".join([*([paper.title] if paper.title else []), *paper.keyword_list,
                           paper.plain]),
        "author": " ; ".join(paper.author_list),
        "added": int(paper.added_at.replace(tzinfo=paper.added_at.tzinfo or UTC).timestamp()),
    }


@dataclass(frozen=True)
class IndexStamp:
    """What an index reflects: a version of one particular catalog database."""

    version: int
    catalog: str


def read_index_stamp(index_path: Path) -> IndexStamp | None:
    """The catalog version an index reflects, or None when there is no usable index (none,
    another format, or found damaged beyond what is made again alone)."""
    live = index_path.resolve()  # once: a generation published meanwhile is read whole
    if damaged_parts(live) is None:
        return None
    try:
        version, index_format, catalog = (live / VERSION_FILE).read_text().split()
        return IndexStamp(int(version), catalog) if index_format == index_format_now() else None
    except (OSError, ValueError):
        return None


def read_index_version(index_path: Path) -> int | None:
    stamp = read_index_stamp(index_path)
    return stamp.version if stamp else None


def _write_stamp(directory: Path, stamp: IndexStamp) -> None:
    tmp = directory / f"{VERSION_FILE}.tmp"
    tmp.write_text(f"{stamp.version} {index_format_now()} {stamp.catalog}")
    os.replace(tmp, directory / VERSION_FILE)


@contextmanager
def index_lock(settings: Settings, wait: bool = True) -> Iterator[bool]:
    """One writer of this node's index at a time, across processes (server workers, the CLI).

    Yields False without the lock when `wait` is False and another process holds it.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with open(settings.data_dir / "index.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True


def _writer(ix: whoosh_index.Index) -> SegmentWriter:
    # compound=False: opening a compound segment copies it into memory; separate files don't.
    return ix.writer(limitmb=WRITER_MEMORY_MB, compound=False)


def build_index(settings: Settings, session: Session) -> int:
    """Rebuild the whole index from the database beside the live one, then swap it in."""
    with index_lock(settings):
        return _build(settings, session)


def _build(settings: Settings, session: Session) -> int:
    stamp = IndexStamp(catalog_version(session), catalog_id(session))
    venues = {venue.slug: venue for venue in session.exec(select(Edition))}
    build = IndexBuild(settings)
    try:
        for paper in session.exec(select(Paper).execution_options(yield_per=2000)):
            build.add(paper_document(paper, venues[paper.edition_slug]))
        build.write(vector_store.all_vectors(session))
        return build.finish(stamp)
    except BaseException:
        build.abort()
        raise


def _lay_out_vectors(directory: Path, vectors: tuple[list[str], np.ndarray]) -> None:
    """The sentence vectors (store.all_vectors) by the generation's document numbers."""
    ix = open_index(directory)
    try:
        with ix.reader() as reader:
            live = np.fromiter(reader.all_doc_ids(), np.int64)
    finally:
        ix.close()
    write_meaning(directory, PaperIds.mapped(directory).ids, live, *vectors)


class IndexBuild:
    """A whole new index written beside the live one, swapped in when finished; with `defer`,
    what no search needs is left to derive after it is live (`complete_deferred`)."""

    def __init__(self, settings: Settings, defer: bool = False) -> None:
        self.settings = settings
        self.defer = defer
        self.directory = new_directory(settings)
        self.directory.mkdir()
        self.index = create_index(self.directory, build_schema())
        self.writer = BulkSegmentWriter(self.index, partial(arrays_writer, self.directory))
        self.count = self.run_chars = 0
        self.written = False
        self.counts = start_counts()

    def add(self, document: dict[str, object]) -> None:
        text = str(document["text"])
        self.writer.add_document(**document)
        for counts in self.counts:
            counts.add_document(document)
        self.count += 1
        self.run_chars += len(text)
        if self.run_chars >= BUILD_RUN_CHARS:  # bounds the memory of the arrays
            self.run_chars = 0
            self.writer.spill(self.directory / "runs" / str(len(self.writer.runs)))

    def write(self, vectors: tuple[list[str], np.ndarray] = NO_VECTORS) -> None:
        """Write the index's files (not yet live), with the papers' sentence vectors (none in
        a first ingest's parallel build); no document is added after this."""
        # One segment: with one per batch (8 at L), searches were ~40 % slower; with three of
        # 40 M characters at L, 22 % (p95 28 %), measured.
        self.writer.commit(mergetype=NO_MERGE)
        shutil.rmtree(self.directory / "runs", ignore_errors=True)
        self.index.close()
        write_held(self.directory, self.counts, whole=True, defer=self.defer)
        _lay_out_vectors(self.directory, vectors)
        self.written = True

    def finish(self, stamp: IndexStamp) -> int:
        """Record what the index reflects and make it the live index (written first if not
        yet)."""
        if not self.written:
            self.write()
        _write_stamp(self.directory, stamp)
        publish(self.settings.index_path, self.directory)
        return self.count

    def abort(self) -> None:
        """Discard the new index (the live one stays)."""
        with suppress(Exception):  # a writer that failed half-way (or was committed) may not
            self.writer.cancel()  # cancel cleanly
        self.index.close()
        shutil.rmtree(self.directory, ignore_errors=True)


def _apply_changes(directory: Path, session: Session, since: int, until: int) -> int:
    """Write the papers the change log names after `since` into the generation in
    `directory` (a successor, not yet published).

    Each named paper is written as it is now (or deleted when it is gone), so applying a change
    twice, or one that a later version undid, is harmless.
    """
    # In each edition's order, as its page lists them: papers that a search scores alike keep
    # that order among themselves, as after a rebuild.
    changed = list(session.exec(
        select(CatalogChange.paper_id)
        .join(Paper, col(Paper.id) == CatalogChange.paper_id, isouter=True)
        .where(CatalogChange.version > since, CatalogChange.version <= until)
        .group_by(CatalogChange.paper_id, Paper.edition_slug, Paper.ordinal)
        .order_by(Paper.edition_slug, Paper.ordinal)))
    ix = open_index(directory)
    with ix.searcher() as searcher:
        indexed = {paper_id for paper_id in changed
                   if searcher.document_number(id=paper_id) is not None}
    counted = start_counts(directory)
    writer = _writer(ix)
    venues = {venue.slug: venue for venue in session.exec(select(Edition))}
    for batch in batched(changed, 500):
        present = {paper.id: paper for paper in session.exec(
            select(Paper).where(col(Paper.id).in_(batch)))}
        for paper_id in batch:
            if paper_id in present:
                paper = present[paper_id]
                document = paper_document(paper, venues[paper.edition_slug])
                writer.update_document(**document)
                if paper_id not in indexed:  # applied twice, a paper is still counted once
                    for counts in counted:
                        counts.add_document(document)
            else:
                writer.delete_by_term("id", paper_id)
    writer.commit()
    ix.close()
    write_held(directory, counted, whole=False)
    return len(changed)


def _gap(settings: Settings, session: Session) -> tuple[IndexStamp | None, IndexStamp, bool]:
    """The index's stamp, the database's, and whether the change log covers the difference
    (not when there is no index, another catalog or format, or a wholesale change such as new
    topics)."""
    have = read_index_stamp(settings.index_path)
    want = IndexStamp(catalog_version(session), catalog_id(session))
    covered = (have is not None and have.catalog == want.catalog
               and full_rebuild_version(session) <= have.version < want.version)
    return have, want, covered


def pending_changes(settings: Settings, session: Session) -> int | None:
    """How many papers the change log says the index lacks (0: up to date), or None when only
    a rebuild, or deriving what an ingest deferred (the index's or the catalog's), can bring
    it up to date."""
    if pending_keyphrases(session) is not None:  # derived as a rebuild is, in a process apart
        return None
    # Checked here, not first by the update: making what was found damaged again (or the
    # papers' changes with it) refits what an update keeps, in a process apart too.
    live = _checked_live(settings)
    if damaged_parts(live):
        return None
    have, want, covered = _gap(settings, session)
    if have == want:
        return None if deferred_of(live) else 0
    if not covered or have is None:
        return None
    return _changed_papers(session, have.version, want.version)


def _checked_live(settings: Settings) -> Path:
    """The live generation's directory, its files checked against its manifest (damage is
    marked in it: manifest.verify)."""
    live = settings.index_path.resolve()
    if live.is_dir():
        verify(live)
    return live


def _changed_papers(session: Session, since: int, until: int) -> int:
    return session.exec(select(func.count(distinct(CatalogChange.paper_id))).where(
        CatalogChange.version > since, CatalogChange.version <= until)).one()


class SyncKind(Enum):
    UP_TO_DATE = "up to date"
    BUSY = "busy"  # another process is updating the index
    UPDATED = "updated"  # the change log applied
    REBUILT = "rebuilt"
    COMPLETED = "completed"  # what the ingest's build deferred derived
    REMADE = "remade"  # what was found damaged and is made again alone (generation.py)
    VECTORS = "vectors laid out"  # the papers' sentence vectors, stored since


@dataclass(frozen=True)
class SyncOutcome:
    """What bringing an index to the catalog's version did, and to how many papers."""

    kind: SyncKind
    papers: int = 0
    damage: str = ""  # what was found, where the kind is REMADE

    @property
    def changed(self) -> bool:
        return self.kind is not SyncKind.UP_TO_DATE and self.kind is not SyncKind.BUSY

    def __str__(self) -> str:
        if self.kind is SyncKind.UPDATED:
            return f"updated ({self.papers} papers changed)"
        if self.kind is SyncKind.REBUILT:
            return f"rebuilt ({self.papers} papers)"
        if self.kind is SyncKind.REMADE:
            return f"remade what was found damaged ({self.damage}); search by words went on"
        return self.kind.value


def sync_index(settings: Settings, session: Session, wait: bool = True,
               complete: bool = True,
               derive_catalog: Callable[[Session], object] | None = None,
               vectors_stored: bool = False) -> SyncOutcome:
    """Bring this node's index to the database's catalog version: apply the change log since
    the index's version, or rebuild; and (`complete`) derive what its ingest deferred, the
    catalog's part first (`derive_catalog`, e.g. `enrich.complete_keyphrases`: pages show
    it); and lay out the papers' sentence vectors again where the database holds others
    (more, or `vectors_stored`: the caller encoded papers whose text changed). Busy when
    `wait` is False and another process is already updating the index.
    """
    with index_lock(settings, wait) as locked:
        if not locked:
            return SyncOutcome(SyncKind.BUSY)
        if complete and derive_catalog is not None:
            derive_catalog(session)
        live = _checked_live(settings)  # a damaged one has no stamp: rebuilt
        have, want, covered = _gap(settings, session)
        meaning = vectors_stored or (have is not None
                                     and behind(live, vector_store.counts(session)[0]))
        damaged = damaged_parts(live) or ()  # None: no stamp, rebuilt below
        if have == want and not meaning and not damaged and not (complete and deferred_of(live)):
            return SyncOutcome(SyncKind.UP_TO_DATE)
        if have is None or (have != want and not covered):
            return SyncOutcome(SyncKind.REBUILT, _build(settings, session))
        changed = _changed_papers(session, have.version, want.version)
        completed = False
        with successor(settings) as directory:
            meaning = drop_damaged(directory, damaged) or meaning
            if changed:  # its update derives everything, deferred or not
                _apply_changes(directory, session, have.version, want.version)
            # Else versions that changed no paper (their keyphrases, their topics' scores):
            # the index holds what it held, under the new stamp, and what its ingest deferred.
            elif complete and deferred_of(directory):
                write_deferred(directory)
                completed = True
            if changed or meaning:  # documents renumbered, or other vectors stored
                _lay_out_vectors(directory, vector_store.all_vectors(session))
            _write_stamp(directory, want)
        if changed:
            return SyncOutcome(SyncKind.UPDATED, changed)
        if damaged:
            return SyncOutcome(SyncKind.REMADE, damage=damage_of(live) or "")
        if completed:
            return SyncOutcome(SyncKind.COMPLETED)
        return SyncOutcome(SyncKind.VECTORS if have == want else SyncKind.UPDATED)


def index_busy(settings: Settings) -> bool:
    """Whether another process holds the index lock now (building, updating or deriving)."""
    with index_lock(settings, wait=False) as locked:
        return not locked


def publish_vectors(settings: Settings, session: Session) -> None:
    """A generation with the papers' sentence vectors stored so far (their encoding's
    `publish`, meaning_updates.py): the change log applied as well, nothing derived."""
    sync_index(settings, session, complete=False, vectors_stored=True)
