"""Re-ingest while serving, and kill -9 mid-ingest: nothing lost, nothing half-seen."""

import random
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from app.db import catalog_version, paper_total
from app.search.index.sync import read_index_version
from tests.conftest import Catalog
from tests.postgres import sqlite_run
from tests.servers import CATALOG, running_server

# A probe's connection waits this long between its requests: unpaced, the connections took
# the cores from the ingests they probe (the two-worker probe: 2,283 requests in 29 s, 41 s of
# CPU; paced, 520 in 12 s, 19 s of CPU), and every swap still meets requests in flight.
PACE_SECONDS = 0.05

WORDS = ("learning model neural network gradient bayesian kernel policy reward graph "
         "diffusion transformer attention sparse convex robust privacy causal sample").split()


def synthetic_list(path: Path, venue: str, count: int, marker: str, seed: int = 1) -> Path:
    rng = random.Random(seed)
    abstracts = [f"{marker} {' '.join(rng.choices(WORDS, k=60))} number {i}."
                 for i in range(count)]
    path.write_text(f"{venue} Papers\n\n" + "\n\n".join(abstracts) + "\n")
    return path


def paper_count(catalog: Catalog) -> int:
    if not catalog.settings.database:
        with sqlite3.connect(catalog.settings.database_path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with catalog.session() as session:
        return paper_total(session)


@pytest.mark.parametrize("delay", [0.5, 3.0])
def test_kill_9_during_ingest_keeps_the_catalog_and_the_next_ingest_succeeds(
        fresh: Catalog, tmp_path: Path, delay: float):
    big = synthetic_list(tmp_path / "big.txt", "KILL 2026", 3000, "quokka")
    before = paper_count(fresh)
    process = subprocess.Popen([CATALOG, "ingest", str(big)], env=fresh.env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    after_kill = paper_count(fresh)
    assert after_kill in (before, before + 3000)  # the one transaction: all or nothing
    again = subprocess.run([CATALOG, "ingest", str(big)], env=fresh.env(),
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert paper_count(fresh) == before + 3000
    with fresh.session() as session:
        assert read_index_version(fresh.settings.index_path) == catalog_version(session)


def answered(http: httpx.Client, url: str, failures: list[str]) -> httpx.Response | None:
    """The 200 answer to `url`, or None with what went wrong added to `failures`."""
    try:
        response = http.get(url)
    except httpx.HTTPError as error:
        failures.append(f"{url}: {error!r}")
        return None
    if response.status_code != 200:
        failures.append(f"{url}: {response.status_code} {response.text[:200]}")
        return None
    return response


def waited_for(condition: Callable[[], object], seconds: float = 30) -> None:
    """Until `condition` holds or `seconds` pass (the test's assertions then say what
    failed), instead of a fixed sleep that the slowest machine must fit in."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_reingest_and_reindex_while_serving(fresh: Catalog, tmp_path: Path):
    env = fresh.env()
    with running_server(env) as base:
        new = synthetic_list(tmp_path / "new.txt", "LIVE 2026", 400, "axolotl", seed=2)
        before = httpx.get(f"{base}/healthz").json()["papers"]
        failures: list[str] = []
        seen_totals: set[int] = set()
        seen_counts: set[int] = set()
        stop = threading.Event()

        def hammer() -> None:
            with httpx.Client(base_url=base, timeout=30) as http:
                while not stop.is_set():
                    for url in ("/api/search?q=axolotl", "/healthz", "/search?q=axolotl",
                                "/venues/icml-2026", "/api/venues"):
                        response = answered(http, url, failures)
                        if response is None:
                            continue
                        if url == "/api/search?q=axolotl":
                            seen_totals.add(response.json()["total"])
                        elif url == "/healthz":
                            seen_counts.add(response.json()["papers"])
                        stop.wait(PACE_SECONDS)

        threads = [threading.Thread(target=hammer) for _ in range(3)]
        for thread in threads:
            thread.start()
        waited_for(lambda: seen_counts)  # the readers are answered
        ingest = subprocess.run([CATALOG, "ingest", str(new)], env=env, capture_output=True)
        waited_for(lambda: 400 in seen_totals)  # the server noticed the new index
        reindex = subprocess.run([CATALOG, "reindex"], env=env, capture_output=True)
        time.sleep(2)
        stop.set()
        for thread in threads:
            thread.join()
        assert ingest.returncode == 0 and reindex.returncode == 0
        assert failures == []
        assert seen_totals <= {0, 400} and 400 in seen_totals  # old or new, never a part
        assert seen_counts <= {before, before + 400} and before + 400 in seen_counts


def killed_at(catalog: Catalog, tmp_path: Path, point: str, *command: str,
              env: dict[str, str] | None = None) -> None:
    """Run `catalog <command>` (with `env` too) until it reaches the pause point, then kill
    -9 it there."""
    marker = tmp_path / f"{point}.reached"
    env = {**catalog.env(), **(env or {}), "CATALOG_PAUSE_AT": point,
           "CATALOG_PAUSE_FILE": str(marker)}
    process = subprocess.Popen([CATALOG, *command], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert process.poll() is None, f"catalog {command[0]} ended before {point}"
        assert time.monotonic() < deadline, f"{point} never reached"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_kill_9_inside_the_write_transaction_leaves_the_catalog_as_it_was(
        fresh: Catalog, tmp_path: Path):
    big = synthetic_list(tmp_path / "big.txt", "KILL 2026", 1500, "quokka")
    before = paper_count(fresh)
    index_before = read_index_version(fresh.settings.index_path)
    killed_at(fresh, tmp_path, "ingest-commit", "ingest", str(big))
    assert paper_count(fresh) == before  # every change was made, none committed
    assert read_index_version(fresh.settings.index_path) == index_before
    again = subprocess.run([CATALOG, "ingest", str(big)], env=fresh.env(),
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert paper_count(fresh) == before + 1500


@sqlite_run  # the swap renames index directories, after the database's work: once is enough
def test_kill_9_during_the_index_swap_keeps_the_old_index_live_until_the_next_sync(
        fresh: Catalog, tmp_path: Path):
    index_before = read_index_version(fresh.settings.index_path)
    live_before = fresh.settings.index_path.resolve()
    killed_at(fresh, tmp_path, "index-swap", "reindex")
    # The new index was written beside the live one; the live one is untouched and searches.
    assert fresh.settings.index_path.resolve() == live_before
    assert read_index_version(fresh.settings.index_path) == index_before
    assert len(list((fresh.settings.data_dir / "indexes").iterdir())) == 2
    with running_server(fresh.env()) as base:
        assert httpx.get(f"{base}/api/search", params={"q": "diffusion"}).json()["total"] > 0
    done = subprocess.run([CATALOG, "reindex"], env=fresh.env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert fresh.settings.index_path.resolve() != live_before
    assert len(list((fresh.settings.data_dir / "indexes").iterdir())) <= 2  # leftovers dropped


def _files_of(directory: Path) -> dict[str, tuple[int, int, int]]:
    """Every file of a generation: its inode, size and modification time."""
    return {str(path.relative_to(directory)): (path.stat().st_ino, path.stat().st_size,
                                              path.stat().st_mtime_ns)
            for path in sorted(directory.rglob("*")) if path.is_file()}


def test_an_update_publishes_a_new_generation_and_never_changes_the_published_one(
        fresh: Catalog, tmp_path: Path):
    published = fresh.settings.index_path.resolve()
    files = _files_of(published)
    contents = {name: (published / name).read_bytes() for name in files}
    new = synthetic_list(tmp_path / "new.txt", "GENERATION 2026", 60, "pangolin")
    done = subprocess.run([CATALOG, "ingest", str(new)], env=fresh.env(),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    successor = fresh.settings.index_path.resolve()
    assert successor != published  # an update is a generation of its own
    # The retired generation is as it was (what a worker still reading it needs), but for
    # the mark of its retirement.
    assert {name: stat for name, stat in _files_of(published).items()
            if name != "retired"} == files
    assert all((published / name).read_bytes() == data for name, data in contents.items())
    with fresh.session() as session:
        assert read_index_version(fresh.settings.index_path) == catalog_version(session)


@sqlite_run  # workers and generations: the database changes none of it
def test_no_request_fails_while_ingests_add_editions_under_two_workers(
        fresh: Catalog, tmp_path: Path):
    """The probe of reliability round 4: downloads and searches on 8 connections to two
    workers while ingests add editions one after another; each connection's total of the
    editions' shared word never falls (no paper is removed)."""
    files = [synthetic_list(tmp_path / f"edition{n}.txt", f"STREAM {2030 + n}", 60,
                            "numbat", seed=n) for n in range(4)]
    paths = ("/search.json?q=numbat", "/search.csv?q=numbat", "/search.bib?q=numbat",
             "/api/search?q=numbat", "/search?q=numbat+gradient")
    failures: list[str] = []
    falls: list[str] = []
    asked: list[str] = []
    stop = threading.Event()

    def connection(number: int) -> None:
        last = 0
        with httpx.Client(base_url=base, timeout=60) as http:
            while not stop.is_set():
                path = paths[number % len(paths)]
                response = answered(http, path, failures)
                if response is not None and path == "/api/search?q=numbat":
                    total = response.json()["total"]
                    if total < last:
                        falls.append(f"{last} -> {total}")
                    last = total
                number += 1
                asked.append(path)
                stop.wait(PACE_SECONDS)

    with running_server(fresh.env(), 60, "--workers", "2") as base:
        threads = [threading.Thread(target=connection, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for path in files:
            done = subprocess.run([CATALOG, "ingest", str(path)], env=fresh.env(),
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stdout + done.stderr
        waited_for(lambda: httpx.get(f"{base}/api/search", params={"q": "numbat"}).json()[
            "total"] == 240)
        stop.set()
        for thread in threads:
            thread.join()
    assert failures == []
    assert falls == []
    assert len(asked) >= 25 * len(files), len(asked)  # requests met every ingest's swaps


def test_two_ingests_at_once_that_share_an_edition_both_store_every_paper(
        fresh: Catalog, tmp_path: Path):
    whole = synthetic_list(tmp_path / "whole.txt", "HALVES 2026", 1200, "dugong").read_text()
    header, _, body = whole.partition("\n\n")
    abstracts = body.strip().split("\n\n")
    halves = []
    for number, part in enumerate((abstracts[:600], abstracts[600:])):
        half = tmp_path / f"half{number}.txt"
        half.write_text(f"{header}\n\n" + "\n\n".join(part) + "\n")
        halves.append(half)
    before = paper_count(fresh)
    ingests = [subprocess.Popen([CATALOG, "ingest", str(half)], env=fresh.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for half in halves]
    outputs = [ingest.communicate(timeout=300) for ingest in ingests]
    assert [ingest.returncode for ingest in ingests] == [0, 0], outputs
    assert paper_count(fresh) == before + 1200
    with fresh.session() as session:
        assert read_index_version(fresh.settings.index_path) == catalog_version(session)
    # The one that waited said so, in one line.
    waited = [err for _, err in outputs if "waiting for another ingest" in err]
    assert all(len(err.strip().splitlines()) == 1 for err in waited)
