"""A damaged index generation is noticed, never served, named by /healthz and rebuilt from the
database without a manual command (reliability round 4, item 2)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from app.cli import cli
from app.main import create_app
from app.map.layout import MAP_FILE
from app.search.manifest import DAMAGED_FILE, MANIFEST_FILE, verify
from app.search.paper_ids import IDS_DIR
from tests.conftest import TEST_HOSTS, Catalog
from tests.postgres import sqlite_run
from tests.servers import CATALOG


def _truncated(path: Path) -> None:
    with open(path, "r+b") as data:
        data.truncate(path.stat().st_size // 2)


def _garbled(path: Path) -> None:
    """The same size, other bytes: only the checksum tells."""
    path.write_bytes(os.urandom(path.stat().st_size))


def _postings(directory: Path) -> Path:
    return next(directory.glob("*.pst"))


def _ids(directory: Path) -> Path:
    return next((directory / IDS_DIR).glob("*.npy"))


def _map(directory: Path) -> Path:
    return directory / MAP_FILE


@pytest.mark.parametrize("damage", [_truncated, _garbled])
@pytest.mark.parametrize("file", [_postings, _ids, _map])
def test_a_damaged_generation_is_never_served_and_is_rebuilt(
        fresh: Catalog, damage: Callable[[Path], None], file: Callable[[Path], Path]):
    live = fresh.settings.index_path.resolve()
    assert (live / MANIFEST_FILE).exists() and verify(live) is None
    settings = replace(fresh.settings, poll_seconds=0.1, allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        paper = client.get("/api/search", params={"q": "learning"}).json()["hits"][0]["id"]
        damage(file(live))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            pages = [client.get(f"/papers/{paper}").status_code,
                     client.get("/search", params={"q": "learning"}).status_code,
                     client.get("/api/search", params={"q": "by:learning"}).status_code]
            health = client.get("/healthz")
            # Once a page fails, /healthz no longer says ok.
            assert health.status_code != 200 or pages == [200, 200, 200], (health.json(), pages)
            if fresh.settings.index_path.resolve() != live and health.status_code == 200:
                break
            time.sleep(0.05)
        assert fresh.settings.index_path.resolve() != live, "never rebuilt"
        assert client.get("/api/search", params={"q": "learning"}).json()["total"] > 0
        assert client.get(f"/papers/{paper}").status_code == 200
    assert (live / DAMAGED_FILE).exists()  # what was found stays beside the retired one


def test_update_index_rebuilds_a_damaged_generation_instead_of_saying_up_to_date(
        fresh: Catalog, monkeypatch: pytest.MonkeyPatch):
    for name, value in fresh.env().items():
        monkeypatch.setenv(name, value)
    live = fresh.settings.index_path.resolve()
    _truncated(_postings(live))
    result = CliRunner().invoke(cli, ["update-index"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rebuilt (")
    assert fresh.settings.index_path.resolve() != live
    assert verify(fresh.settings.index_path.resolve()) is None


def test_healthz_names_the_damage_while_no_good_generation_exists(fresh: Catalog):
    live = fresh.settings.index_path.resolve()
    _garbled(_ids(live))
    # No keeper here: nothing rebuilds, so the damage stays for the server to report.
    settings = replace(fresh.settings, poll_seconds=3600, allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        health = client.get("/healthz")
        assert health.status_code == 503
        assert health.json()["status"] == "damaged"
        assert "paper_ids" in health.json()["index"]
        assert "checksum" in health.json()["index"]
        assert client.get("/search", params={"q": "learning"}).status_code == 200


def _overwrite_pages(database: Path, first: int = 2, pages: int = 16) -> None:
    """Garble pages of the file (not the header): SQLite's quick_check fails on them."""
    size = 4096
    with open(database, "r+b") as data:
        data.seek(first * size)
        data.write(b"\xa5" * size * pages)


@sqlite_run  # a damaged file: SQLite's own
def test_a_damaged_database_is_named_by_healthz_and_refused_by_the_commands(fresh: Catalog):
    with fresh.session() as session:
        session.exec(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    fresh.close()
    _overwrite_pages(fresh.settings.database_path)
    for command in (["ingest", str(fresh.seeds)], ["migrate"], ["reindex"]):
        done = subprocess.run([CATALOG, *command], env=fresh.env(), capture_output=True,
                              text=True)
        assert done.returncode == 2, done.stdout + done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
        assert str(fresh.settings.database_path) in lines[0] and "damaged" in lines[0]
        assert "nothing was changed" in lines[0]
    settings = replace(fresh.settings, poll_seconds=0.1, allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        deadline = time.monotonic() + 30
        while client.get("/healthz").status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        health = client.get("/healthz")
        assert health.status_code == 503
        assert health.json()["status"] == "damaged"
        assert "damaged" in health.json()["database"]
