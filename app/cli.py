"""The `catalog` command: ingest list files, serve the catalog, rebuild the index."""

from __future__ import annotations

import operator
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session

from app.config import Settings, SettingsError, get_settings
from app.db import (
    catalog_id,
    catalog_version,
    check_database,
    connect,
    database_name,
    get_engine,
    paper_total,
    pending_keyphrases,
    session_scope,
)
from app.enrich import ON_INGEST, complete_keyphrases, retopic_all
from app.faults import describe
from app.feature_parts import register_parts
from app.ingest.load import IngestReport, expand_paths, ingest_paths
from app.meaning.job import EncodingElsewhere
from app.meaning.model_files import ModelMissing, ModelRefused
from app.meaning.store import counts
from app.schema import INGEST_LOCK, CatalogSchemaError, catalog_lock, upgrade
from app.search.index.generation import left_to_derive
from app.search.index.meaning_updates import encode_and_publish, progress_bar
from app.search.index.parallel_build import ParallelIndexBuild
from app.search.index.sync import (
    IndexStamp,
    SyncKind,
    build_index,
    index_lock,
    publish_vectors,
    sync_index,
)
from app.search.words.acronyms import AcronymCounts
from app.topics import use_taxonomy

PARALLEL_BUILD_BYTES = 2_000_000  # about 1,500 abstracts
cli = typer.Typer(help="A browsable catalog of ML conference paper abstracts.",
                  no_args_is_help=True, add_completion=False)


class Refused(Exception):
    """A command that must not run, or a fault it met: its one line says why and what was
    kept (`main` prints it; the traceback only with --debug)."""


# Typer keeps one callback: a second `@cli.callback()` replaced this one, and with it the
# --debug option (a fault's traceback was never printed).
@cli.callback()
def _options(debug: Annotated[bool, typer.Option(
        "--debug", envvar="CATALOG_DEBUG",
        help="On a fault (a full disk, a locked or damaged database), print the traceback "
        "too, not only the line that names it.")] = False) -> None:
    """A browsable catalog of ML conference paper abstracts."""
    _debug.append(debug)
    use_taxonomy(get_settings().topics_file)
    register_parts()


_debug: list[bool] = []


def _refuse_damaged(settings: Settings) -> None:
    """Refuse to work on a damaged database: a command would read it wrongly or fail half-way
    (2.6 s at L, for SQLite's PRAGMA quick_check)."""
    damage = check_database(settings.database_url)
    if damage is not None:
        raise Refused(f"{damage}: nothing was changed; restore it from a backup, or move it "
                      "aside and ingest the lists again")


@cli.command()
def ingest(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="List files, JSON Lines or CSV exports (also .gz), or directories of them. "
        "Default: the seeds directory.")] = None,
) -> None:
    """Load conference list files into the catalog and bring the search index up to date.

    One ingest runs at a time on a catalog: another waits for it. With a shared database
    (CATALOG_DATABASE_URL), only an index already on this machine is updated: every server
    brings its own up to date from the database.
    """
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    paths = paths or [settings.seeds_dir]
    _refuse_damaged(settings)
    waiting = partial(typer.echo, "waiting for another ingest into "
                      f"{database_name(settings.database_url)} to finish...", err=True)
    with catalog_lock(get_engine(settings.database_url), "ingest", INGEST_LOCK, waiting), \
            session_scope(settings.database_url) as session:
        report, built = _store(settings, session, paths)
        try:
            index_state = _index_after_ingest(settings, session, built, report.changed)
        except OSError as error:  # the papers are stored: only the index is behind
            fault = describe(error, settings.data_dir)
            if fault is None or _debug[-1:] == [True]:
                raise
            raise Refused(f"the {report.added + report.updated:,} papers added or updated are "
                          f"stored; the search index could not be written: {fault}; free "
                          "space and the server (or `catalog update-index`) will catch up"
                          ) from error
    _print_report(report, index_state)
    if report.errors:
        raise typer.Exit(1)


def _store(settings: Settings, session: Session, paths: list[Path]
           ) -> tuple[IngestReport, int | None]:
    """The files' papers stored in one transaction; for a first large ingest, their index
    built beside, in a second process (and how many papers it holds, if it was)."""
    if pending_keyphrases(session) is not None:
        # A previous ingest's keyphrases first, with the word statistics they were left
        # with: after its `update-index` (which holds the lock while it derives them).
        with index_lock(settings):
            complete_keyphrases(session)
    build = _parallel_build(settings, session, paths)
    try:
        # What the first search needs is stored, the rest derived after this returns.
        report = ingest_paths(session, paths, ON_INGEST, sink=build, scratch=settings.data_dir,
                              progress=lambda line: typer.echo(f"  {line}"),
                              defer_keyphrases=build is not None)
    except BaseException:
        if build:
            build.abort()
        raise
    built = build.finish(IndexStamp(catalog_version(session), catalog_id(session)),
                         report.added) if build else None
    return report, built


