import os
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from app import cli as cli_module
from app.catalog import list_venues
from app.cli import cli
from app.enrich import ON_INGEST
from app.ingest import load
from app.ingest.listfile import InputError, ParsedList, RawAbstract
from app.models import Paper
from tests.conftest import Catalog, write_list
from tests.postgres import sqlite_run


def snapshot(catalog: Catalog) -> dict[str, tuple[str, int, int]]:
    with catalog.session() as session:
        return {p.id: (p.edition_slug, p.ordinal, p.source_line)
                for p in session.exec(select(Paper))}


def test_two_files_of_one_venue_merge(seeded: Catalog):
    with seeded.session() as session:
        counts = {v.slug: v.paper_count for v in list_venues(session)}
    assert counts == {"icml-2026": 38, "iclr-2026": 17, "neurips-2026": 36}
    assert seeded.report.added == 91 and seeded.report.errors == []


def test_each_paper_records_its_source_file_and_line(seeded: Catalog):
    with seeded.session() as session:
        paper = session.exec(select(Paper).where(Paper.edition_slug == "iclr-2026")
                             .order_by(Paper.ordinal)).first()
    assert paper is not None
    assert (paper.source_file, paper.source_line) == ("001_4bd91504f5572ffe.txt", 3)
    first_line = (seeded.seeds / paper.source_file).read_text().splitlines()[2]
    assert paper.abstract == first_line.strip()


def test_ordinals_number_each_venue_from_zero(seeded: Catalog):
    by_venue: dict[str, list[int]] = {}
    for slug, ordinal, _ in snapshot(seeded).values():
        by_venue.setdefault(slug, []).append(ordinal)
    assert {slug: sorted(o) for slug, o in by_venue.items()} == {
        slug: list(range(len(o))) for slug, o in by_venue.items()}


def test_reingest_is_idempotent(fresh: Catalog):
    before = snapshot(fresh)
    report = fresh.ingest(fresh.seeds)
    assert (report.added, report.unchanged, report.removed) == (0, 91, 0)
    assert report.files_unchanged == 5 and not report.changed
    assert snapshot(fresh) == before


def test_touched_but_identical_file_keeps_ids(fresh: Catalog):
    before = snapshot(fresh)
    seed = next(fresh.seeds.glob("001_*.txt"))
    seed.write_bytes(seed.read_bytes().replace(b"\n", b"\r\n"))  # new bytes, same abstracts
    report = fresh.ingest(fresh.seeds)
    assert (report.added, report.unchanged, report.removed) == (0, 91, 0)
    assert snapshot(fresh).keys() == before.keys()


def test_duplicate_abstract_in_a_venue_is_stored_once(fresh: Catalog, tmp_path: Path):
    extra = write_list(tmp_path / "extra.txt", "ICLR 2026 Papers", "A brand new abstract.",
                       "A brand new abstract.")
    report = fresh.ingest(extra)
    assert (report.added, report.duplicate) == (1, 1)
    with fresh.session() as session:
        assert {v.slug: v.paper_count for v in list_venues(session)}["iclr-2026"] == 18


def test_same_abstract_in_another_venue_is_a_different_paper(fresh: Catalog, tmp_path: Path):
    write_list(tmp_path / "a.txt", "ICLR 2025 Papers", "Shared text.")
    write_list(tmp_path / "b.txt", "ICML 2025 Papers", "Shared text.")
    report = fresh.ingest(tmp_path / "a.txt", tmp_path / "b.txt")
    assert (report.added, report.duplicate) == (2, 0)


def test_changed_file_replaces_its_papers(fresh: Catalog, tmp_path: Path):
    path = write_list(tmp_path / "w.txt", "TMLR 2025 Papers", "Kept abstract.", "Dropped one.")
    fresh.ingest(path)
    write_list(path, "TMLR 2025 Papers", "Kept abstract.", "A new one.")
    report = fresh.ingest(path)
    assert (report.added, report.unchanged, report.removed) == (1, 1, 1)
    with fresh.session() as session:
        texts = {p.abstract for p in session.exec(select(Paper)
                                                  .where(Paper.edition_slug == "tmlr-2025"))}
    assert texts == {"Kept abstract.", "A new one."}


