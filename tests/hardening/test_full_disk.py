"""A full disk (reliability round 4, item 3): the ingest says in one line what it stored, a
server on that disk names the disk and backs off (a rebuild every poll took three quarters
of a core), and catches up by itself once space is freed. On a small tmpfs of the test's
own, which needs the right to mount one (root, as in CI here)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.harness import free_port
from tests.hardening.test_crash_and_concurrency import synthetic_list
from tests.postgres import sqlite_run
from tests.servers import CATALOG

pytestmark = sqlite_run  # the disk is the data dir's; the database's own disk is SQLite's

DISK_MB = 64
# What the ingest's database of 2,000 papers (with its write-ahead log) needs here, but not
# its index too (4,000 papers and 20 MB took 8 s more of the SQLite run's longest test).
LEFT_FREE_MB = 10


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs",
                           str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _cpu_seconds(pid: int) -> float:
    """The process's CPU time, with its children's, living or reaped."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / os.sysconf("SC_CLK_TCK")


def test_a_full_disk_is_named_in_one_line_and_the_server_backs_off_then_catches_up(
        small_disk: Path, tmp_path: Path):
    papers = synthetic_list(tmp_path / "big.txt", "DISK 2026", 2000, "manatee")
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * ((DISK_MB - LEFT_FREE_MB) << 20))
    env = {**os.environ, "CATALOG_DATA_DIR": str(small_disk / "data"),
           "CATALOG_DATABASE_URL": "", "CATALOG_POLL_SECONDS": "1"}
    ingest = subprocess.run([CATALOG, "ingest", str(papers)], env=env, capture_output=True,
                            text=True)
    assert ingest.returncode != 0
    assert "Traceback" not in ingest.stderr + ingest.stdout
    assert ingest.stderr.count("\n") == 1, ingest.stderr
    assert "2,000 papers added or updated are stored" in ingest.stderr
    assert "no space left" in ingest.stderr and str(small_disk) in ingest.stderr

    # The ingest's write-ahead log, folded in as it ended, gave some space back: fill the
    # disk but for a megabyte, so that the server's rebuild cannot fit either.
    left = os.statvfs(small_disk)
    more = small_disk / "more filler"
    more.write_bytes(b"\0" * max(left.f_bavail * left.f_frsize - (1 << 20), 0))
    port = free_port()
    server = subprocess.Popen([CATALOG, "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        health: dict = {}
        while "no space left" not in health.get("index", "") and time.monotonic() < deadline:
            time.sleep(0.5)
            try:
                health = httpx.get(f"{base}/healthz", timeout=5).json()
            except httpx.HTTPError:
                continue
        assert "no space left" in health["index"], health
        assert str(small_disk) in health["index"]
        before, started = _cpu_seconds(server.pid), time.monotonic()
        time.sleep(15)
        share = (_cpu_seconds(server.pid) - before) / (time.monotonic() - started)
        assert share < 0.2, f"{share:.0%} of a core on a full disk"

        filler.unlink()  # space freed: the server catches up by itself
        more.unlink()
        deadline = time.monotonic() + 120
        answer = httpx.get(f"{base}/healthz", timeout=5)
        while answer.status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
            answer = httpx.get(f"{base}/healthz", timeout=5)
        assert answer.status_code == 200, answer.json()
        found = httpx.get(f"{base}/api/search", params={"q": "manatee"}, timeout=30).json()
        assert found["total"] == 2000
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_read_only_data_dir_is_named_in_one_line_and_debug_adds_the_traceback(
        small_disk: Path, tmp_path: Path):
    """A new catalog on a read-only disk: SQLite's "unable to open database file" is named as
    the data dir not writable, in one line; `--debug` (or CATALOG_DEBUG) prints the traceback
    too (a second `@cli.callback()` had dropped the option)."""
    papers = synthetic_list(tmp_path / "few.txt", "READONLY 2026", 3, "okapi")
    data = small_disk / "data"
    data.mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    env = {**os.environ, "CATALOG_DATA_DIR": str(data), "CATALOG_DATABASE_URL": ""}
    for command in (["ingest", str(papers)], ["migrate"]):
        done = subprocess.run([CATALOG, *command], env=env, capture_output=True, text=True)
        assert done.returncode == 1
        assert done.stderr == (f"error: {data} is not writable: the catalog and its search "
                               "index are as they were before this command (run it again "
                               "with --debug for the traceback)\n")
    for debug, extra in ((["--debug"], {}), ([], {"CATALOG_DEBUG": "1"})):
        done = subprocess.run([CATALOG, *debug, "ingest", str(papers)], env={**env, **extra},
                              capture_output=True, text=True)
        assert done.returncode == 1
        assert "Traceback" in done.stderr and "unable to open database file" in done.stderr