def _index_after_ingest(settings: Settings, session: Session, built: int | None,
                        changed: bool) -> str:
    """Bring this node's index up to date after an ingest (that `changed` the catalog);
    what was done, for its report."""
    if not _index_is_local(settings):
        return "left to the servers (none on this machine)"
    # Up to date when the parallel build made it; else it did not: build now
    outcome = sync_index(settings, session, complete=False)
    index_state = str(outcome)
    if outcome.kind is SyncKind.UP_TO_DATE and built is not None:
        index_state = f"built while storing ({built} papers)"
    elif outcome.kind is SyncKind.UP_TO_DATE and changed:
        # A server's keeper on this machine applied the change log between the commit and
        # here: "up to date" alone read as if the ingest had not reached the index.
        index_state = "updated (by the server running on this data dir)"
    left = left_to_derive(session, settings.index_path)
    if settings.encode_vectors and operator.lt(*counts(session)):
        left.append("sentence vectors")
    if left:
        start_deferred(settings)
        index_state += f"; {', '.join(left)} derived in the background (see /healthz)"
    return index_state


def _parallel_build(settings: Settings, session: Session,
                    paths: list[Path]) -> ParallelIndexBuild | None:
    """An index build in a second process for a first, large ingest: the whole index has to
    be built, and indexing while storing uses the second core (S: 59.6 -> 48.0 s)."""
    if not _index_is_local(settings) or paper_total(session):
        return None
    files, _ = expand_paths(paths)
    if sum(path.stat().st_size for path in files) < PARALLEL_BUILD_BYTES:
        return None  # starting the process costs more than it saves
    return ParallelIndexBuild(settings)


def start_deferred(settings: Settings) -> subprocess.Popen[bytes]:
    """`catalog update-index` in a session of its own, to derive what the ingest's build
    deferred after this command returns; its output goes to `deferred.log`. Killed, it leaves
    the work named in the generation: the next update (a server's, or this command's) redoes
    it."""
    with open(settings.data_dir / "deferred.log", "ab") as log:
        return subprocess.Popen([sys.executable, "-m", "app.cli", "update-index"],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)


def _index_is_local(settings: Settings) -> bool:
    return settings.database_url.startswith("sqlite") or settings.index_path.exists()


def _print_report(report: IngestReport, index_state: str) -> None:
    typer.echo(f"files read: {report.files_read} ({report.files_unchanged} unchanged)")
    typer.echo(f"papers added: {report.added}, updated: {report.updated}, "
               f"unchanged: {report.unchanged}, duplicate: {report.duplicate}, "
               f"removed: {report.removed}")
    for label, count in report.papers_per_venue.items():
        typer.echo(f"  {label}: {count} papers")
    for note in report.merged:
        typer.echo(f"  merged: {note}")
    for note in report.apart:
        typer.echo(f"  kept apart: {note}")
    typer.echo(f"search index: {index_state}")
    typer.echo(f"errors: {len(report.errors)}")
    for error in report.errors:
        typer.echo(f"  error: {error}", err=True)


@cli.command()
def reindex() -> None:
    """Rebuild the search index from the database and swap it in atomically."""
    settings = get_settings()
    _refuse_damaged(settings)
    with session_scope(settings.database_url) as session:
        count = build_index(settings, session)
    typer.echo(f"search index rebuilt: {count} papers")


@cli.command("update-index")
def update_index() -> None:
    """Bring this machine's search index up to date with the database, as servers do.

    Applies the catalog's change log since the index's version, or rebuilds the index when the
    log does not cover it. Prints "busy" when another process is updating the index. Then
    encodes the papers that lack a sentence vector (search by meaning), with a progress bar,
    publishing them as they come; killed, the next run resumes.
    """
    settings = get_settings()
    with session_scope(settings.database_url) as session:
        typer.echo(sync_index(settings, session, wait=False, derive_catalog=complete_keyphrases))
        if settings.encode_vectors:
            typer.echo(_encode_vectors(settings, session))


