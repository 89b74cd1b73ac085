"""Which paper a row of an input file is.

The same abstract in one edition is one paper, unless the rows tell two papers apart: a
source that listed two papers under one abstract (a scraper's mistake) still lists two
papers, with other titles, people or links. The first of them keeps the abstract's ID (so a
paper without such a twin keeps the ID it always had); another gets an ID from the abstract
and its title, or, under one title too, from all the row says (`candidate_ids`), so each
keeps its ID from ingest to ingest. A row that says nothing besides its abstract (a list
file's) is the paper stored with that abstract, as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import NamedTuple

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.db import batched
from app.ids import paper_id
from app.ingest.listfile import RawAbstract
from app.ingest.people import People
from app.models import Paper

# The status of a twin whose title names no paper ("Withdrawn", one word, none): the source's
# status is replaced, and `status:placeholder` finds them.
PLACEHOLDER = "Placeholder"


# The fields of a row that say which paper it is (its edition and abstract), not what it says
# besides: a new field of RawAbstract or People is in the digest without being listed.
_IDENTITY = ("line", "text", "venue", "year")


def source_digest(abstract: RawAbstract) -> str:
    """A digest of what a row says besides its abstract, to tell a re-ingested row that
    changed its title, people or links from one that did not."""
    # The repr of plain strings and tuples of them is exact and fast (asdict and JSON took
    # 160 µs a row, an eighth of an ingest's added cost).
    said = tuple(value for field in fields(RawAbstract) if field.name not in _IDENTITY
                 for value in _values(getattr(abstract, field.name)))
    return hashlib.blake2b(repr(said).encode(), digest_size=8).hexdigest()


def _values(value: object) -> tuple[object, ...]:
    """A field's values in the digest: People's own fields, in order, or the value."""
    return (tuple(getattr(value, field.name) for field in fields(People))
            if isinstance(value, People) else (value,))


BARE = source_digest(RawAbstract(line=0, text=""))  # a row with nothing but its abstract


def is_placeholder(title: str) -> bool:
    """A title that names no paper: none, one word ("Withdrawn"), or a withdrawal notice."""
    return len(title.split()) <= 1 or title.strip(" [(").lower().startswith("withdrawn")


class IdCandidates(NamedTuple):
    digest: str  # of what the row says besides its abstract
    ids: tuple[str, str, str]  # the IDs it may take, in order


def candidates(slug: str, abstract: RawAbstract) -> IdCandidates:
    """The IDs a row may take, in order: its abstract's, then told apart by its title, then by
    all it says."""
    digest = source_digest(abstract)
    return IdCandidates(digest, (paper_id(slug, abstract.text),
                               paper_id(slug, abstract.text, abstract.title),
                               paper_id(slug, abstract.text, abstract.title, digest)))


class Holder(NamedTuple):
    """A row that holds an ID: claimed in this ingest or stored before."""

    file: str
    line: int
    digest: str
    placeholder: bool  # its title names no paper

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class RowNote:
    """What an ingest did with one row besides storing it: merged into another, kept apart."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


def stored_holders(session: Session, ids: Iterable[str]) -> dict[str, Holder]:
    """The stored papers among `ids`, as holders of their IDs."""
    found: dict[str, Holder] = {}
    for batch in batched(sorted(set(ids)), 2000):
        found.update((pid, Holder(file, line, digest, is_placeholder(title)))
                     for pid, file, line, digest, title in session.exec(
                         select(Paper.id, Paper.source_file, Paper.source_line,
                                Paper.source_digest, Paper.title)
                         .where(col(Paper.id).in_(batch))))
    return found


class Identities:
    """The IDs claimed by the rows of one ingest, and what it noted of the others."""

    def __init__(self) -> None:
        self.claimed: dict[str, Holder] = {}  # IDs of papers present in this ingest's files
        self.placeholders: set[str] = set()  # twins to mark as placeholders
        self.merged: list[RowNote] = []  # rows that are a paper stored or read before
        self.apart: list[RowNote] = []  # rows kept apart from a paper with their abstract

    def identify(self, abstract: RawAbstract, said: IdCandidates, stored: dict[str, Holder],
                 name: str) -> tuple[str, str]:
        """The row's ID and what it is: "new", "kept" (stored so from this file), "replace"
        (stored from this file, saying something else now) or "duplicate"."""
        digest, ids = said
        row = Holder(name, abstract.line, digest, is_placeholder(abstract.title))
        twin: tuple[str, Holder] | None = None
        for index, pid in enumerate(ids):
            held = self.claimed.get(pid)
            if held is None:
                on_file = stored.get(pid)
                if on_file is None:
                    return self._claim(pid, row, twin), "new"
                if on_file.file == name:  # re-read: the row is that paper, unless...
                    if on_file.digest == digest:
                        return self._claim(pid, row, twin), "kept"
                    if not any(later in stored and stored[later].file == name
                               and later not in self.claimed  # ...it was stored as a twin
                               for later in ids[index + 1:]):
                        return self._claim(pid, row, twin), "replace"
                    continue
                held = on_file
            if held.digest == digest or BARE in (held.digest, digest):
                why = ("same abstract, title, people and links" if held.digest == digest
                       else "same abstract, and one of them says nothing else")
                self.merged.append(RowNote(name, abstract.line, f"the same paper as "
                                           f"{held.place} ({why}): not stored again"))
                self.claimed.setdefault(pid, held)
                return pid, "duplicate"
            twin = twin or (pid, held)
        self.merged.append(RowNote(name, abstract.line, "an ID no twin could take"))
        return ids[0], "duplicate"

    def _claim(self, pid: str, row: Holder, twin: tuple[str, Holder] | None) -> str:
        self.claimed[pid] = row
        if twin is not None:
            twin_id, held = twin
            if row.placeholder:
                self.placeholders.add(pid)
            if held.placeholder:
                self.placeholders.add(twin_id)
            self.apart.append(RowNote(row.file, row.line,
                                      f"another paper than {held.place} (same abstract, "
                                      f"other title, people or links): kept as {pid}"))
        return pid


def mark_placeholders(session: Session, ids: set[str]) -> list[str]:
    """Mark the twins stored before as placeholders; the IDs of those it changed."""
    marked = [pid for batch in batched(sorted(ids), 500) for pid in session.exec(
        select(Paper.id).where(col(Paper.id).in_(batch), Paper.status != PLACEHOLDER))]
    for batch in batched(marked, 500):
        session.execute(update(Paper).where(col(Paper.id).in_(batch)).values(status=PLACEHOLDER))
    return marked