def test_rejected_file_leaves_the_catalog_untouched(fresh: Catalog, tmp_path: Path):
    before = snapshot(fresh)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ICML 2026 Papers\n\nfine\n\n\xff broken\n")
    good = write_list(tmp_path / "good.txt", "COLT 2026 Papers", "A learning theory abstract.")
    report = fresh.ingest(bad, good)
    assert [(e.path.endswith("bad.txt"), e.line) for e in report.errors] == [(True, 5)]
    assert report.added == 1
    after = snapshot(fresh)
    assert {k: v for k, v in after.items() if k in before} == before
    assert len(after) == len(before) + 1


def test_cli_ingest_prints_summary_and_fails_on_rejected_files(tmp_path: Path, catalog_env):
    bad = tmp_path / "bad.txt"
    bad.write_text("no header here\n")
    good = write_list(tmp_path / "good.txt", "ICLR 2026 Papers", "One.", "Two.", "One.")
    result = CliRunner().invoke(cli, ["ingest", str(good), str(bad)])
    assert result.exit_code == 1
    assert "papers added: 2, updated: 0, unchanged: 0, duplicate: 1" in result.output
    assert "ICLR 2026: 2 papers" in result.output
    assert "bad.txt:1: expected a header line" in result.output
    again = CliRunner().invoke(cli, ["ingest", str(good)])
    assert again.exit_code == 0
    assert "papers added: 0, updated: 0, unchanged: 2" in again.output
    # A shared database's ingest leaves indexes to the servers; SQLite's is this machine's.
    shared = os.environ["CATALOG_DATABASE_URL"]
    assert ("search index: left to the servers" if shared else "search index: up to date"
            ) in again.output


@sqlite_run
def test_an_ingest_whose_change_a_server_indexed_first_says_updated(
        tmp_path: Path, catalog_env, monkeypatch: pytest.MonkeyPatch):
    """A server's keeper on the same data dir may apply the change log between the ingest's
    commit and its own index update: the ingest then finds the index up to date, and says
    that it was updated (by the server), not "up to date" as if nothing had changed."""
    first = write_list(tmp_path / "first.txt", "ICLR 2026 Papers", "One.", "Two.")
    assert CliRunner().invoke(cli, ["ingest", str(first)]).exit_code == 0
    real_sync = cli_module.sync_index

    def server_first(settings, session, **options):
        real_sync(settings, session, **options)  # the keeper, a moment earlier
        return real_sync(settings, session, **options)

    monkeypatch.setattr(cli_module, "sync_index", server_first)
    second = write_list(tmp_path / "second.txt", "ICLR 2027 Papers", "Three.")
    result = CliRunner().invoke(cli, ["ingest", str(second)])
    assert result.exit_code == 0, result.output
    assert "search index: updated (by the server running on this data dir)" in result.output
    again = CliRunner().invoke(cli, ["ingest", str(second)])  # nothing changed: up to date
    assert "search index: up to date" in again.output


def test_cli_missing_path_is_an_error(tmp_path: Path, catalog_env):
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path / "nope.txt")])
    assert result.exit_code == 1
    assert "no such file or directory" in result.output


def test_cli_names_a_fifo_as_what_it_is_and_does_not_wait_on_it(tmp_path: Path, catalog_env):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    result = CliRunner().invoke(cli, ["ingest", str(fifo)])
    assert result.exit_code == 1
    assert "not a regular file or a directory" in result.output


def test_cli_reindex_rebuilds_from_the_database(tmp_path: Path, catalog_env: Path):
    CliRunner().invoke(cli, ["ingest", str(write_list(tmp_path / "a.txt", "ICLR 2026 Papers",
                                                       "Alpha text.", "Beta text."))])
    assert CliRunner().invoke(cli, ["reindex"]).exit_code == 0
    first = (catalog_env / "index").resolve()
    result = CliRunner().invoke(cli, ["reindex"])
    assert result.exit_code == 0 and "2 papers" in result.output
    assert (catalog_env / "index").resolve() != first