def _encode_vectors(settings: Settings, session: Session) -> str:
    """The papers lacking a sentence vector encoded, a progress bar on stderr; what was done."""
    try:
        made = encode_and_publish(settings, session, publish_vectors, progress_bar(
            partial(typer.echo, nl=False, err=True)), wait=False)
    except EncodingElsewhere:
        return "sentence vectors: another process is encoding this catalog's papers"
    except (ModelRefused, ModelMissing) as error:
        return f"sentence vectors: none made, search by words only: {error}"
    if made:
        typer.echo(err=True)  # ends the progress line
    with_vectors, total = counts(session)
    return (f"sentence vectors: {made:,} papers encoded; {with_vectors:,} of {total:,} papers "
            "have one")


@cli.command()
def retopic(keyphrases: bool = typer.Option(
        False, "--keyphrases", help="Also recompute the word statistics and every keyphrase."),
) -> None:
    """Recompute every paper's topics, e.g. after editing app/topics/topics.json; the index updates
    the papers whose primary topic moved."""
    settings = get_settings()
    with session_scope(settings.database_url) as session:
        done = retopic_all(session, keyphrases)
        index_state = sync_index(settings, session) if _index_is_local(settings) else (
            "left to the servers")
    typer.echo(f"{'topics and keyphrases' if keyphrases else 'topics'} recomputed for "
               f"{done.papers} papers, {done.moved} moved to another topic; search index: "
               f"{index_state}")


@cli.command()
def acronyms() -> None:
    """Print the acronyms search learned from the catalog's abstracts, with their meanings."""
    meanings = AcronymCounts.read(get_settings().index_path).meanings()
    if not meanings:
        typer.echo("no acronym is defined in two papers or more (or there is no index yet)")
    for meaning in meanings:
        typer.echo(f"{meaning.acronym}\t{meaning.long_form}\t{meaning.papers} papers")


@cli.command()
def migrate(
    revision: Annotated[str, typer.Option(help="The schema revision to migrate to.")] = "head",
) -> None:
    """Create the catalog database, or upgrade an existing one in place, to this release."""
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    _refuse_damaged(settings)
    before, after = upgrade(connect(settings.database_url), revision)
    if before == after:
        typer.echo(f"catalog schema: at revision {after}, nothing to do")
    else:
        typer.echo(f"catalog schema: upgraded from {before or 'an empty database'} to {after}")


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(
        min=1, help="Worker processes; they share this node's index directory.")] = 1,
) -> None:
    """Serve the catalog over HTTP.

    The search index is brought up to date in the background (built from the database when
    there is none): /healthz answers 503 "starting" until it can search.
    """
    import uvicorn

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    try:
        get_engine(settings.database_url)  # fail now, with the reason, on a database we cannot use
    except DatabaseError:
        damage = check_database(settings.database_url)
        if damage is None:
            raise
        # Damaged: served all the same, so that /healthz says so (503) while it is replaced.
        typer.echo(f"warning: {damage}", err=True)
    from app.search.rank.by_meaning import MODEL_DIR
    from app.serving import BoundedHeads, serve_workers
    from app.web.middleware import MAX_REQUEST_HEAD_BYTES

    # Each worker process builds its own app from the same environment; every one reads
    # request heads with BoundedHeads (431 past 100 header lines or 64 KB).
    app, options = "app.main:create_app", {
        "factory": True, "host": host, "port": port, "log_level": "info",
        "http": BoundedHeads, "h11_max_incomplete_event_size": MAX_REQUEST_HEAD_BYTES,
        "timeout_graceful_shutdown": settings.graceful_shutdown_seconds}
    # Supervised even alone: a worker killed by a signal (a mapped index file truncated
    # under it raises SIGBUS) is replaced, and the new one refuses the damaged generation.
    serve_workers(uvicorn.Config(app, workers=workers, **options), workers,
                  settings.data_dir / MODEL_DIR)


def main() -> None:
    try:
        cli()  # click answers usage errors and exits itself
    except (CatalogSchemaError, SettingsError, Refused) as error:
        typer.echo(f"error: {error}", err=True)
        raise SystemExit(2) from None
    except Exception as error:
        fault = describe(error, get_settings().data_dir)
        if fault is None or _debug[-1:] == [True]:
            raise
        # One transaction per ingest and generations swapped whole: a fault leaves both the
        # catalog and the live index as they were before the command.
        typer.echo(f"error: {fault}: the catalog and its search index are as they were "
                   "before this command (run it again with --debug for the traceback)",
                   err=True)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
