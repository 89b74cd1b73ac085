"""The `catalog` command: ingest list files, serve the catalog, rebuild the index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.config import Settings, get_settings
from app.db import connect, get_engine, session_scope
from app.ingest.load import IngestReport, ingest_paths
from app.schema import CatalogSchemaError, upgrade
from app.search.index import build_index, sync_index
from app.topics import retopic_all

cli = typer.Typer(help="A browsable catalog of ML conference paper abstracts.",
                  no_args_is_help=True, add_completion=False)


@cli.command()
def ingest(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="List files, or directories of them (*.txt). Default: the seeds directory.")] = None,
) -> None:
    """Load conference list files into the catalog and bring the search index up to date.

    With a shared database (CATALOG_DATABASE_URL), only an index already on this machine is
    updated: every server brings its own up to date from the database.
    """
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with session_scope(settings.database_url) as session:
        report = ingest_paths(session, paths or [settings.seeds_dir],
                              progress=lambda line: typer.echo(f"  {line}"))
        if _index_is_local(settings):
            index_state = sync_index(settings, session)
        else:
            index_state = "left to the servers (none on this machine)"
    _print_report(report, index_state)
    if report.errors:
        raise typer.Exit(1)


def _index_is_local(settings: Settings) -> bool:
    return settings.database_url.startswith("sqlite") or settings.index_path.exists()


def _print_report(report: IngestReport, index_state: str) -> None:
    typer.echo(f"files read: {report.files_read} ({report.files_unchanged} unchanged)")
    typer.echo(f"papers added: {report.added}, unchanged: {report.unchanged}, "
               f"duplicate: {report.duplicate}, removed: {report.removed}")
    for label, count in report.papers_per_venue.items():
        typer.echo(f"  {label}: {count} papers")
    typer.echo(f"search index: {index_state}")
    typer.echo(f"errors: {len(report.errors)}")
    for error in report.errors:
        typer.echo(f"  error: {error}", err=True)


@cli.command()
def reindex() -> None:
    """Rebuild the search index from the database and swap it in atomically."""
    settings = get_settings()
    with session_scope(settings.database_url) as session:
        count = build_index(settings, session)
    typer.echo(f"search index rebuilt: {count} papers")


@cli.command("update-index")
def update_index() -> None:
    """Bring this machine's search index up to date with the database, as servers do.

    Applies the catalog's change log since the index's version, or rebuilds the index when the
    log does not cover it. Prints "busy" when another process is updating the index.
    """
    settings = get_settings()
    with session_scope(settings.database_url) as session:
        typer.echo(sync_index(settings, session, wait=False))


@cli.command()
def retopic() -> None:
    """Recompute every paper's topics and keyphrases, e.g. after editing app/topics.json."""
    settings = get_settings()
    with session_scope(settings.database_url) as session:
        count = retopic_all(session)
        index_state = sync_index(settings, session) if _index_is_local(settings) else (
            "left to the servers")
    typer.echo(f"topics and keyphrases recomputed for {count} papers; search index: "
               f"{index_state}")


@cli.command()
def migrate(
    revision: Annotated[str, typer.Option(help="The schema revision to migrate to.")] = "head",
) -> None:
    """Create the catalog database, or upgrade an existing one in place, to this release."""
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
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
    get_engine(settings.database_url)  # fail now, with the reason, on a database we cannot use
    # Each worker process builds its own app from the same environment.
    uvicorn.run("app.main:create_app", factory=True, host=host, port=port, workers=workers,
                log_level="info")


def main() -> None:
    try:
        cli()
    except CatalogSchemaError as error:
        typer.echo(f"error: {error}", err=True)
        raise SystemExit(2) from None


if __name__ == "__main__":  # how servers run `update-index` (app/search/keeper.py)
    main()
