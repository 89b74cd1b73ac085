"""The Whoosh index: schema, full builds swapped in atomically, and incremental updates.

`data/index` is a symlink to one directory under `data/indexes/`. A full build writes a new
directory and then replaces the symlink in one rename, so a server never sees a half-built
index. Incremental updates after an ingest commit into the live directory; Whoosh's own
generation files keep each commit atomic. Each index records the catalog version it reflects.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterable
from datetime import UTC
from pathlib import Path

from sqlmodel import Session, select
from whoosh import index as whoosh_index
from whoosh.fields import ID, KEYWORD, NUMERIC, TEXT, Schema
from whoosh.writing import NO_MERGE, SegmentWriter

from app.config import Settings
from app.db import catalog_version
from app.models import Paper, Venue
from app.search.analysis import catalog_analyzer, word_analyzer

VERSION_FILE = "catalog_version"
# Bump when the schema, the analyzers or the documents change: older indexes are then rebuilt.
INDEX_FORMAT = 8
WRITER_MEMORY_MB = 2048
# Text per segment while building: about 12,000 abstracts, 700 MB of postings in memory.
BUILD_BATCH_CHARS = 14_000_000


def build_schema() -> Schema:
    analyzer = catalog_analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        venue=ID(stored=True, sortable=True),  # the venue slug, for filters and facets
        venue_name=TEXT(analyzer=word_analyzer(), phrase=False),  # "icml", "neurips"
        year=NUMERIC(int, stored=True, sortable=True, signed=False),
        # Papers in list order within a venue; stable across ingests unlike Paper.ordinal.
        position=ID(sortable=True),
        headline=TEXT(analyzer=analyzer, field_boost=1.5),
        text=TEXT(analyzer=analyzer),
        # Unstemmed words: prefix queries, "did you mean" and completions use real words.
        words=TEXT(analyzer=word_analyzer(), phrase=False),
        has=KEYWORD(stored=True, sortable=True),  # "code" when the abstract links code
        topic=ID(stored=True, sortable=True),  # the primary topic's slug
        author=TEXT(analyzer=word_analyzer()),  # author names, for `author:`
        added=NUMERIC(int, sortable=True, signed=False),  # first ingested, epoch seconds
    )


def paper_document(paper: Paper, venue: Venue) -> dict[str, object]:
    return {
        "id": paper.id,
        "venue": venue.slug,
        "venue_name": f"{venue.name} {venue.slug}",
        "year": venue.year,
        "position": f"{venue.slug}\x00{paper.source_file}\x00{paper.source_line:09d}",
        "headline": paper.headline,
        # The title, when there is one, leads the text: every headline word is a text word.
        "text": f"{paper.title}\n{paper.plain}" if paper.title else paper.plain,
        "words": paper.plain,
        "has": "code" if paper.code_urls else "",
        "topic": paper.topic,
        "author": " ; ".join(paper.author_list),
        "added": int(paper.added_at.replace(tzinfo=paper.added_at.tzinfo or UTC).timestamp()),
    }


def read_index_version(index_path: Path) -> int | None:
    """The catalog version an index reflects, or None when there is no usable index."""
    try:
        version, index_format = (index_path / VERSION_FILE).read_text().split()
        return int(version) if int(index_format) == INDEX_FORMAT else None
    except (OSError, ValueError):
        return None


def _write_version(directory: Path, version: int) -> None:
    tmp = directory / f"{VERSION_FILE}.tmp"
    tmp.write_text(f"{version} {INDEX_FORMAT}")
    os.replace(tmp, directory / VERSION_FILE)


def _writer(ix: whoosh_index.Index) -> SegmentWriter:
    # compound=False: opening a compound segment copies it into memory; separate files don't.
    return ix.writer(limitmb=WRITER_MEMORY_MB, compound=False)


def build_index(settings: Settings, session: Session) -> int:
    """Rebuild the whole index from the database beside the live one, then swap it in."""
    version = catalog_version(session)
    indexes = settings.data_dir / "indexes"
    indexes.mkdir(parents=True, exist_ok=True)
    directory = indexes / f"v{version}-{uuid.uuid4().hex[:8]}"
    directory.mkdir()
    ix = whoosh_index.create_in(str(directory), build_schema())
    venues = {venue.slug: venue for venue in session.exec(select(Venue))}
    writer = _writer(ix)
    count = batch_chars = 0
    for paper in session.exec(select(Paper).execution_options(yield_per=2000)):
        writer.add_document(**paper_document(paper, venues[paper.venue_slug]))
        count += 1
        batch_chars += len(paper.plain)
        if batch_chars >= BUILD_BATCH_CHARS:
            batch_chars = 0
            # A segment per batch keeps the posting pool in memory (spilling it to disk and
            # merging the runs back tripled build time) without holding the whole corpus.
            writer.commit(mergetype=NO_MERGE)
            writer = _writer(ix)
    # One segment: searches on common words step through half the posting blocks.
    writer.commit(optimize=True)
    ix.close()
    _write_version(directory, version)
    _swap_live_index(settings.index_path, directory)
    return count


def _swap_live_index(link: Path, target: Path) -> None:
    previous = link.resolve() if link.is_symlink() else None
    if link.exists() and not link.is_symlink():  # an index from before symlinks: move aside
        shutil.rmtree(link)
    tmp_link = link.with_name(f".{link.name}.{uuid.uuid4().hex[:8]}")
    tmp_link.symlink_to(os.path.relpath(target, link.parent))
    os.replace(tmp_link, link)
    # Keep the directory just replaced (a server may still be reading it); drop older ones.
    keep = {target.resolve(), previous}
    for old in target.parent.iterdir():
        if old.resolve() not in keep:
            shutil.rmtree(old, ignore_errors=True)


def update_index(
    settings: Settings,
    session: Session,
    added_ids: Iterable[str],
    removed_ids: Iterable[str],
    from_version: int,
) -> bool:
    """Apply one ingest's changes to the live index.

    Returns False, doing nothing, when the live index does not reflect `from_version`: its
    state is then unknown and only a full build (build_index) can be trusted.
    """
    link = settings.index_path
    if read_index_version(link) != from_version:
        return False
    version = catalog_version(session)
    ix = whoosh_index.open_dir(str(link))
    writer = _writer(ix)
    for paper_id in removed_ids:
        writer.delete_by_term("id", paper_id)
    added = list(added_ids)
    venues = {venue.slug: venue for venue in session.exec(select(Venue))}
    for start in range(0, len(added), 500):
        batch = added[start : start + 500]
        for paper in session.exec(select(Paper).where(Paper.id.in_(batch))):  # type: ignore[attr-defined]
            writer.update_document(**paper_document(paper, venues[paper.venue_slug]))
    writer.commit()
    ix.close()
    _write_version(link.resolve(), version)
    return True


def sync_index(settings: Settings, session: Session) -> str:
    """Make sure the live index reflects the database; rebuild it when it does not."""
    if read_index_version(settings.index_path) == catalog_version(session):
        return "up to date"
    count = build_index(settings, session)
    return f"rebuilt ({count} papers)"
