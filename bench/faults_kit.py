"""What bench/faults.py's faults share: `catalog` commands and their output, a server in a
process group of its own, the base catalog and its copies, the files of a generation, and
synthetic list files."""

from __future__ import annotations

import contextlib
import gzip
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import httpx

from app.config import PROJECT_ROOT
from bench.harness import BIN, CORPUS, free_port
from bench.hostile_requests import corpus_words

WORD = "learning"  # the common word every search asks for
LOAD_PATHS = [f"/search.json?q={WORD}", f"/search.csv?q={WORD}", f"/search.bib?q={WORD}",
              f"/api/search?q={WORD}", f"/search?q={WORD}"]
EXCEPTION = re.compile(r"^\s*([\w.]*(?:Error|Exception)): .*")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MB = 2**20


@dataclass
class Outcome:
    fault: str
    outcome: str
    ok: bool | None  # None: not run (skipped, or the bench itself failed)


def show(key: str, value: object) -> None:
    print(f"  {key}: {value}", flush=True)


def note(text: str) -> None:
    print(f"  ... {text}", flush=True)


def catalog_env(data: Path, **extra: str) -> dict[str, str]:
    """This process's environment without its CATALOG_* settings, serving `data`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
    return {**env, "CATALOG_DATA_DIR": str(data), **extra}


@dataclass
class Ran:
    """A finished `catalog` command."""

    exit: int
    out: str
    err: str
    seconds: float

    @property
    def lines(self) -> list[str]:
        return [line for line in (self.out + self.err).splitlines() if line.strip()]

    def summary(self) -> str:
        traced = "Traceback" in self.out + self.err
        return (f"exit {self.exit} after {self.seconds:.1f} s, {len(self.lines)} lines, "
                f"{'a traceback' if traced else 'no traceback'}")


def catalog(data: Path, *args: str, timeout: float = 1800, **extra: str) -> Ran:
    started = time.perf_counter()
    done = subprocess.run([str(BIN / "catalog"), *args], env=catalog_env(data, **extra),
                          capture_output=True, text=True, timeout=timeout)
    return Ran(done.returncode, done.stdout, done.stderr, time.perf_counter() - started)


def show_ran(label: str, ran: Ran) -> None:
    """A command's exit, its stderr (first line and last three) and its stdout's last line."""
    show(label, ran.summary())
    err = [line for line in ran.err.splitlines() if line.strip()]
    for line in err[:1] + (["..."] if len(err) > 4 else []) + err[1:][-3:]:
        print(f"      stderr| {line.rstrip()[:150]}")
    for line in [line for line in ran.out.splitlines() if line.strip()][-1:]:
        print(f"      stdout| {line.rstrip()[:150]}")


def processes_on(path: Path, under: bool = False) -> list[int]:
    """Processes whose CATALOG_DATA_DIR is `path` (or lies under it): what an ingest left
    running in a session of its own (its `update-index`), or a server's straggler."""
    found, key = [], f"CATALOG_DATA_DIR={path}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            environ = (entry / "environ").read_bytes().split(b"\0")
            if key in environ or under and any(v.startswith(key + b"/") for v in environ):
                found.append(int(entry.name))
    return found


