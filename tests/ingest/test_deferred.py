"""What no search needs (the keyphrases, the vectors, the map) is derived after `catalog ingest`
returns, in a process of its own; searches answer meanwhile, /healthz says what is left, and a
kill in the middle leaves the work to the next update, a server's keeper's, or the next
ingest."""

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlmodel import select
from typer.testing import CliRunner

from app import cli as cli_module
from app.cli import cli
from app.config import Settings, get_settings
from app.db import pending_keyphrases, session_scope
from app.main import create_app
from app.map.layout import MAP_FILE
from app.models import Paper
from app.search.index.generation import deferred_of
from app.search.index.keeper import NOT_CHECKED, IndexKeeper
from app.search.index.vectors import MODEL_FILE, VECTORS_FILE
from app.whats_new.edition_terms import TERMS_FILE
from tests.conftest import SEEDS, TEST_HOSTS, write_list
from tests.postgres import sqlite_run

pytestmark = sqlite_run  # with a shared database, ingest leaves indexes to the servers

DERIVED = (VECTORS_FILE, MAP_FILE)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[subprocess.Popen[bytes]]]:
    """A first ingest of the seeds indexes while storing; the processes it starts to derive
    the rest are listed, and none outlives the test."""
    monkeypatch.setattr(cli_module, "PARALLEL_BUILD_BYTES", 1)  # the seeds are small
    processes: list[subprocess.Popen[bytes]] = []
    start = cli_module.start_deferred

    def recorded(settings: Settings) -> subprocess.Popen[bytes]:
        processes.append(start(settings))
        return processes[-1]

    monkeypatch.setattr(cli_module, "start_deferred", recorded)
    yield processes
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _ingest() -> str:
    result = CliRunner().invoke(cli, ["ingest", str(SEEDS)])
    assert result.exit_code == 0, result.output
    return result.output


def _derived(directory: Path) -> dict[str, np.ndarray]:
    terms = {f"{TERMS_FILE}/{path.name}": np.frombuffer(path.read_bytes(), np.uint8)
             for path in sorted((directory / TERMS_FILE).iterdir())}
    with np.load(directory / MAP_FILE) as layout:
        return {"vectors": np.load(directory / VECTORS_FILE), "xy": layout["xy"], **terms}


def _healthz(client: TestClient) -> dict:
    answer = client.get("/healthz")
    assert answer.status_code == 200
    return answer.json()


