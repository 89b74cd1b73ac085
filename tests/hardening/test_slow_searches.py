"""Slow searches holding every request thread: health checks and cached pages still answer
at once (issue 29, item 9); downloads are written in the same few searching slots, and what
a server holds for good is left out of the cyclic collector's passes (issue 43)."""

import gc
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from sqlmodel import select

from app.main import create_app
from app.models import Paper
from tests.conftest import Catalog
from tests.postgres import postgresql_run
from tests.servers import CATALOG, free_port, wait_until_ready

# Slow searches hold the server's threads and slots whatever the database is: these run
# once, in the PostgreSQL run of `make test`, the shorter of the two database runs.
pytestmark = postgresql_run
# The bound of a stopping worker's wait for its requests (CATALOG_GRACEFUL_SHUTDOWN_SECONDS):
# shorter than the default 10 s, which a stuck search makes the test wait in full.
GRACEFUL_SHUTDOWN_SECONDS = 2


@contextmanager
def paused_server(catalog: Catalog, marker: Path, threads: int = 4,
                  workers: list[int] | None = None) -> Iterator[str]:
    """A server whose searching slots pause forever once entered (the marker says when);
    killed at the end with its workers, or, given a `workers` list to fill with their
    process IDs, the supervisor alone (what becomes of them is the test's)."""
    env = {**catalog.env(), "CATALOG_THREADS": str(threads), "CATALOG_PAUSE_AT": "search",
           "CATALOG_PAUSE_FILE": str(marker),
           "CATALOG_GRACEFUL_SHUTDOWN_SECONDS": str(GRACEFUL_SHUTDOWN_SECONDS)}
    port = free_port()
    server = subprocess.Popen([CATALOG, "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, 60)
        if workers is not None:
            workers.extend(_children(server.pid))
        yield base
    finally:
        if workers is None:
            os.killpg(server.pid, signal.SIGKILL)
        else:
            server.send_signal(signal.SIGKILL)
        server.wait()


def test_a_killed_supervisors_workers_end_though_searches_are_stuck(fresh: Catalog,
                                                                   tmp_path: Path):
    """Told by Linux that their supervisor died, its workers stop within the graceful
    shutdown's bound (CATALOG_GRACEFUL_SHUTDOWN_SECONDS) though searches are stuck in them:
    unbounded, they lived on for an hour, orphaned, answering nothing."""
    marker, workers = tmp_path / "search.reached", []
    with paused_server(fresh, marker, workers=workers) as base:
        stuck = asked(f"{base}/search?q=stuck")
        wait_for(marker)
    assert workers and stuck.is_alive()
    deadline = time.monotonic() + GRACEFUL_SHUTDOWN_SECONDS + 20
    while (alive := [pid for pid in workers if Path(f"/proc/{pid}").exists()]) \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive, f"workers {alive} outlived their supervisor"


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError):
            if int(stat.read_text().rpartition(")")[2].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def asked(url: str) -> threading.Thread:
    """A request in a thread of its own, which the server may never answer."""
    thread = threading.Thread(target=_ask, args=(url,), daemon=True)
    thread.start()
    return thread


def wait_for(marker: Path) -> None:
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert time.monotonic() < deadline, "nothing reached a searching slot"
        time.sleep(0.05)


def test_health_checks_and_cached_pages_answer_while_searches_hold_every_thread(
        fresh: Catalog, tmp_path: Path):
    marker = tmp_path / "search.reached"
    with paused_server(fresh, marker, threads=2) as base:
        assert httpx.get(f"{base}/venues").status_code == 200  # now in the page cache
        # Four searches that never end: two hold the searching slots, two wait for one, and
        # together they hold both request threads.
        stuck = [asked(f"{base}/search?q=stuck{n}") for n in range(4)]
        wait_for(marker)
        time.sleep(0.5)  # the other searches take the last request threads
        health = httpx.get(f"{base}/healthz", timeout=5)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert httpx.get(f"{base}/venues", timeout=5).status_code == 200
        assert all(thread.is_alive() for thread in stuck)  # still held


def test_a_download_is_written_in_a_searching_slot(fresh: Catalog, tmp_path: Path):
    """Six downloads at once, each writing its rows in a request thread of its own, held the
    interpreter lock from /healthz (p95 136 ms at L, bench/hostile.py): a download now takes
    a searching slot for each few hundred rows, as searches do, and the others sleep."""
    marker = tmp_path / "search.reached"
    with paused_server(fresh, marker) as base:
        download = asked(f"{base}/venues/icml-2026.csv")
        wait_for(marker)
        assert download.is_alive()  # its rows wait in the slot
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200


def test_the_maps_points_and_image_are_made_in_a_searching_slot(fresh: Catalog, tmp_path: Path):
    """A reading list's points and the field's image were made in request threads of their
    own, beside the searching slots: six maps at once held the interpreter lock from /healthz
    (p95 213 ms at L, bench/hostile.py)."""
    with fresh.session() as session:
        listed = session.exec(select(Paper.id)).first()
    marker = tmp_path / "search.reached"
    with paused_server(fresh, marker) as base:
        drawn = [asked(f"{base}/api/map?ids={listed}"), asked(f"{base}/map.png?field=1")]
        wait_for(marker)
        time.sleep(0.5)  # the other one takes the other slot
        assert all(thread.is_alive() for thread in drawn)  # made in the slots
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200


def test_what_a_server_holds_for_good_is_left_out_of_the_collectors_passes(seeded: Catalog):
    """Each full pass of the cyclic collector walked every object the server held (its
    modules, the open index: 0.2 s at L, holding the interpreter lock), and requests that
    allocate much set one off every few seconds: /healthz waited behind them (p95 209 ms
    under fire at L, bench/hostile.py)."""
    with TestClient(create_app(seeded.settings)) as client:
        held = client.app.state.search.with_index(lambda current: current.ids, None)
        assert held  # opened before the first request
        assert not any(tracked is held for tracked in gc.get_objects())


def _ask(url: str) -> None:
    with suppress(httpx.HTTPError):  # the server is killed under it
        httpx.get(url, timeout=120)
