import os
import time
from dataclasses import replace
from pathlib import Path

import pytest
from sqlmodel import select

from app import enrich
from app.enrich import ON_INGEST, retopic_all
from app.facets import BY_NAME, FACETS, HAS, SEVERAL
from app.ingest.load import ingest_paths
from app.models import Paper
from app.search.index import index_schema, publish, registry
from app.search.index import sync as search_index
from app.search.index.generation import VERSION_FILE, PartsNotRegistered, held
from app.search.index.manifest import MANIFEST_FILE
from app.search.index.sync import (
    SyncKind,
    SyncOutcome,
    read_index_stamp,
    read_index_version,
    sync_index,
)
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.search.words.analysis import AnalyzedPositions
from tests.conftest import Catalog, write_list

pytestmark = pytest.mark.database  # the index follows the change log kept in the database


def _hits(catalog: Catalog, query: str) -> list[str]:
    search = PaperSearch(catalog.settings.index_path, check_interval=0, result_cache=0)
    return [hit.id for hit in search.search(SearchRequest(q=query), lambda ids: {}).hits]


def test_the_index_format_follows_the_schema(monkeypatch):
    """A new facet, or a facet of another kind, makes another format without a hand-made
    bump, so that older indexes are rebuilt."""
    now = index_schema.index_format_now()
    flagged = replace(BY_NAME["status"], name="flagged", kind=HAS)
    monkeypatch.setattr(index_schema, "FACETS", (*FACETS, flagged))
    assert index_schema.index_format_now.__wrapped__() != now
    several = tuple(replace(f, kind=SEVERAL) if f.name == "status" else f for f in FACETS)
    monkeypatch.setattr(index_schema, "FACETS", several)
    assert index_schema.index_format_now.__wrapped__() != now
    monkeypatch.setattr(index_schema, "FACETS", FACETS)
    assert index_schema.index_format_now.__wrapped__() == now
    # A second flag (`has:tldr`): an older index holds no paper with it, so it is rebuilt
    monkeypatch.setitem(HAS.tests, "tldr", lambda paper: bool(paper.tldr))
    assert index_schema.index_format_now.__wrapped__() != now
    monkeypatch.delitem(HAS.tests, "tldr")
    assert index_schema.index_format_now.__wrapped__() == now
    # A class of the schema moved (Whoosh pickles it by its module): older indexes rebuilt
    monkeypatch.setattr(AnalyzedPositions, "__module__", "app.search.analysis")
    assert index_schema.index_format_now.__wrapped__() != now


def test_index_of_an_older_format_is_rebuilt(fresh: Catalog, monkeypatch):
    live = fresh.settings.index_path
    assert read_index_version(live) == 1
    monkeypatch.setattr(search_index, "index_format_now", lambda: "0.older")
    assert read_index_version(live) is None
    with fresh.session() as session:
        assert sync_index(fresh.settings, session).kind is SyncKind.REBUILT
    assert read_index_version(live) == 1
    assert (live.resolve() / VERSION_FILE).exists()


def test_sync_applies_the_change_log_since_the_index_version(fresh: Catalog, tmp_path: Path):
    live = fresh.settings.index_path
    directory = live.resolve()
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers", "Quokka behaviour.",
                       "Wombat burrows.")
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)  # version 2: two papers added
        write_list(added, "ICLR 2027 Papers", "Quokka behaviour.")
        ingest_paths(session, [added], ON_INGEST)  # version 3: the wombat removed
        assert sync_index(fresh.settings, session) == SyncOutcome(SyncKind.UPDATED, 2)
        assert sync_index(fresh.settings, session) == SyncOutcome(SyncKind.UP_TO_DATE)
    # Updated (the outcome says so, not rebuilt) in a successor: the published one is kept.
    assert live.resolve() != directory and read_index_version(directory) == 1
    assert read_index_version(live) == 3
    assert len(_hits(fresh, "quokka")) == 1
    assert _hits(fresh, "wombat") == []


def test_papers_an_update_scores_alike_rank_in_their_editions_order(fresh: Catalog,
                                                                    tmp_path: Path):
    """As after a rebuild, whatever order the database lists the change log in."""
    added = write_list(tmp_path / "alike.txt", "ICLR 2027 Papers",
                       *(f"Sparse wombat kernels, study {n}." for n in range(30)))
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
        listed = list(session.exec(select(Paper.id).where(Paper.edition_slug == "iclr-2027")
                                   .order_by(Paper.ordinal)))
    assert sorted(listed) != listed  # IDs are hashes: an order by ID would differ
    hits = _hits(fresh, "sparse wombat kernels")
    assert len(hits) >= 10 and hits == listed[:len(hits)]