@sqlite_run  # a SQLite file of its own, never the run's database: the same in both runs
def test_a_database_that_is_not_a_catalog_gets_a_clear_message(tmp_path: Path):
    import sqlite3
    import subprocess
    import sys

    data = tmp_path / "data"
    data.mkdir()
    with sqlite3.connect(data / "catalog.db") as db:
        db.execute("CREATE TABLE paper (id TEXT PRIMARY KEY, abstract TEXT)")
    for command, message in (("ingest", "Run `catalog migrate`"),
                             ("migrate", "not a catalog this program can upgrade")):
        result = subprocess.run([str(Path(sys.executable).with_name("catalog")), command],
                                env={"CATALOG_DATA_DIR": str(data), "PATH": "/usr/bin:/bin"},
                                capture_output=True, text=True)
        assert result.returncode == 2
        assert message in result.stderr and "Traceback" not in result.stderr


def test_deep_venue_pages_follow_file_order_after_removals(fresh: Catalog, tmp_path: Path):
    from app.catalog import get_venue, venue_papers

    path = write_list(tmp_path / "big.txt", "BIG 2026 Papers", *(f"Paper {i}." for i in range(130)))
    fresh.ingest(path)
    write_list(path, "BIG 2026 Papers", *(f"Paper {i}." for i in range(130) if i % 7))
    fresh.ingest(path)
    expected = [f"Paper {i}." for i in range(130) if i % 7]
    with fresh.session() as session:
        venue = get_venue(session, "big-2026")
        pages = [venue_papers(session, venue, n).items for n in (1, 2, 3, 4)]
    assert [p.abstract for page in pages for p in page] == expected
    assert [p.ordinal for p in pages[2]] == list(range(100, len(expected)))
    assert pages[3] == []


def test_a_file_refused_after_some_of_its_papers_were_stored_fails_the_whole_ingest(
        fresh: Catalog, tmp_path: Path, monkeypatch):
    # The parsers refuse a file before its first paper or at its end when it had none; were
    # one to refuse it later, half a file must not be stored as if it were whole.
    def half_then_refuse(path: Path, data: bytes) -> ParsedList:
        def papers():
            for line in range(load.STORE_CHUNK + 1):
                yield RawAbstract(line=line + 3, text=f"Paper number {line}.", venue="HALF",
                                  year=2026)
            raise InputError(path, 9_999, "refused late")
        return ParsedList(path, papers())

    monkeypatch.setitem(load.PARSERS, ".txt", half_then_refuse)
    before = snapshot(fresh)
    path = tmp_path / "half.txt"
    path.write_text("HALF 2026 Papers\n\nx\n")
    with fresh.session() as session, pytest.raises(RuntimeError, match="refused late"):
        load.ingest_paths(session, [path], ON_INGEST)
    assert snapshot(fresh) == before


@sqlite_run
def test_an_ingest_writes_through_a_page_cache_that_holds_the_tables_indexes(
        fresh: Catalog, tmp_path: Path, monkeypatch):
    from sqlalchemy import text

    from app.db import INGEST_CACHE_KIB

    seen = []
    finish = load._Store.finish

    def finish_and_look(store: load._Store) -> None:  # inside the ingest's transaction
        seen.append(store.session.execute(text("PRAGMA cache_size")).scalar())
        finish(store)

    monkeypatch.setattr(load._Store, "finish", finish_and_look)
    with fresh.session() as session:
        assert session.execute(text("PRAGMA cache_size")).scalar() != -INGEST_CACHE_KIB
        load.ingest_paths(session, [write_list(tmp_path / "a.txt", "CACHE 2026 Papers",
                                               "One paper.")], ON_INGEST)
    assert seen == [-INGEST_CACHE_KIB]
