"""Load parsed list files into the database in one transaction.

A file whose bytes are unchanged since its last ingest is skipped without parsing. A changed
file replaces the papers it contributed before: papers still in it keep their IDs (from the
venue and the abstract, app/ingest/identity.py), papers gone from it are removed. A rejected
file contributes nothing and leaves its previous papers untouched.
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Protocol

from sqlalchemy import insert
from sqlmodel import Session, col, select

from app.db import (
    batched,
    bump_catalog_version,
    catalog_version,
    paper_total,
    use_ingest_cache,
)
from app.faults import pause_point
from app.ids import edition_slug, name_slug
from app.ingest import identity, unpack
from app.ingest.enrichment import Enrichment
from app.ingest.listfile import InputError, ParsedList, RawAbstract, stream_list
from app.ingest.normalize import normalize_abstract
from app.ingest.people import origin_rows
from app.ingest.stored import delete_papers, papers_per_venue, renumber_venue, replace_papers
from app.ingest.tabular import stream_csv, stream_jsonl
from app.ingest.unpack import read_input
from app.models import Edition, Paper, PaperAuthor, PaperOrigin, SourceFile
from app.tex import title_text

PARSERS = {".txt": stream_list, ".jsonl": stream_jsonl, ".ndjson": stream_jsonl, ".csv": stream_csv}
INPUTS_HINT = "no .txt, .jsonl or .csv files (nor .gz of them)"


@dataclass
class IngestReport:
    files_read: int = 0
    files_unchanged: int = 0
    added: int = 0
    updated: int = 0  # stored before, with other people, links or title now
    unchanged: int = 0
    duplicate: int = 0
    removed: int = 0
    errors: list[InputError] = field(default_factory=list)
    merged: list[identity.RowNote] = field(default_factory=list)  # rows counted as duplicate
    apart: list[identity.RowNote] = field(default_factory=list)  # twins kept as papers apart
    papers_per_venue: dict[str, int] = field(default_factory=dict)
    added_ids: list[str] = field(default_factory=list)
    removed_ids: list[str] = field(default_factory=list)
    version_before: int = 0
    version_after: int = 0

    @property
    def changed(self) -> bool:
        return self.version_after != self.version_before


def input_format(path: Path) -> str:
    """The format's suffix of an input file, looking through `.gz` (`a.jsonl.gz` → `.jsonl`)."""
    suffixes = [suffix.lower() for suffix in path.suffixes[-2:]]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def expand_paths(paths: Iterable[Path]) -> tuple[list[Path], list[InputError]]:
    """Files named directly, and the input files inside named directories, in name order.
    A named directory without input files is an error: the ingest would silently do nothing."""
    files: list[Path] = []
    errors: list[InputError] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir()
                           if p.is_file() and input_format(p) in PARSERS)
            if not found:
                errors.append(InputError(path, 0, INPUTS_HINT))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():  # a FIFO, socket or device: reading it may never end
            errors.append(InputError(path, 0, unpack.NOT_A_FILE))
        else:
            errors.append(InputError(path, 0, "no such file or directory"))
    return files, errors


def _read_changed(path: Path, known: SourceFile | None, report: IngestReport,
                  progress: Callable[[str], None]) -> tuple[ParsedList, str] | None:
    """The file's papers, to be read as they are stored, with its digest; None (counted in
    the report) when it is unchanged since it was last ingested, too large, or not a list the
    parsers read (a file whose rows all fail is refused as it is stored)."""
    try:
        data = unpack.read_file(path)
    except InputError as error:
        report.errors.append(error)
        progress(f"{path}: rejected")
        return None
    digest = hashlib.sha256(data).hexdigest()
    if known is not None and known.sha256 == digest:
        report.files_unchanged += 1
        report.unchanged += known.paper_count
        progress(f"{path}: unchanged")
        return None
    parse = PARSERS.get(input_format(path), stream_list)
    try:
        return parse(path, read_input(path, data)), digest
    except InputError as error:
        report.errors.append(error)
        progress(f"{path}: rejected")
        return None


