"""A first, large ingest indexes in a second process while it stores the papers."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app import cli as cli_module
from app.cli import cli
from app.config import get_settings
from app.db import catalog_version, session_scope
from app.models import Edition, Paper
from app.search.index.parallel_build import ParallelIndexBuild
from app.search.index.publish import RETIRED_FILE
from app.search.index.sync import read_index_stamp
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from tests.conftest import SEEDS
from tests.postgres import sqlite_run

pytestmark = sqlite_run  # with a shared database, ingest leaves indexes to the servers

QUERIES = ["learning", "diffusion model", '"in-context learning"', "grokk*", "LLM"]


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_module, "PARALLEL_BUILD_BYTES", 1)  # the seeds are small
    # What the ingest leaves to derive is derived before it returns (tests/ingest/
    # test_deferred.py has it in the background): a second ingest finds nothing left.
    monkeypatch.setattr(cli_module, "start_deferred", lambda settings: cli_module.update_index())


def _ranked(index: Path) -> dict[str, list[str]]:
    search = PaperSearch(index, check_interval=0, result_cache=0)
    return {q: [hit.id for hit in search.search(SearchRequest(q=q), lambda ids: {}).hits]
            for q in QUERIES}


def _live_directories(data: Path) -> list[Path]:
    """The generations not retired (the live one, and builds left behind)."""
    return sorted(path for path in (data / "indexes").iterdir()
                  if not (path / RETIRED_FILE).exists())


def test_index_built_while_storing_is_the_index_a_build_makes(catalog_env: Path, parallel):
    result = CliRunner().invoke(cli, ["ingest", str(SEEDS)])
    assert result.exit_code == 0, result.output
    papers = int(result.output.split("papers added: ")[1].split(",")[0])
    assert f"search index: built while storing ({papers} papers)" in result.output
    index = get_settings().index_path
    stamp = read_index_stamp(index)
    with session_scope(get_settings().database_url) as session:
        # The papers (version 1), then their keyphrases (2): the index follows.
        assert stamp is not None and stamp.version == catalog_version(session) == 2
    built_while_storing = _ranked(index)
    assert all(built_while_storing.values())
    assert CliRunner().invoke(cli, ["reindex"]).exit_code == 0
    assert _ranked(index) == built_while_storing
    # A second ingest of the same files has nothing to store or index.
    again = CliRunner().invoke(cli, ["ingest", str(SEEDS)])
    assert "search index: up to date" in again.output


def test_failed_ingest_discards_the_index_being_built(catalog_env: Path, parallel,
                                                      monkeypatch: pytest.MonkeyPatch):
    def fail(*args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr("app.enrich.update_word_stats", fail)  # once every file is read
    result = CliRunner().invoke(cli, ["ingest", str(SEEDS)])
    assert result.exit_code != 0 and isinstance(result.exception, RuntimeError)
    assert _live_directories(catalog_env) == []  # nothing half-built left behind
    assert not get_settings().index_path.exists()


def test_a_child_that_dies_leaves_the_usual_build_to_run(catalog_env: Path, parallel,
                                                          monkeypatch: pytest.MonkeyPatch):
    add = ParallelIndexBuild.add

    def add_then_die(self: ParallelIndexBuild, paper: Paper, venue: Edition) -> None:
        self._process.kill()
        self._process.join()
        add(self, paper, venue)

    monkeypatch.setattr(ParallelIndexBuild, "add", add_then_die)
    result = CliRunner().invoke(cli, ["ingest", str(SEEDS)])
    assert result.exit_code == 0, result.output
    assert "search index: rebuilt (" in result.output
    assert all(_ranked(get_settings().index_path).values())
    assert len(_live_directories(catalog_env)) == 1
