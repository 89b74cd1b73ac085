"""Index generations on disk: `data/index` is a symlink to one directory under
`data/indexes/`, a generation, published by replacing the symlink in one rename.

A published generation never changes: a full build writes a new directory; an update (the
change log applied) or deriving what an ingest deferred writes a `successor`, which starts as
hard links to the live generation's files. Every file of a generation is replaced whole,
never rewritten, so the links stay the old generation's own. A worker thus opens all of one
generation or all of the next, never Whoosh's new segment beside the old paper-ID arrays.
Each is published with its manifest (manifest.py); a retired one is kept a while for the
requests still reading it. Callers hold the index lock (index.index_lock).
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.config import Settings
from app.faults import pause_point
from app.search.index.manifest import DAMAGED_FILE, write_manifest

# A generation replaced by another is kept this long for the requests still reading it (a
# worker reopens at its next request; a download streams for a while), then dropped.
RETIRED_KEPT_SECONDS = 300
RETIRED_FILE = "retired"  # in a generation that was live: when it stopped being


def new_directory(settings: Settings) -> Path:
    indexes = settings.data_dir / "indexes"
    indexes.mkdir(parents=True, exist_ok=True)
    return indexes / f"build-{uuid.uuid4().hex[:8]}"


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        shutil.copy2(source, target)


@contextmanager
def successor(settings: Settings) -> Iterator[Path]:
    """A new generation made from the live one (its files as hard links), changed by the
    caller, then published; discarded if the change fails (the live one stays)."""
    directory = new_directory(settings)
    try:
        # Not Whoosh's lock, a generation's retirement or what a write left half-way.
        shutil.copytree(settings.index_path.resolve(), directory, copy_function=_link_or_copy,
                        ignore=shutil.ignore_patterns(".*", "*.tmp", "*LOCK", RETIRED_FILE,
                                                      DAMAGED_FILE))
        yield directory
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    publish(settings.index_path, directory)


def publish(link: Path, target: Path) -> None:
    previous = link.resolve() if link.is_symlink() else None
    if link.exists() and not link.is_symlink():  # an index from before symlinks: move aside
        shutil.rmtree(link)
    tmp_link = link.with_name(f".{link.name}.{uuid.uuid4().hex[:8]}")
    tmp_link.symlink_to(os.path.relpath(target, link.parent))
    write_manifest(target, previous)
    pause_point("index-swap")  # crash tests: the new index written, the old one still live
    os.replace(tmp_link, link)
    if previous is not None and previous.is_dir():
        (previous / RETIRED_FILE).touch()
    _drop_retired(target.parent, keep={target.resolve(), previous})


def _drop_retired(indexes: Path, keep: set[Path | None]) -> None:
    """Drop generations retired longer than `RETIRED_KEPT_SECONDS` ago, and directories never
    published (a build killed half-way: every build holds the index lock, as the caller does)."""
    now = time.time()
    for old in indexes.iterdir():
        if old.resolve() in keep:
            continue
        try:
            retired_for = now - (old / RETIRED_FILE).stat().st_mtime
        except OSError:
            retired_for = None  # never live, or retired before generations were kept a while
        if retired_for is None or retired_for > RETIRED_KEPT_SECONDS:
            shutil.rmtree(old, ignore_errors=True)
