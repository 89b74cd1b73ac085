"""What an index generation holds beside Whoosh's own files, in one list (`held()`).

Each entry (registry.Held) is one thing a server reads beside the index: its name (the
`OpenIndex` attribute it becomes, or its key in `OpenIndex.parts`), its files, and how it is
made, updated and opened. A full build (`sync.IndexBuild`, in the parallel build's child
too), an incremental update (`sync._apply_changes`) and the live opener (`live.LiveIndex`)
all walk this list in its order, so a new derived file is one entry, not four edits. The
search's own entries are `SEARCH_HELD`; the features' (what's new's counts, the map's layout)
are registered (registry.register), and a build or an opening with none registered fails rather
than write or read a generation without them.

Things are made in one of two ways:
- counted while the documents are written (`counts`): a whole build starts from nothing, an
  update reads the generation's counts back and adds the papers it writes;
- derived from the committed Whoosh files (`derive`), told whether the build is whole: an
  update keeps what is costly to refit (the vectors' model, the map's layout) and places the
  new papers in it.

What no search needs (`deferred`: what's new's edition terms, the vectors and the map) an
ingest's build may leave to be derived after the ingest returns: the generation then names it
in `DEFERRED_FILE` until it is made (`write_deferred`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from sqlmodel import Session

from app.db import pending_keyphrases
from app.faults import pause_point
from app.search.index.arrays import ARRAYS_DIR, write_arrays
from app.search.index.held_files import write_lines
from app.search.index.manifest import damage_of, damaged_files
from app.search.index.paper_ids import IDS_DIR, PaperIds, write_paper_ids
from app.search.index.registry import Counts, Held, registered
from app.search.index.vector_fit import write_vectors
from app.search.index.vectors import MODEL_FILE, VECTORS_FILE, read_vectors
from app.search.rank.by_meaning import (
    MEANING_COUNT_FILE,
    MEANING_FILE,
    MEANING_SCALES_FILE,
    read_meaning,
)
from app.search.rank.filters import COLUMNS_DIR, mapped_facet_columns, write_facet_columns
from app.search.words.acronyms import ACRONYMS_FILE, AcronymCounts
from app.search.words.completions import (
    AUTHORS_FILE,
    COMPLETION_TABLES_DIR,
    PHRASES_FILE,
    CompletionCounts,
    Completions,
)
from app.search.words.vocabulary import VOCABULARY_FILE, WORD_TABLES_DIR, Vocabulary, WordCounts

VERSION_FILE = "catalog_version"  # its stamp: catalog version, index format, catalog (index.py)
DEFERRED_FILE = "deferred"  # the entries left to derive, one name a line


class PartsNotRegistered(RuntimeError):
    pass


def _counted(kind: type[WordCounts] | type[AcronymCounts] | type[CompletionCounts]
             ) -> Callable[[Path | None], Counts]:
    return lambda directory: kind() if directory is None else kind.read(directory)


# In the order they are made; a feature's entry is placed after the one it reads (`after`).
SEARCH_HELD: tuple[Held, ...] = (
    Held("arrays", (ARRAYS_DIR,), derive=lambda directory, whole: write_arrays(directory)),
    Held("ids", (IDS_DIR,), derive=lambda directory, whole: write_paper_ids(directory),
         open=lambda directory, documents: PaperIds.mapped(directory)),
    Held("columns", (COLUMNS_DIR,), derive=lambda directory, whole: write_facet_columns(directory),
         open=lambda directory, documents: mapped_facet_columns(directory)),
    Held("vocabulary", (VOCABULARY_FILE, WORD_TABLES_DIR), counts=_counted(WordCounts),
         open=lambda directory, documents: Vocabulary.read(directory)),
    Held("meanings", (ACRONYMS_FILE,), counts=_counted(AcronymCounts),
         open=lambda directory, documents: AcronymCounts.read(directory).meanings()),
    Held("completions", (PHRASES_FILE, AUTHORS_FILE, COMPLETION_TABLES_DIR),
         counts=_counted(CompletionCounts),
         open=lambda directory, documents: Completions.read(directory)),
    Held("vectors", (VECTORS_FILE, MODEL_FILE),
         derive=lambda directory, whole: write_vectors(directory, refit=whole),
         open=read_vectors, deferred=True),
    # The sentence vectors come from the database, not the index: laid out by
    # `by_meaning.write_meaning`, which sync.py calls with a session.
    Held("meaning", (MEANING_FILE, MEANING_SCALES_FILE, MEANING_COUNT_FILE), open=read_meaning,
         from_database=True),
)


def held() -> tuple[Held, ...]:
    """Every entry a generation holds, in the order they are made."""
    if not registered():
        raise PartsNotRegistered("no feature has registered its part of the index: call "
                                 "app.feature_parts.register_parts() first")
    order = list(SEARCH_HELD)
    for part in registered():
        order.insert(1 + next(i for i, entry in enumerate(order) if entry.name == part.after),
                     part)
    return tuple(order)


def start_counts(directory: Path | None = None) -> list[Counts]:
    """The counts of every entry that counts: new, or read back from `directory`."""
    return [entry.counts(directory) for entry in held() if entry.counts is not None]


def write_held(directory: Path, counts: list[Counts], whole: bool, defer: bool = False) -> None:
    """Write every entry's files into a generation whose Whoosh files are committed; with
    `defer`, the deferred entries are only named in `DEFERRED_FILE`."""
    counted = iter(counts)
    entries = held()
    for entry in entries:
        if entry.counts is not None:
            next(counted).write(directory)
        if entry.derive is not None and not (defer and entry.deferred):
            entry.derive(directory, whole)
    if defer:
        (directory / DEFERRED_FILE).write_text("".join(
            f"{entry.name}\n" for entry in entries if entry.deferred))
    else:  # an update derives everything: nothing is left to derive
        (directory / DEFERRED_FILE).unlink(missing_ok=True)


def deferred_of(directory: Path) -> list[str]:
    """The names of the entries the generation has left to derive."""
    try:
        return (directory / DEFERRED_FILE).read_text().split()
    except OSError:
        return []


def left_to_derive(session: Session, index: Path) -> list[str]:
    """What is still to come of what an ingest left to derive after it returned: the
    catalog's (its papers' keyphrases, `enrich.complete_keyphrases`) and the live generation's
    at `index`, with what was found damaged there and is made again alone."""
    catalog = ["keyphrases"] if pending_keyphrases(session) is not None else []
    live = index.resolve()
    return catalog + list(dict.fromkeys(deferred_of(live) + list(damaged_parts(live) or ())))


def write_deferred(directory: Path) -> None:
    """Derive what the generation left to derive (all of it again after an interruption: each
    entry's files are replaced whole, so a half-written one is never read)."""
    names = set(deferred_of(directory))
    for entry in held():
        if entry.name in names and entry.derive is not None:
            entry.derive(directory, True)
            pause_point(f"derived-{entry.name}")  # crash tests: killed half-way
    (directory / DEFERRED_FILE).unlink(missing_ok=True)


def damaged_parts(directory: Path) -> tuple[str, ...] | None:
    """What the generation is served without, as manifest.verify marked it: nothing where
    nothing was found damaged; the entries holding every damaged file, where each is made
    again alone (deferred, or laid out from the database), not rebuilt; None where the damage
    is elsewhere (the Whoosh files, the arrays, the counts) or the generation could not be
    opened: it is rebuilt."""
    if damage_of(directory) is None:
        return ()
    parts: dict[str, None] = {}
    for name in damaged_files(directory):
        entry = next((entry for entry in held() if any(
            name == file or name.startswith(f"{file}/") for file in entry.files)), None)
        if entry is None or not (entry.deferred or entry.from_database):
            return None
        parts[entry.name] = None
    return tuple(parts) or None


def drop_damaged(directory: Path, parts: tuple[str, ...]) -> bool:
    """Remove the damaged entries' files from a successor generation, the deferred ones named
    left to derive (`write_deferred`); whether the sentence vectors are to be laid out again."""
    dropped = [entry for entry in held() if entry.name in parts]
    for entry in dropped:
        for name in entry.files:
            path = directory / name
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
    deferred = [entry.name for entry in dropped if entry.deferred]
    if deferred:
        write_lines(directory / DEFERRED_FILE,
                    (f"{name}\n" for name in dict.fromkeys(deferred_of(directory) + deferred)))
    return any(entry.from_database for entry in dropped)


def open_held(directory: Path, documents: int, without: tuple[str, ...] = ()
              ) -> dict[str, object]:
    """What a server reads of a generation, by `OpenIndex` attribute: the search's own
    entries, and the features' by name under `parts`; None for those `without` (damaged)."""
    opened = {entry.name: None if entry.name in without else entry.open(directory, documents)
              for entry in held() if entry.open is not None}
    parts = {part.name: opened.pop(part.name) for part in registered() if part.name in opened}
    return {**opened, "parts": parts}
