"""Slow searches holding every request thread: health checks and cached pages still answer
at once (issue 29, item 9)."""

import signal
import subprocess
import threading
import time
from contextlib import suppress
from pathlib import Path

import httpx

from tests.conftest import Catalog
from tests.servers import CATALOG, free_port, wait_until_ready


def test_health_checks_and_cached_pages_answer_while_searches_hold_every_thread(
        fresh: Catalog, tmp_path: Path):
    marker = tmp_path / "search.reached"
    env = {**fresh.env(), "CATALOG_THREADS": "2", "CATALOG_PAUSE_AT": "search",
           "CATALOG_PAUSE_FILE": str(marker)}
    port = free_port()
    server = subprocess.Popen([CATALOG, "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, 60)
        assert httpx.get(f"{base}/venues").status_code == 200  # now in the page cache
        # Four searches that never end: two hold the searching slots, two wait for one, and
        # together they hold both request threads.
        stuck = [threading.Thread(target=_ask, args=(f"{base}/search?q=stuck{n}",), daemon=True)
                 for n in range(4)]
        for thread in stuck:
            thread.start()
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline, "no search reached its pause"
            time.sleep(0.05)
        time.sleep(0.5)  # the other searches take the last request threads
        health = httpx.get(f"{base}/healthz", timeout=5)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert httpx.get(f"{base}/venues", timeout=5).status_code == 200
        assert all(thread.is_alive() for thread in stuck)  # still held
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()


def _ask(url: str) -> None:
    with suppress(httpx.HTTPError):  # the server is killed under it
        httpx.get(url, timeout=120)
