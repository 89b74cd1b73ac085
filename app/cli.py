"""The `catalog` command: ingest list files, serve the catalog, rebuild the index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.config import get_settings
from app.db import CatalogSchemaError, session_scope
from app.ingest.load import IngestReport, ingest_paths
from app.search.index import build_index, sync_index, update_index
from app.topics import retopic_all

cli = typer.Typer(help="A browsable catalog of ML conference paper abstracts.",
                  no_args_is_help=True, add_completion=False)


@cli.command()
def ingest(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="List files, or directories of them (*.txt). Default: the seeds directory.")] = None,
) -> None:
    """Load conference list files into the catalog and bring the search index up to date."""
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with session_scope(settings.database_url) as session:
        report = ingest_paths(session, paths or [settings.seeds_dir],
                              progress=lambda line: typer.echo(f"  {line}"))
        applied = report.changed and update_index(
            settings, session, report.added_ids, report.removed_ids, report.version_before)
        index_state = "updated" if applied else sync_index(settings, session)
    _print_report(report, index_state)
    if report.errors:
        raise typer.Exit(1)


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


@cli.command()
def retopic() -> None:
    """Recompute every paper's topics and keyphrases, e.g. after editing app/topics.json."""
    settings = get_settings()
    with session_scope(settings.database_url) as session:
        count = retopic_all(session)
        build_index(settings, session)
    typer.echo(f"topics and keyphrases recomputed for {count} papers; search index rebuilt")


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Serve the catalog over HTTP (rebuilding the search index first if it is stale)."""
    import uvicorn

    from app.main import create_app

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with session_scope(settings.database_url) as session:
        state = sync_index(settings, session)
    typer.echo(f"search index: {state}")
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


def main() -> None:
    try:
        cli()
    except CatalogSchemaError as error:
        typer.echo(f"error: {error}", err=True)
        raise SystemExit(2) from None
