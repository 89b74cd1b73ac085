"""Two web nodes share one PostgreSQL; an ingest from a third machine reaches both.

Each node has its own data directory (its own index); the second runs two worker processes
that share theirs. Requests keep flowing to both nodes throughout: none may fail.
"""

import os
import subprocess
import threading
import time
from pathlib import Path

import httpx

from tests.conftest import SEEDS, write_list
from tests.postgres import cluster, postgresql_run
from tests.servers import CATALOG, running_server

# Polling every second, plus the incremental update: the delay docs/scaling.md states.
SEARCHABLE_WITHIN = 10.0


def _env(url: str, data: Path) -> dict[str, str]:
    return {**os.environ, "CATALOG_DATABASE_URL": url, "CATALOG_DATA_DIR": str(data),
            "CATALOG_POLL_SECONDS": "1"}


@postgresql_run
def test_an_ingest_becomes_searchable_on_every_node_without_failed_requests(tmp_path: Path):
    url = cluster().new_database()
    ingester = _env(url, tmp_path / "ingest-machine")
    first = subprocess.run([CATALOG, "ingest", str(SEEDS)], env=ingester, capture_output=True,
                           text=True)
    assert first.returncode == 0, first.stderr
    assert "search index: left to the servers" in first.stdout
    assert not (tmp_path / "ingest-machine" / "index").exists()

    with (running_server(_env(url, tmp_path / "node-a")) as node_a,
          running_server(_env(url, tmp_path / "node-b"), 60, "--workers", "2") as node_b):
        nodes = (node_a, node_b)
        failures: list[str] = []
        stop = threading.Event()

        def hammer(base: str) -> None:
            with httpx.Client(base_url=base, timeout=30) as http:
                while not stop.is_set():
                    for path in ("/api/search?q=okapi", "/healthz", "/search?q=learning",
                                 "/venues/icml-2026", "/"):
                        try:
                            status = http.get(path).status_code
                        except httpx.HTTPError as error:
                            failures.append(f"{base}{path}: {error!r}")
                            continue
                        if status != 200:
                            failures.append(f"{base}{path}: {status}")

        threads = [threading.Thread(target=hammer, args=(base,)) for base in nodes * 2]
        for thread in threads:
            thread.start()
        try:
            for base in nodes:
                assert httpx.get(f"{base}/api/search?q=okapi").json()["total"] == 0
            new = write_list(tmp_path / "new.txt", "OKAPI 2027 Papers",
                             "The okapi is a giraffid of the Congo.",
                             "Okapi stripes as camouflage for vision models.")
            ingest = subprocess.run([CATALOG, "ingest", str(new)], env=ingester,
                                    capture_output=True, text=True)
            assert ingest.returncode == 0, ingest.stderr
            committed = time.monotonic()
            delays = {}
            for base in nodes:
                # Several requests in a row: node B's two workers must both have caught up.
                while not all(httpx.get(f"{base}/api/search?q=okapi").json()["total"] == 2
                              for _ in range(6)):
                    assert time.monotonic() - committed < SEARCHABLE_WITHIN, base
                    time.sleep(0.1)
                delays[base] = time.monotonic() - committed
            health = [httpx.get(f"{base}/healthz").json() for base in nodes]
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    assert failures == []
    assert all(h["status"] == "ok" and h["index_version"] == h["catalog_version"] == 2
               and h["papers"] == 93 for h in health)
    print(f"searchable on every node after: {max(delays.values()):.2f} s")
