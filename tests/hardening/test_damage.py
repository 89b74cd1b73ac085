"""A damaged index generation is noticed, never served, named by /healthz and rebuilt from the
database without a manual command (reliability round 4, item 2); where only files made again
alone are damaged (the map, the sentence vectors), the rest is served meanwhile."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from app.cli import cli
from app.main import create_app
from app.map.layout import MAP_FILE
from app.search.index.generation import damaged_parts
from app.search.index.keeper import NOT_CHECKED
from app.search.index.manifest import DAMAGED_FILE, MANIFEST_FILE, verify
from app.search.index.paper_ids import IDS_DIR
from app.search.rank.by_meaning import MEANING_FILE
from bench.harness import free_port
from tests.conftest import TEST_HOSTS, Catalog
from tests.hardening.test_crash_and_concurrency import synthetic_list
from tests.postgres import sqlite_run
from tests.servers import CATALOG, running_server

# The index's files, a worker's signals and SQLite's own damage: run once, in the SQLite run
# of `make test` (a PostgreSQL catalog changes none of it, and these take a minute).
pytestmark = sqlite_run


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


def _meaning(directory: Path) -> Path:
    return directory / MEANING_FILE


@pytest.mark.parametrize("damage", [_truncated, _garbled])
@pytest.mark.parametrize("file", [_postings, _ids, _map, _meaning])
def test_a_damaged_generation_is_never_read_and_is_made_again(
        fresh: Catalog, damage: Callable[[Path], None], file: Callable[[Path], Path]):
    live = fresh.settings.index_path.resolve()
    assert (live / MANIFEST_FILE).exists() and verify(live) is None
    settings = replace(fresh.settings, poll_seconds=0.1, allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        learning = client.get("/api/search", params={"q": "learning"}).json()
        paper = learning["hits"][0]["id"]
        damage(file(live))
        # The map and the sentence vectors are made again alone: the words are served all along.
        made_alone = file in (_map, _meaning)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            serving = fresh.settings.index_path.resolve()
            pages = [client.get(f"/papers/{paper}").status_code,
                     client.get("/search", params={"q": "learning"}).status_code,
                     client.get("/api/search", params={"q": "by:learning"}).status_code]
            health = client.get("/healthz")
            # Once a page fails, /healthz no longer says ok (unless the rebuilt generation
            # was published between the two).
            assert (health.status_code != 200 or pages == [200, 200, 200]
                    or fresh.settings.index_path.resolve() != serving), (health.json(), pages)
            if made_alone:
                assert health.status_code == 200 and pages == [200, 200, 200], health.json()
                answer = client.get("/api/search", params={"q": "learning"}).json()
                assert answer["total"] == learning["total"], answer
            if fresh.settings.index_path.resolve() != live and health.status_code == 200:
                break
            time.sleep(0.05)
        remade = fresh.settings.index_path.resolve()
        assert remade != live, "never rebuilt"
        assert client.get("/api/search", params={"q": "learning"}).json()["total"] > 0
        assert client.get(f"/papers/{paper}").status_code == 200
    assert (live / DAMAGED_FILE).exists()  # what was found stays beside the retired one
    # Made again alone, the rest of the generation is kept (linked): rebuilt, it is written anew.
    kept = [(live / name.name).stat().st_ino == name.stat().st_ino for name in remade.glob("*.pst")
            if (live / name.name).exists()]
    assert (bool(kept) and all(kept)) == made_alone


def test_damage_found_after_a_repairable_one_is_not_carried_into_the_successor(
        fresh: Catalog, monkeypatch: pytest.MonkeyPatch):
    """Marked damaged in its sentence vectors alone, the generation's other files are still
    checked: a posting file cut short later makes it a rebuild, not a successor that links
    the cut file and lists it as sound."""
    live = fresh.settings.index_path.resolve()
    _garbled(_meaning(live))
    assert verify(live) is not None and damaged_parts(live) == ("meaning",)
    _truncated(_postings(live))
    assert "and 1 more of its files" in (verify(live) or "")
    assert damaged_parts(live) is None
    for name, value in fresh.env().items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(cli, ["update-index"])
    assert result.exit_code == 0 and result.output.startswith("rebuilt ("), result.output
    assert verify(fresh.settings.index_path.resolve()) is None


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
        # A search says the index is being built, and when to ask again: not "no papers".
        for path in ("/search", "/api/search", "/search.csv"):
            answer = client.get(path, params={"q": "learning"})
            assert answer.status_code == 503, (path, answer.status_code)
            assert answer.headers["retry-after"].isdigit()
            assert "not ready yet" in answer.text
        assert client.get("/api/search", params={"q": "x"}).json()["status"] == 503
        page = client.get("/search", params={"q": "learning"})
        retry = page.headers["retry-after"]
        assert "Not ready yet" in page.text and "Something went wrong" not in page.text
        assert f'<meta http-equiv="refresh" content="{retry}">' in page.text  # asks again


def test_damage_found_after_the_keepers_check_is_not_said_to_be_up_to_date(fresh: Catalog):
    settings = replace(fresh.settings, poll_seconds=3600, allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        deadline = time.monotonic() + 30  # the keeper's first check, on a loaded machine
        while (said := client.get("/healthz").json()["index"]) == NOT_CHECKED:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert said == "up to date"
        _garbled(_ids(fresh.settings.index_path.resolve()))
        client.app.state.search.warm()  # a worker's own check, between the keeper's
        health = client.get("/healthz").json()
        assert health["status"] == "damaged" and "checksum" in health["index"], health
        assert "up to date" not in health["index"], health


def _overwrite_pages(database: Path, first: int = 2, pages: int = 16) -> None:
    """Garble pages of the file (not the header): SQLite's quick_check fails on them."""
    size = 4096
    with open(database, "r+b") as data:
        data.seek(first * size)
        data.write(b"\xa5" * size * pages)


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
    # A server starts on it all the same, and says what is wrong.
    port = free_port()
    server = subprocess.Popen([CATALOG, "serve", "--port", str(port)], env=fresh.env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        health = _health_once_answered(f"http://127.0.0.1:{port}", server)
        deadline = time.monotonic() + 30
        while health.status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.1)
            health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
        assert health.status_code == 503
        assert health.json()["status"] == "damaged"
        assert "damaged" in health.json()["database"]
    finally:
        server.terminate()
        server.wait(timeout=30)


