"""The index keeper: small changes applied in the server, large ones in a child process it
starts and whose answer it reads."""

import re
import time
from dataclasses import replace
from pathlib import Path

import pytest
from sqlmodel import Session

from app.db import get_engine
from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index import keeper as keeper_module
from app.search.index.keeper import IndexKeeper
from app.search.index.sync import read_index_version
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from tests.conftest import Catalog, write_list

pytestmark = pytest.mark.database  # the keeper reads the database's catalog version and log


def ingest_without_indexing(catalog: Catalog, path: Path) -> None:
    with Session(get_engine(catalog.settings.database_url)) as session:
        ingest_paths(session, [path], ON_INGEST)


def test_the_keeper_opens_the_index_it_updated_before_any_search(fresh: Catalog,
                                                                 tmp_path: Path):
    search = PaperSearch(fresh.settings.index_path, check_interval=0)
    keeper = IndexKeeper(replace(fresh.settings, poll_seconds=0.05), after_check=search.warm)
    keeper.start()
    try:
        deadline = time.monotonic() + 30
        while search.opened() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        first = search.opened()
        assert first is not None and first == search.index_identity()
        ingest_without_indexing(fresh, write_list(tmp_path / "new.txt", "NEWCONF 2026 Papers",
                                                  "Quokkas learn tardigrade cryptobiosis."))
        while search.opened() in (None, first) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert search.opened() == search.index_identity() != first
    finally:
        keeper.stop()


def test_a_failure_after_the_check_does_not_stop_the_keeper(fresh: Catalog):
    calls = []

    def fail() -> None:
        calls.append(1)
        raise OSError("the index directory went away while it was opened")

    keeper = IndexKeeper(replace(fresh.settings, poll_seconds=0.01), after_check=fail)
    keeper.start()
    try:
        deadline = time.monotonic() + 30
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(calls) >= 3
    finally:
        keeper.stop()


@pytest.mark.parametrize("in_process_changes", [2_000, -1])
def test_the_keeper_brings_the_index_up_to_date(fresh: Catalog, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                in_process_changes: int):
    monkeypatch.setattr(keeper_module, "IN_PROCESS_CHANGES", in_process_changes)
    keeper = IndexKeeper(fresh.settings)
    assert keeper.check() == "up to date"
    before = read_index_version(fresh.settings.index_path)
    ingest_without_indexing(fresh, write_list(tmp_path / "new.txt", "NEWCONF 2026 Papers",
                                              "Quokkas learn tardigrade cryptobiosis."))
    while_working = []  # what /healthz reads while the child works
    update = keeper._update
    monkeypatch.setattr(keeper, "_update", lambda: while_working.append(keeper.state) or update())
    state = keeper.check()
    if in_process_changes < 0:
        assert re.fullmatch(r"updating 1 papers since \d\d:\d\d:\d\d UTC", while_working[0])
    else:
        assert not while_working  # applied in the server, at once
    assert state not in ("up to date", "busy") and not state.startswith("update failed")
    assert read_index_version(fresh.settings.index_path) > before
    hits = PaperSearch(fresh.settings.index_path).search(SearchRequest(q="cryptobiosis"),
                                                         lambda ids: {}).hits
    assert len(hits) == 1
    assert keeper.check() == "up to date"