def settle(data: Path, timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while processes_on(data) and time.monotonic() < deadline:
        time.sleep(0.5)


def stop_processes_on(path: Path) -> None:
    for pid in processes_on(path, under=True):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def fetch(http: httpx.Client, path: str, method: str = "GET"
          ) -> tuple[int | str, httpx.Response | None]:
    """A request's status (the exception's name when none came) and its answer."""
    try:
        response = http.request(method, path)
    except httpx.HTTPError as error:
        return type(error).__name__, None
    return response.status_code, response


def gist(response: httpx.Response | None) -> str:
    """An answer's first line: an error page's heading and message, or the body's start."""
    if response is None:
        return ""
    text = response.text
    if "html" in response.headers.get("content-type", ""):
        found = re.findall(r"<h1[^>]*>(.*?)</h1>\s*<p>(.*?)</p>", text, re.S)
        text = " - ".join(found[0]) if found else re.sub(r"<[^>]+>|\s+", " ", text)
    return text.strip().splitlines()[0][:120] if text.strip() else ""


def health(http: httpx.Client) -> tuple[int | str, str]:
    status, response = fetch(http, "/healthz")
    with contextlib.suppress(ValueError, AttributeError):
        body = response.json()  # type: ignore[union-attr]
        return status, f"{body['status']}, index: {body['index']}, database: {body.get('database')}"
    return status, gist(response)


class Server:
    """`catalog serve` on a data dir in a process group of its own, logging to a file; ready
    once /healthz answered 200 (with `wait_ok=False`, anything)."""

    def __init__(self, data: Path, *args: str, wait_ok: bool = True, **env: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = data.parent / f"serve-{self.port}.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(BIN / "catalog"), "serve", "--port", str(self.port), *args],
                env=catalog_env(data, **env), stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
        self.http = httpx.Client(base_url=self.base, timeout=60)
        self.ready_at = self.wait(200 if wait_ok else None)
        if wait_ok and self.ready_at is None:
            self.stop()
            raise RuntimeError(f"no /healthz 200: {self.log.read_text()[-600:]}")

    def wait(self, status: int | None, timeout: float = 900) -> float | None:
        """When /healthz first answered `status` (None: any); None if it never did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            answered, _ = fetch(self.http, "/healthz")
            if isinstance(answered, int) and status in (None, answered):
                return time.perf_counter()
            time.sleep(0.01)
        return None

    def errors(self) -> Counter[str]:
        """The exceptions its log names, by their line."""
        lines = self.log.read_text(errors="replace").splitlines()
        return Counter(found[0].strip()[:140] for line in lines if (found := EXCEPTION.match(line)))

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.http.close()
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=wait)
                return


def published(data: Path) -> Path:
    return (data / "index").resolve()


def snapshot(directory: Path) -> dict[str, tuple[int, int, int]]:
    """Every file under a generation: its inode, size and modification time."""
    found = {}
    for path in directory.rglob("*"):
        with contextlib.suppress(OSError):
            stat = path.lstat()
            if not path.is_dir():
                found[str(path.relative_to(directory))] = (stat.st_ino, stat.st_size,
                                                           stat.st_mtime_ns)
    return found


def changes(before: dict, after: dict) -> list[str]:
    return sorted([f"changed {n}" for n in before.keys() & after.keys() if before[n] != after[n]]
                  + [f"added {n}" for n in after.keys() - before.keys()]
                  + [f"removed {n}" for n in before.keys() - after.keys()])


def abstracts(count: int, seed: int, words: list[str]) -> list[str]:
    rng = random.Random(seed)
    return [f"We study {WORD} with {' '.join(rng.choices(words, k=50))}. "
            f"{' '.join(rng.choices(words, k=70)).capitalize()}." for _ in range(count)]


def list_file(path: Path, venue: str, year: int, texts: list[str]) -> Path:
    """A list file: `<VENUE> <YEAR> Papers`, a blank line, abstracts apart by blank lines."""
    path.write_text(f"{venue} {year} Papers\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
    return path


def stored(data: Path) -> int | str:
    try:
        with contextlib.closing(sqlite3.connect(data / "catalog.db")) as db:
            return db.execute("SELECT count(*) FROM paper").fetchone()[0]
    except sqlite3.Error as error:
        return f"unreadable ({error})"


def checkpoint(data: Path) -> int:
    """The WAL folded into catalog.db (and emptied); the database's page size."""
    with contextlib.closing(sqlite3.connect(data / "catalog.db")) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return db.execute("PRAGMA page_size").fetchone()[0]


def size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() \
        else path.stat().st_size


class Scratch:
    """The base catalog, built once, and a copy of its data dir per fault."""

    def __init__(self, root: Path, papers: int, seeds: bool) -> None:
        self.root, self.base = root, root / "base" / "data"
        if seeds:
            self.inputs = [PROJECT_ROOT / "seeds"]
        elif papers:
            self.inputs = [root / f"ml-abstracts-{papers}.jsonl"]
            with gzip.open(CORPUS / "ml-abstracts.jsonl.gz", "rt", encoding="utf-8") as lines:
                self.inputs[0].write_text("".join(line for _, line in zip(
                    range(papers), lines, strict=False)), encoding="utf-8")
        else:
            self.inputs = [CORPUS / "ml-abstracts.jsonl.gz"]

    @cached_property
    def words(self) -> list[str]:
        return corpus_words(2000)

    def build(self) -> None:
        note(f"building the base catalog from {', '.join(p.name for p in self.inputs)} "
             "(the 13,408 papers take 1-3 minutes, with what is derived after the ingest)")
        ran = catalog(self.base, "ingest", *map(str, self.inputs))
        if ran.exit != 0:
            raise RuntimeError(f"the base ingest failed: {ran.lines[-3:]}")
        note(f"stored in {ran.seconds:.0f} s; waiting for what is derived after it")
        started = time.perf_counter()
        settle(self.base)
        self.page_size = checkpoint(self.base)
        self.papers = stored(self.base)
        assert isinstance(self.papers, int)
        with contextlib.closing(sqlite3.connect(self.base / "catalog.db")) as db:
            self.paper_id = db.execute("SELECT id FROM paper LIMIT 1").fetchone()[0]
        note(f"{self.papers:,} papers, derived in {time.perf_counter() - started:.0f} s more; "
             f"catalog.db "
             f"{size(self.base / 'catalog.db') / MB:.0f} MB, index "
             f"{size(published(self.base)) / MB:.0f} MB")

    def copy(self, name: str, source: Path | None = None) -> Path:
        target = self.root / "runs" / name / "data"
        shutil.copytree(source or self.base, target, symlinks=True)
        return target