def _health_once_answered(base: str, server: subprocess.Popen[str]) -> httpx.Response:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        try:
            return httpx.get(f"{base}/healthz", timeout=5)
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("the server never answered")


def test_an_array_truncated_under_a_serving_worker_is_rebuilt_and_served_again(
        fresh: Catalog, tmp_path: Path):
    """Reading a mapped file truncated under it kills a worker (SIGBUS): even a server of
    one worker replaces it, and the new one refuses the damaged generation."""
    # Enough papers that the paper IDs span pages, of which a truncation takes whole ones.
    fresh.ingest(synthetic_list(tmp_path / "many.txt", "MANY 2026", 1500, "tapir"))
    live = fresh.settings.index_path.resolve()
    env = {**fresh.env(), "CATALOG_POLL_SECONDS": "5"}
    with running_server(env) as base:
        assert httpx.get(f"{base}/api/search", params={"q": "tapir"}).json()["total"] == 1500
        with open(_ids(live), "r+b") as ids:
            ids.truncate(4096)
        deadline = time.monotonic() + 120
        answered = None
        while time.monotonic() < deadline:
            try:
                answered = httpx.get(f"{base}/api/search",
                                     params={"q": "tapir", "page": 70}, timeout=10)
                if (answered.status_code == 200 and answered.json()["total"] > 0
                        and fresh.settings.index_path.resolve() != live):
                    break
            except httpx.HTTPError:
                pass  # the worker that read the truncated file, while it is replaced
            time.sleep(0.2)
        assert fresh.settings.index_path.resolve() != live, "never rebuilt"
        assert answered is not None and answered.status_code == 200
        assert httpx.get(f"{base}/healthz").status_code == 200