def _store_file(store: _Store, listing: ParsedList, digest: str, report: IngestReport,
                progress: Callable[[str], None]) -> None:
    """Store the file's papers as they are read; a file found to hold no usable row at its
    end is rejected (it stored nothing)."""
    try:
        papers = store.file(listing, digest)
    except InputError as error:
        report.errors.append(error)
        progress(f"{listing.path}: rejected")
        return
    report.errors.extend(listing.row_errors + listing.field_errors)
    skipped, dropped = len(listing.row_errors), len(listing.field_errors)
    progress(f"{listing.path}: {papers} abstracts"
             + (f", {skipped} bad rows skipped" if skipped else "")
             + (f", {dropped} bad fields left out" if dropped else ""))


def ingest_paths(
    session: Session, paths: Iterable[Path], enrichment: Enrichment,
    progress: Callable[[str], None] = lambda _: None, sink: PaperSink | None = None,
    scratch: Path | None = None, defer_keyphrases: bool = False,
) -> IngestReport:
    """Store the papers of the files in one transaction, with what `enrichment` derives of
    them, showing each new one to `sink`; new papers wait in a file under `scratch` (not a
    small or in-memory /tmp) till the last file. With `defer_keyphrases`, an ingest into an
    empty catalog stores them without keyphrases and leaves those and their word statistics
    to `enrich.complete_keyphrases`."""
    files, errors = expand_paths(paths)
    use_ingest_cache(session)
    report = IngestReport(errors=errors, version_before=catalog_version(session))
    known = {source.name: source for source in session.exec(select(SourceFile))}
    seen_names: set[str] = set()
    try:
        if scratch is not None:
            scratch.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=scratch) as spill:
            store = _Store(session, report, enrichment, sink, spill)
            # Into an empty catalog, no paper is replaced or removed: every paper is new.
            store.defer_keyphrases = defer_keyphrases and not paper_total(session)
            for path in files:  # one file's bytes in memory at a time
                report.files_read += 1
                if path.name in seen_names:
                    report.errors.append(InputError(path, 0, f"another file named {path.name!r} "
                                                    "is already part of this ingest"))
                    continue
                seen_names.add(path.name)
                read = _read_changed(path, known.get(path.name), report, progress)
                if read is not None:
                    _store_file(store, *read, report, progress)
            if sink is not None:
                store.sink_deferred(sink)
                sink.seal()
            store.finish()
        pause_point("ingest-commit")  # crash tests: every change made, none committed
        session.commit()
    except BaseException:
        session.rollback()
        raise
    report.version_after = catalog_version(session)
    report.papers_per_venue = papers_per_venue(session)
    return report


class PaperSink(Protocol):
    """What sees each new paper as soon as it is normalized, before the transaction commits
    (e.g. to index it meanwhile); `seal` follows the last one."""

    def add(self, paper: Paper, venue: Edition) -> None: ...

    def seal(self) -> None: ...


# Papers are stored a chunk at a time: normalized, shown to the sink and spilled to a file
# until the word statistics of the whole ingest are known, so that an ingest's memory is
# bounded by a chunk, not by its input (4× the corpus held 2.8-3.4 GB in one process).
STORE_CHUNK = 2_000
# New papers' topics are scored this many at a time (parallel_build.BATCH): the index-build
# child indexes one batch while the next is normalized.
SCORED_TOGETHER = 256


@dataclass
class _NewPapers:
    """One chunk's new rows of papers, their authors and their origins."""

    rows: list[dict[str, object]] = field(default_factory=list)
    authors: list[dict[str, object]] = field(default_factory=list)
    origins: list[dict[str, object]] = field(default_factory=list)


