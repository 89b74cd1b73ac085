"""One entry of what an index generation holds beside Whoosh's files (`Held`: its name, its
files, how it is counted or derived, and opened), and the entries features add (`register`).

The search's own entries are generation.SEARCH_HELD. What a feature derives at index time
(what's new's counts, the map's layout) is an entry in its feature's folder, registered by
app/feature_parts.py, so that search imports no feature: every process registers them before
it builds or opens an index, and a spawned child is handed its parent's (`WithParts`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

Document = dict[str, object]


class Counts(Protocol):
    """Counted from each document as it is written, and written beside the index."""

    def add_document(self, document: Document) -> None: ...

    def write(self, directory: Path) -> None: ...


@dataclass(frozen=True)
class Held:
    name: str  # the `OpenIndex` attribute it becomes (a feature's: its key in `parts`)
    files: tuple[str, ...]
    # Counts: new ones (None) for a whole build, or the generation's own read back.
    counts: Callable[[Path | None], Counts] | None = None
    # Made from the committed index: (its directory, whether the build is whole).
    derive: Callable[[Path, bool], None] | None = None
    # What a server opens: (the directory, the number of documents) → the value it reads.
    open: Callable[[Path, int], object] | None = None
    # Derived after an ingest returns: no search waits for it (what's new, related papers,
    # the map).
    deferred: bool = False
    # Laid out from the database, not derived from the index (the papers' sentence vectors,
    # by sync.py): as a deferred entry, made again alone when its files are found damaged.
    from_database: bool = False
    # A registered entry's place: right after the entry it is derived from.
    after: str = ""


_registered: dict[str, Held] = {}  # the features' entries, by name, in the order registered


def registered() -> tuple[Held, ...]:
    """The features' entries, in the order registered."""
    return tuple(_registered.values())


def register(*parts: Held) -> None:
    """Add features' entries to every generation this process writes or opens (again: no
    change), each right after the entry its `after` names."""
    for part in parts:
        if _registered.get(part.name, part) != part:
            raise ValueError(f"another index part is already named {part.name!r}")
        _registered[part.name] = part


@dataclass(frozen=True)
class WithParts:
    """A spawned child's target (`Process(target=WithParts(run))`): a spawned process starts
    with no feature imported, so it registers its parent's entries before it runs."""

    run: Callable[..., None]
    parts: tuple[Held, ...] = field(default_factory=registered)

    def __call__(self, *args: object) -> None:
        register(*self.parts)
        self.run(*args)