def test_an_index_of_another_catalog_is_rebuilt(fresh: Catalog, tmp_path: Path):
    other = Catalog(fresh.settings.__class__(data_dir=tmp_path / "other",
                                             seeds_dir=fresh.seeds), fresh.seeds, fresh.report)
    other.settings.data_dir.mkdir()
    other.ingest(write_list(tmp_path / "x.txt", "ICLR 2027 Papers", "Platypus venom."))
    # Same version number (1), different catalog: the stamp tells them apart.
    (fresh.settings.index_path.resolve() / VERSION_FILE).write_text(
        (other.settings.index_path.resolve() / VERSION_FILE).read_text())
    with fresh.session() as session:
        assert sync_index(fresh.settings, session) == SyncOutcome(SyncKind.REBUILT,
                                                                  fresh.report.added)
    stamp = read_index_stamp(fresh.settings.index_path)
    assert stamp is not None and stamp.version == 1


def test_a_retopic_that_moves_no_paper_changes_no_document(fresh: Catalog):
    with fresh.session() as session:
        done = retopic_all(session)
        assert done.papers == fresh.report.added and done.moved == 0
        assert sync_index(fresh.settings, session) == SyncOutcome(SyncKind.UPDATED, 0)
    assert read_index_version(fresh.settings.index_path) == 2


def test_a_retopic_that_moves_many_papers_makes_every_index_rebuild(
        fresh: Catalog, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(enrich, "RETOPIC_UPDATE_LIMIT", 0)
    with fresh.session() as session:
        for paper in session.exec(select(Paper)).all()[:3]:
            paper.topic = "other-than-any"  # as if the taxonomy had changed under them
        session.commit()
        assert retopic_all(session).moved == 3
        assert sync_index(fresh.settings, session).kind is SyncKind.REBUILT


def test_sync_without_waiting_says_busy_while_another_process_updates(fresh: Catalog):
    with search_index.index_lock(fresh.settings), fresh.session() as session:
        # flock is per open file: a second open in this process stands in for another one.
        assert sync_index(fresh.settings, session, wait=False) == SyncOutcome(SyncKind.BUSY)


def test_a_rebuild_keeps_the_index_it_replaced_for_searchers_still_open(fresh: Catalog):
    """A searcher opened on the old generation goes on reading it after a rebuild; a retired
    generation is dropped once it has been retired for `RETIRED_KEPT_SECONDS` (issue 28,
    mutant 3: the replaced one deleted at once)."""
    first = fresh.settings.index_path.resolve()
    search = PaperSearch(fresh.settings.index_path, check_interval=3600)
    before = search.search(SearchRequest(q="learning"), lambda ids: {}).total
    with fresh.session() as session:
        search_index.build_index(fresh.settings, session)
    second = fresh.settings.index_path.resolve()
    assert second != first and first.exists()
    # The open generation still answers (and fully: its files are all there).
    assert search.search(SearchRequest(q="learning model"), lambda ids: {}).total > 0
    assert search.search(SearchRequest(q="learning"), lambda ids: {}).total == before
    with fresh.session() as session:
        search_index.build_index(fresh.settings, session)
    assert fresh.settings.index_path.resolve().exists() and second.exists()
    assert first.exists()  # retired a moment ago: a request may still be reading it
    long_ago = time.time() - publish.RETIRED_KEPT_SECONDS - 1
    os.utime(first / publish.RETIRED_FILE, (long_ago, long_ago))
    with fresh.session() as session:
        search_index.build_index(fresh.settings, session)
    assert not first.exists() and second.exists()


def test_a_generation_holds_whooshs_files_its_stamp_and_what_the_generation_list_names(
        fresh: Catalog):
    directory = fresh.settings.index_path.resolve()
    names = {path.name for path in directory.iterdir()}
    whoosh = {name for name in names if name.startswith(("MAIN", "_MAIN"))}
    assert names - whoosh - {VERSION_FILE, MANIFEST_FILE} == {
        name for entry in held() for name in entry.files}


def test_the_features_parts_are_made_after_what_they_are_derived_from():
    """What's new's counts read the arrays and the completions' phrases, the map's layout
    the vectors: registered, each follows its own (and the order of the deferred file, the
    CLI's and /healthz's lists stays as it was)."""
    assert [entry.name for entry in held()] == [
        "arrays", "ids", "columns", "vocabulary", "meanings", "completions", "edition_terms",
        "vectors", "positions", "meaning"]


def test_no_generation_is_written_or_opened_without_the_features_parts(
        fresh: Catalog, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(registry, "_registered", {})
    with pytest.raises(PartsNotRegistered), fresh.session() as session:
        search_index.build_index(fresh.settings, session)
    with pytest.raises(PartsNotRegistered):
        PaperSearch(fresh.settings.index_path).with_index(lambda current: current, None)


def test_the_schemas_classes_stay_where_existing_indexes_pickled_them():
    """Whoosh pickles the schema into each index's table of contents, naming the module of
    every field format and analyzer: a class moved elsewhere leaves every index written
    before unreadable ("Can't get attribute 'AnalyzedPositions' on app.search.words.analysis")."""
    import pickle
    import pickletools

    from app.search.index.sync import build_schema

    named = {arg for op, arg, _ in pickletools.genops(pickle.dumps(build_schema(), 2))
             if op.name == "GLOBAL" and arg.startswith("app.")}
    assert named == {"app.search.words.analysis AnalyzedPositions",
                     "app.search.words.analysis CachedAnalyzer"}