def _ingest_killed_at(point: str, started: list[subprocess.Popen[bytes]], tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> str:
    """A first ingest whose background derivation is killed at the pause point; its output."""
    paused = tmp_path / "paused"
    monkeypatch.setenv("CATALOG_PAUSE_AT", point)
    monkeypatch.setenv("CATALOG_PAUSE_FILE", str(paused))
    output = _ingest()
    deadline = time.monotonic() + 120
    while not (paused.exists() and paused.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert paused.read_text() == point
    os.killpg(started[0].pid, signal.SIGKILL)
    started[0].wait()
    monkeypatch.delenv("CATALOG_PAUSE_AT")
    return output


def _checked_health(client: TestClient, deadline: float) -> dict:
    """/healthz once the keeper has checked the index: a server asked at once on a loaded
    machine may answer before its keeper's first check ("not checked yet")."""
    while (health := _healthz(client))["index"] == NOT_CHECKED and time.monotonic() < deadline:
        time.sleep(0.1)
    return health


def _wait_until_derived(client: TestClient, deadline: float) -> None:
    """Until the keeper has derived what was left: /healthz says "completed", and from the
    keeper's next check (a tenth of a second later here) "up to date"."""
    done = ("completed", "up to date")
    while _healthz(client)["index"] not in done and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _healthz(client)["index"] in done


def _keyphrases() -> dict[str, str]:
    with session_scope(get_settings().database_url) as session:
        return dict(session.exec(select(Paper.id, Paper.keyphrases)).all())


def test_the_ingest_returns_before_edition_terms_vectors_and_map_then_they_follow(
        catalog_env: Path, started: list[subprocess.Popen[bytes]]):
    output = _ingest()
    assert "vectors, positions derived in the background" in output
    assert started[0].wait(timeout=300) == 0
    live = get_settings().index_path.resolve()
    assert deferred_of(live) == []
    derived = _derived(live)
    assert CliRunner().invoke(cli, ["reindex"]).exit_code == 0
    rebuilt = _derived(get_settings().index_path.resolve())
    assert rebuilt.keys() == derived.keys()
    for name, values in derived.items():  # the same as a whole build's
        assert np.array_equal(values, rebuilt[name], equal_nan=True), name


def test_a_kill_half_way_leaves_searches_answering_and_the_keeper_redoes_it(
        catalog_env: Path, started: list[subprocess.Popen[bytes]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch):
    _ingest_killed_at("derived-vectors", started, tmp_path, monkeypatch)
    deadline = time.monotonic() + 120  # the vectors written, the map not
    live = get_settings().index_path.resolve()
    # The vectors were written in a successor that was never published: the live generation
    # is as the ingest left it, everything deferred still named.
    assert not (live / VECTORS_FILE).exists() and not (live / MAP_FILE).exists()
    assert deferred_of(live) == ["edition_terms", "vectors", "positions"]
    settings = replace(get_settings(), poll_seconds=0.1, allowed_hosts=TEST_HOSTS)
    # The keeper held until /healthz and a search have answered: its first check derives at
    # once, and on a loaded machine it had finished before the first answer ("completed")
    keep = IndexKeeper.start
    monkeypatch.setattr(IndexKeeper, "start", lambda keeper: None)
    with TestClient(create_app(settings)) as client:
        health = _healthz(client)
        assert health["status"] == "ok"
        assert health["index"] == f"{NOT_CHECKED}; deriving edition_terms, vectors, positions"
        found = client.get("/api/search", params={"q": "learning"}).json()
        assert found["total"] > 0
        paper = found["hits"][0]["id"]
        assert client.get(f"/papers/{paper}").status_code == 200
        keep(client.app.state.keeper)
        _wait_until_derived(client, deadline + 120)  # again, by the keeper
    derived = get_settings().index_path.resolve()
    assert (derived / MAP_FILE).exists() and (derived / MODEL_FILE).exists()
    assert deferred_of(derived) == []


def test_keyphrases_follow_the_ingest_and_a_server_derives_them_after_a_kill(
        catalog_env: Path, started: list[subprocess.Popen[bytes]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch):
    output = _ingest_killed_at("keyphrases-extracted", started, tmp_path, monkeypatch)
    assert "keyphrases, edition_terms, vectors, positions derived in the background" in output
    assert set(_keyphrases().values()) == {""}
    settings = replace(get_settings(), poll_seconds=0.1, allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings)) as client:
        health = _checked_health(client, time.monotonic() + 120)
        assert health["index"].endswith("; deriving keyphrases, edition_terms, vectors, positions")
        found = client.get("/api/search", params={"q": "learning"}).json()
        assert found["total"] > 0  # searches answer meanwhile
        paper = found["hits"][0]["id"]
        venue = client.get(f"/api/papers/{paper}").json()["venue_slug"]
        # Meanwhile pages show no keyphrases, as for papers that have none.
        assert client.get(f"/api/papers/{paper}").json()["keyphrases"] == []
        assert "Top keyphrases" not in client.get(f"/venues/{venue}").text
        _wait_until_derived(client, time.monotonic() + 240)  # keyphrases, then the index's part
        assert client.get(f"/api/papers/{paper}").json()["keyphrases"]
        assert "Top keyphrases" in client.get(f"/venues/{venue}").text
    derived = _keyphrases()
    assert CliRunner().invoke(cli, ["retopic", "--keyphrases"]).exit_code == 0
    assert _keyphrases() == derived  # what the ingest would have stored itself


def test_the_next_ingest_derives_the_keyphrases_left_before_it_stores(
        catalog_env: Path, started: list[subprocess.Popen[bytes]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch):
    _ingest_killed_at("keyphrases-extracted", started, tmp_path, monkeypatch)
    extra = write_list(tmp_path / "extra.txt", "ICML 2031 Papers",
                       "We study grokking in sparse parity tasks with small transformers.")
    result = CliRunner().invoke(cli, ["ingest", str(extra)])
    assert result.exit_code == 0, result.output
    assert "keyphrases" not in result.output.split("search index:")[1]  # none left
    assert "" not in _keyphrases().values()
    with session_scope(get_settings().database_url) as session:
        assert pending_keyphrases(session) is None
