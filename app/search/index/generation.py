"""What an index generation holds beside Whoosh's own files, in one list (`HELD`).

Each entry is one thing a server reads beside the index: its name (the `OpenIndex` attribute
it becomes), its files, and how it is made, updated and opened. A full build
(`index.IndexBuild`, in the parallel build's child too), an incremental update
(`index._apply_changes`) and the live opener (`live.LiveIndex`) all walk this list in its
order, so a new derived file is one entry here, not four edits.

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

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sqlmodel import Session

from app.db import pending_keyphrases
from app.faults import pause_point
from app.map.layout import MAP_FILE, read_layout, write_layout
from app.search.index.arrays import ARRAYS_DIR, write_arrays
from app.search.index.held_files import counts_in
from app.search.index.paper_ids import IDS_DIR, PaperIds, write_paper_ids
from app.search.index.vector_fit import write_vectors
from app.search.index.vectors import MODEL_FILE, VECTORS_FILE, read_vectors
from app.search.rank.by_meaning import MEANING_COUNT_FILE, MEANING_FILE, read_meaning
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
from app.whats_new.edition_terms import TERMS_FILE, read_edition_terms
from app.whats_new.term_counts import count_edition_terms

VERSION_FILE = "catalog_version"  # its stamp: catalog version, index format, catalog (index.py)
DEFERRED_FILE = "deferred"  # the entries left to derive, one name a line
Document = dict[str, object]


class Counts(Protocol):
    """Counted from each document as it is written, and written beside the index."""

    def add_document(self, document: Document) -> None: ...

    def write(self, directory: Path) -> None: ...


@dataclass(frozen=True)
class Held:
    name: str
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


def _counted(kind: type[WordCounts] | type[AcronymCounts] | type[CompletionCounts]
             ) -> Callable[[Path | None], Counts]:
    return lambda directory: kind() if directory is None else kind.read(directory)


# In the order they are made: edition terms read the completions' phrases and the arrays,
# the map's layout reads the vectors.
HELD: tuple[Held, ...] = (
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
    Held("edition_terms", (TERMS_FILE,),
         derive=lambda directory, whole: count_edition_terms(
             directory, counts_in(directory / PHRASES_FILE)),
         open=lambda directory, documents: read_edition_terms(directory), deferred=True),
    Held("vectors", (VECTORS_FILE, MODEL_FILE),
         derive=lambda directory, whole: write_vectors(directory, refit=whole),
         open=read_vectors, deferred=True),
    Held("positions", (MAP_FILE,),
         derive=lambda directory, whole: write_layout(directory, relayout=whole),
         open=read_layout, deferred=True),
    # The sentence vectors come from the database, not the index: laid out by
    # `by_meaning.write_meaning`, which index.py calls with a session.
    Held("meaning", (MEANING_FILE, MEANING_COUNT_FILE), open=read_meaning),
)


def start_counts(directory: Path | None = None) -> list[Counts]:
    """The counts of every entry that counts: new, or read back from `directory`."""
    return [held.counts(directory) for held in HELD if held.counts is not None]


def write_held(directory: Path, counts: list[Counts], whole: bool, defer: bool = False) -> None:
    """Write every entry's files into a generation whose Whoosh files are committed; with
    `defer`, the deferred entries are only named in `DEFERRED_FILE`."""
    counted = iter(counts)
    for held in HELD:
        if held.counts is not None:
            next(counted).write(directory)
        if held.derive is not None and not (defer and held.deferred):
            held.derive(directory, whole)
    if defer:
        (directory / DEFERRED_FILE).write_text("".join(
            f"{held.name}\n" for held in HELD if held.deferred))
    else:  # an update derives everything: nothing is left to derive
        (directory / DEFERRED_FILE).unlink(missing_ok=True)


def deferred_of(directory: Path) -> list[str]:
    """The names of the entries the generation has left to derive."""
    try:
        return (directory / DEFERRED_FILE).read_text().split()
    except OSError:
        return []


def left_to_derive(session: Session, index: Path) -> list[str]:
    """What an ingest left to derive after it returned, still to come: the catalog's (its
    papers' keyphrases, `enrich.complete_keyphrases`) and the live generation's at `index`."""
    catalog = ["keyphrases"] if pending_keyphrases(session) is not None else []
    return catalog + deferred_of(index.resolve())


def write_deferred(directory: Path) -> None:
    """Derive what the generation left to derive (all of it again after an interruption: each
    entry's files are replaced whole, so a half-written one is never read)."""
    names = set(deferred_of(directory))
    for held in HELD:
        if held.name in names and held.derive is not None:
            held.derive(directory, True)
            pause_point(f"derived-{held.name}")  # crash tests: killed half-way
    (directory / DEFERRED_FILE).unlink(missing_ok=True)


def open_held(directory: Path, documents: int) -> dict[str, object]:
    """What a server reads of a generation, by `OpenIndex` attribute."""
    return {held.name: held.open(directory, documents) for held in HELD
            if held.open is not None}