class _Store:
    """The storing half of one ingest: each parsed file's papers, then what they change."""

    def __init__(self, session: Session, report: IngestReport, enrichment: Enrichment,
                 sink: PaperSink | None, spill: IO[bytes]) -> None:
        self.session = session
        self.report = report
        self.enrichment = enrichment
        self.sink = sink
        self.now = datetime.now(UTC)
        # New papers get distinct placeholder ordinals far below any real one until renumbering.
        self.placeholder = -(2**30)  # within a 32-bit INTEGER (PostgreSQL)
        self.ids = identity.Identities()  # the IDs of papers present in the files of this ingest
        self.deferred: list[dict[str, object]] = []  # placeholder-titled rows the sink awaits
        self.files: list[str] = []  # their papers stored before and not claimed now go
        self.venues: dict[str, Edition] = {}
        self.replaced: set[str] = set()  # stored papers whose row a new one replaces
        self.words: Counter[str] = Counter()  # document frequencies of the added papers' words
        self.spill = spill  # the new papers, a pickled chunk after another
        self.chunks = self.new = 0
        self.defer_keyphrases = False

    def file(self, listing: ParsedList, digest: str) -> int:
        """Store the file's papers, a chunk at a time as they are read; how many it holds."""
        name = listing.path.name
        outcomes: Counter[str] = Counter()
        stored = self.chunks
        try:
            for chunk in batched(listing.abstracts, STORE_CHUNK):
                outcomes.update(self._chunk(chunk, name))
        except InputError as error:
            # Parsers refuse a file before its first paper, or at its end when it had none:
            # a refusal after papers were kept fails the ingest rather than keep half a file.
            if self.chunks != stored:
                raise RuntimeError(f"{error} (after papers of the file were stored)") from error
            raise
        self.files.append(name)
        self.report.unchanged += outcomes["kept"]
        self.report.updated += outcomes["updated"]
        self.session.merge(SourceFile(name=name, sha256=digest, ingested_at=self.now,
                                      paper_count=outcomes.total() - outcomes["duplicate"]))
        return outcomes.total()

    def _chunk(self, abstracts: list[RawAbstract], name: str) -> list[str]:
        slugs = [self._venue(abstract.venue, abstract.year) for abstract in abstracts]
        said = [identity.candidates(slug, abstract) for slug, abstract in zip(slugs, abstracts,
                                                                              strict=True)]
        stored = identity.stored_holders(self.session, (pid for row in said for pid in row.ids))
        new, outcomes = _NewPapers(), list[str]()
        for part in batched(zip(abstracts, slugs, said, strict=True), SCORED_TOGETHER):
            shown = len(new.rows)
            outcomes += [self.paper(*row, stored, name, new) for row in part]
            self._show(new.rows[shown:])
        if new.rows and not self.defer_keyphrases:
            self.words.update(self.enrichment.count_words(
                str(row["plain"]) for row in new.rows if row["id"] not in self.replaced))
        if new.rows:
            pickle.dump(new, self.spill, protocol=pickle.HIGHEST_PROTOCOL)
            self.chunks += 1
            self.new += len(new.rows)
        return outcomes

    def _venue(self, name: str, year: int) -> str:
        slug = edition_slug(name, year)
        if slug not in self.venues:
            venue = self.session.get(Edition, slug)
            if venue is None:
                venue = Edition(slug=slug, name=name, year=year)
                self.session.add(venue)
                self.session.flush()
            self.venues[slug] = venue
        return slug

    def paper(self, abstract: RawAbstract, slug: str, said: identity.IdCandidates,
              stored: dict[str, identity.Holder], name: str, new: _NewPapers) -> str:
        """Keep one abstract of file `name` (`stored`: the stored holders of its candidate
        IDs): "added", "kept" (stored before, as it is), "updated" (stored before, with
        another title, people or links) or "duplicate"."""
        pid, kind = self.ids.identify(abstract, said, stored, name)
        if kind in ("duplicate", "kept"):
            self.report.duplicate += kind == "duplicate"
            return kind
        if kind == "replace":
            self.replaced.add(pid)
        people = abstract.people
        normalized = normalize_abstract(abstract.text)
        headline = title_text(abstract.title) or normalized.headline
        self.placeholder += 1
        row: dict[str, object] = {
            "id": pid, "edition_slug": slug, "ordinal": self.placeholder,
            "abstract": abstract.text, "plain": normalized.plain, "html": normalized.html,
            "headline": headline, "title": abstract.title,
            "authors": "\n".join(people.authors),
            "affiliations": "\n".join(people.affiliations),
            "institutions": "\n".join(people.institutions),
            "countries": "\n".join(people.countries), "tldr": people.tldr, "url": abstract.url,
            "keywords": "\n".join(abstract.keywords),
            "status": identity.PLACEHOLDER if pid in self.ids.placeholders else abstract.status,
            "code_urls": "\n".join(dict.fromkeys(
                url for url in (people.code, *normalized.code_urls) if url)),
            "source_file": name, "source_line": abstract.line, "source_digest": said.digest,
            "added_at": self.now,
        }
        new.rows.append(row)
        new.authors.extend({"paper_id": pid, "position": i, "name": author,
                            "slug": name_slug(author)} for i, author in enumerate(people.authors))
        new.origins.extend(origin_rows(pid, slug, people))
        return "updated" if pid in self.replaced else "added"

    def _show(self, rows: list[dict[str, object]]) -> None:
        """Score new papers' topics together, then show them to the sink."""
        self.enrichment.score_topics(rows, [self.venues[str(row["edition_slug"])]
                                            for row in rows])
        for row in rows:
            if self.sink is not None and identity.is_placeholder(str(row["title"])):
                self.deferred.append(row)  # a twin read later may mark it a placeholder
            elif self.sink is not None:  # a plain object: validating it took a tenth of an ingest
                self.sink.add(Paper.model_construct(**row), self.venues[str(row["edition_slug"])])

    def sink_deferred(self, sink: PaperSink) -> None:
        """Show the sink the rows held back, marked as placeholders where a twin came."""
        for row in self.deferred:
            status = identity.PLACEHOLDER if row["id"] in self.ids.placeholders else row["status"]
            sink.add(Paper.model_construct(**{**row, "status": status}),
                     self.venues[str(row["edition_slug"])])

    def finish(self) -> None:
        """Word statistics, the spilled papers with their keyphrases, removals, ordinals and
        the version."""
        session, report = self.session, self.report
        gone = sorted(pid for name in self.files for pid in session.exec(
            select(Paper.id).where(Paper.source_file == name)) if pid not in self.ids.claimed)
        for batch in batched(gone, 500):  # their words counted out, a batch of texts at a time
            self.words.subtract(self.enrichment.count_words(session.exec(
                select(Paper.plain).where(col(Paper.id).in_(batch)))))
        self.enrichment.store_word_counts(session, self.words)
        # Replaced rows go first: keyphrases weigh words by the papers stored besides the new.
        first_added = replace_papers(session, sorted(self.replaced))
        if self.chunks:
            self._insert(first_added)
        report.added += self.new - len(self.replaced)
        marked = identity.mark_placeholders(session, self.ids.placeholders)
        report.merged, report.apart = self.ids.merged, self.ids.apart
        delete_papers(session, gone)
        report.removed += len(gone)
        report.removed_ids.extend(gone)
        for slug in self.venues:
            renumber_venue(session, slug)
        if report.added or report.updated or report.removed or marked:
            bump_catalog_version(session, [*report.added_ids, *report.removed_ids, *marked])

    def _insert(self, first_added: dict[str, datetime]) -> None:
        """The spilled papers, a chunk at a time, with their keyphrases (or left to extract)."""
        self.spill.seek(0)
        spilled = (pickle.load(self.spill) for _ in range(self.chunks))
        if self.defer_keyphrases:  # nothing the first search needs: extracted after it returns
            self.enrichment.leave_keyphrases(self.session, self.new)
            for new in spilled:
                self._insert_chunk(new, first_added)
            return
        for new in self.enrichment.keyphrased(self.session, self.new, spilled,
                                              lambda new: new.rows):
            self._insert_chunk(new, first_added)

    def _insert_chunk(self, new: _NewPapers, first_added: dict[str, datetime]) -> None:
        for row in new.rows:
            row["added_at"] = first_added.get(str(row["id"]), row["added_at"])
            row.setdefault("keyphrases", "")
        for table, rows in ((Paper, new.rows), (PaperAuthor, new.authors),
                            (PaperOrigin, new.origins)):
            # The table's own insert (Core), not the model's: the ORM's bulk insert handles
            # each row again in Python, most of an insert's time beside SQLite's.
            statement = insert(table.__table__)  # type: ignore[attr-defined]
            for batch in batched(rows, 1000):
                self.session.execute(statement, batch)
        self.report.added_ids.extend(str(row["id"]) for row in new.rows)
