"""bench/faults.py's faults of the stored catalog: ingests under load, damaged index
files, a damaged catalog.db, a full disk and two ingests of one edition at once."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import sqlite3
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bench.faults_kit import (
    CLOCK_TICKS,
    LOAD_PATHS,
    MB,
    WORD,
    Outcome,
    Scratch,
    Server,
    abstracts,
    catalog,
    changes,
    checkpoint,
    fetch,
    gist,
    health,
    list_file,
    note,
    published,
    show,
    show_ran,
    size,
    snapshot,
    stop_processes_on,
    stored,
)


class Load:
    """The probe's mix on connections of their own while ingests add editions: requests done
    and failed, connections dropped, totals that fell, files of a published generation that
    changed."""

    def __init__(self) -> None:
        self.lock, self.done = threading.Lock(), 0
        self.failed: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.fell: list[str] = []
        self.changed: set[str] = set()
        self.generations: list[str] = []
        self.ingests: list[str] = []

    def connection(self, base: str, stop: threading.Event, turn: int) -> None:
        http, last = httpx.Client(base_url=base, timeout=60), None
        while not stop.is_set():
            path, turn = LOAD_PATHS[turn % len(LOAD_PATHS)], turn + 1
            try:
                response = http.get(path)
            except httpx.HTTPError as error:
                with self.lock:
                    self.dropped[f"{type(error).__name__} on {path.split('?')[0]}"] += 1
                http.close()
                http, last = httpx.Client(base_url=base, timeout=60), None
                continue
            with self.lock:
                self.done += 1
                if response.status_code != 200:
                    self.failed[f"{response.status_code} {path.split('?')[0]} "
                                f"({response.headers.get('content-type')}): {gist(response)}"] += 1
                elif path.startswith("/api/search"):
                    total = response.json()["total"]
                    if last is not None and total < last:
                        self.fell.append(f"{last} -> {total}")
                    last = total
        http.close()

    def watch(self, data: Path, stop: threading.Event) -> None:
        """Every 0.2 s: the published generation's files against the last look at them."""
        current, before = None, {}
        while not stop.wait(0.2):
            generation = published(data)
            if generation != current:
                current, before = generation, snapshot(generation)
                self.generations.append(generation.name)
                continue
            now = snapshot(generation)
            if published(data) == generation:
                self.changed.update(changes(before, now))
            before = now

    def ingest(self, data: Path, turn: int, words: list[str]) -> None:
        edition = list_file(data.parent / f"edition{turn}.txt", "FAULTLOAD", 2030 + turn,
                            abstracts(60, turn, words))
        generation = published(data)
        before = snapshot(generation)
        ran = catalog(data, "ingest", str(edition))
        same = published(data) == generation
        changed = [c for c in changes(before, snapshot(generation))  # a retired one may gain
                   if same or c.startswith("changed")]  # a marker, and lose its files
        index = next((line for line in ran.lines if line.startswith("search index")), "")
        self.ingests.append(f"{turn + 1}: exit {ran.exit} after {ran.seconds:.1f} s, {index[:70]}"
                            f"; generation {'kept' if same else 'replaced'}, {len(changed)} of "
                            f"its files changed {changed[:3]}")


def ingests_under_load(scratch: Scratch) -> Outcome:
    """6 ingests of a 60-paper edition, 5 s apart, under --workers 2 and 8 connections"""
    load, stop = Load(), threading.Event()
    data = scratch.copy("ingests")
    with Server(data, "--workers", "2") as server:
        threads = [threading.Thread(target=load.connection, args=(server.base, stop, n))
                   for n in range(8)] + [threading.Thread(target=load.watch, args=(data, stop))]
        for thread in threads:
            thread.start()
        try:
            for turn in range(6):
                time.sleep(5)
                load.ingest(data, turn, scratch.words)
            time.sleep(5)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        errors = server.errors()
    failed, dropped = sum(load.failed.values()), sum(load.dropped.values())
    show("requests", f"{load.done:,} answered, {failed} failed, {dropped} dropped connections")
    for text, count in [*load.failed.most_common(4), *load.dropped.most_common(4)]:
        show("  failed" if text[0].isdigit() else "  dropped", f"{count} x {text}")
    for text, count in errors.most_common(4):
        show("  server log", f"{count} x {text}")
    show("a connection's /api/search total fell", load.fell[:5] or "never")
    for line in load.ingests:
        show("ingest", line)
    show("generations published", len(load.generations))
    show("files changed while published", f"{len(load.changed)} {sorted(load.changed)[:6]}")
    return Outcome("1 ingests under load", f"{load.done:,} requests: {failed} failed, {dropped} "
                   f"dropped; totals fell {len(load.fell)}x; {len(load.changed)} published "
                   "files changed", not (failed or dropped or load.fell or load.changed))


def truncate(path: Path) -> str:
    old = path.stat().st_size
    os.truncate(path, old // 2)
    return f"{path.relative_to(path.parent.parent)} truncated from {old:,} to {old // 2:,} bytes"


def scramble(path: Path) -> str:
    with path.open("r+b") as file:  # the same inode, as a disk error would leave it
        file.write(random.Random(58).randbytes(path.stat().st_size))
    return f"{path.name} overwritten with {path.stat().st_size:,} random bytes"


INDEX_DAMAGE: dict[str, Callable[[Path], str]] = {
    "postings": lambda g: truncate(max(g.glob("*.pst"), key=lambda p: p.stat().st_size)),
    "array": lambda g: truncate(g / "paper_ids" / "ids.npy"),
    "map": lambda g: scramble(g / "map.npz"),
}


def poll_pages(server: Server, data: Path, pages: dict[str, str], seconds: float) -> dict:
    """/healthz and `pages` once a second: what each answered from when, whether /healthz said
    ok while a page failed, when the published generation was replaced and when everything
    answered 200 again."""
    generation, started = published(data), time.perf_counter()
    seen: dict[str, list[str]] = {name: [] for name in ["/healthz", *pages]}
    lied, rebuilt, recovered = [], None, None

    def saw(name: str, at: int, text: str) -> None:
        if not seen[name] or not seen[name][-1].endswith(f" s: {text}"):
            seen[name].append(f"{at} s: {text}")

    while time.perf_counter() - started < seconds:
        at = round(time.perf_counter() - started)
        status, text = health(server.http)
        saw("/healthz", at, f"{status} {text}")
        failing = []
        for name, path in pages.items():
            answered, response = fetch(server.http, path)
            saw(name, at, f"{answered} {gist(response) if answered != 200 else ''}".strip())
            failing += [name] if answered != 200 else []
        lied += [f"{at} s: {', '.join(failing)}"] if status == 200 and failing else []
        rebuilt = rebuilt or (at if published(data) != generation else None)
        if recovered is None and rebuilt is not None and status == 200 and not failing:
            recovered = at
        if recovered is not None and at > recovered + 5 or server.process.poll() is not None:
            break
        time.sleep(1)
    return {"seen": seen, "lied": lied, "rebuilt": rebuilt, "recovered": recovered,
            "exited": server.process.poll()}


def damaged_generation(scratch: Scratch, name: str, damage: Callable[[Path], str]) -> bool:
    data = scratch.copy(f"index-{name}")
    with Server(data, CATALOG_POLL_SECONDS="1") as server:
        hit = server.http.get(f"/api/search?q={WORD}").json()["hits"][0]["id"]
        pages = {"paper": f"/papers/{hit}", "search": f"/search?q={WORD}",
                 "by:": f"/api/search?q=by:{WORD}", "map": "/map.png?field=1"}
        show(name, damage(published(data)))
        polled = poll_pages(server, data, pages, 120)
        errors = server.errors()
    for page, answers in polled["seen"].items():
        show(f"  {page}", " -> ".join(text[:130] for text in answers[:4])
             + (f" -> ... ({len(answers)} in all)" if len(answers) > 4 else ""))
    for text, count in errors.most_common(3):
        show("  server log", f"{count} x {text}")
    show("  /healthz ok while a page failed", polled["lied"][:3] or "never")
    show("  a new generation published after", f"{polled['rebuilt']} s")
    show("  everything 200 again after", f"{polled['recovered']} s")
    if polled["exited"] is not None:  # a negative code is a signal: -7 SIGBUS, -9 SIGKILL
        show("  the server exited", f"code {polled['exited']} while polled")
    other = scratch.copy(f"index-{name}-update")
    damage(published(other))
    show_ran("  `catalog update-index` on another damaged copy", catalog(other, "update-index"))
    return not polled["lied"] and polled["recovered"] is not None


def damaged_index(scratch: Scratch) -> Outcome:
    """a truncated postings file, a truncated array, a garbage map.npz, under a server"""
    held = {name: damaged_generation(scratch, name, damage)
            for name, damage in INDEX_DAMAGE.items()}
    return Outcome("2 damaged index files", ", ".join(
        f"{name}: {'noticed, rebuilt' if ok else 'NOT noticed or rebuilt'}"
        for name, ok in held.items()), all(held.values()))


def damage_database(data: Path) -> str:
    """16 pages from page 2 overwritten after a checkpoint; what `PRAGMA quick_check` says."""
    page = checkpoint(data)
    with (data / "catalog.db").open("r+b") as file:
        file.seek(page)
        file.write(random.Random(58).randbytes(16 * page))
    try:
        with contextlib.closing(sqlite3.connect(data / "catalog.db")) as db:
            rows = db.execute("PRAGMA quick_check").fetchall()
            return " | ".join(row[0] for row in rows).replace("\n", " | ")
    except sqlite3.Error as error:
        return f"{type(error).__name__}: {error}"


def damaged_database(scratch: Scratch) -> Outcome:
    """16 pages of catalog.db overwritten: the commands, and a server's /healthz"""
    damaged = scratch.copy("database")
    show("PRAGMA quick_check", damage_database(damaged)[:150])
    edition = list_file(damaged.parent / "edition.txt", "FAULTDB", 2030,
                        abstracts(20, 9, scratch.words))
    refused = {}
    for command in (["ingest", str(edition)], ["migrate"], ["reindex"]):
        ran = catalog(scratch.copy(f"database-{command[0]}", damaged), *command)
        show_ran(f"catalog {command[0]}", ran)
        refused[command[0]] = ran.exit != 0 and len(ran.lines) <= 2 and "Traceback" not in (
            ran.out + ran.err)
    with Server(scratch.copy("database-serve", damaged), wait_ok=False) as server:
        time.sleep(3)
        status, response = fetch(server.http, "/healthz")
        log = list(server.errors())[:1] or server.log.read_text().splitlines()[-1:]
        show("/healthz", f"{status} {response.text[:200]}" if response is not None else
             f"{status}; the server exited {server.process.poll()}, its log ending {log}")
        failing = []
        for path in (f"/search?q={WORD}", "/sitemap.xml", f"/papers/{scratch.paper_id}"):
            answered, response = fetch(server.http, path)
            show(f"  {path}", f"{answered} {gist(response) if answered != 200 else ''}")
            failing += [path] if answered != 200 else []
    lied = status == 200 and bool(failing)
    return Outcome("3 damaged catalog.db", f"/healthz {status} with {len(failing)} of 3 pages "
                   f"failing; refused in one line: {[c for c, r in refused.items() if r]}",
                   not lied and refused["ingest"] and refused["migrate"])


def tree_ticks(pid: int) -> int:
    """utime + stime + cutime + cstime of a process and all its descendants."""
    stats = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit():
                stats[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
    tree, grew = {pid}, True
    while grew:
        grown = tree | {p for p, fields in stats.items() if int(fields[1]) in tree}
        tree, grew = grown, grown != tree
    return sum(int(n) for p in tree if p in stats for n in stats[p][11:15])


def full_disk(scratch: Scratch) -> Outcome:
    """a tmpfs with room for the database but not the index: the first ingest, a server"""
    if os.geteuid() != 0:
        show("skipped", "mounting a tmpfs needs root")
        return Outcome("4 full disk", "skipped: needs root", None)
    index = size(published(scratch.base))
    free = 2 * size(scratch.base / "catalog.db") + min(16 * MB, index // 4)
    filler = 3 * index + 64 * MB
    mount = scratch.root / "runs" / "disk"
    mount.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={free + filler}", "tmpfs",
                              str(mount)], capture_output=True, text=True)
    if mounted.returncode != 0:
        show("skipped", f"mount failed: {mounted.stderr.strip()}")
        return Outcome("4 full disk", "skipped: tmpfs not mounted", None)
    try:
        return on_full_disk(scratch, mount, filler)
    finally:
        stop_processes_on(mount)
        time.sleep(1)
        subprocess.run(["umount", "-l", str(mount)], check=False)


def on_full_disk(scratch: Scratch, mount: Path, filler: int) -> Outcome:
    with (mount / "filler").open("wb") as file:
        os.posix_fallocate(file.fileno(), 0, filler)
    data = mount / "data"
    note(f"the first ingest with {shutil.disk_usage(mount).free / MB:.0f} MB free (catalog.db "
         f"needs {size(scratch.base / 'catalog.db') / MB:.0f} MB): as long as the base's")
    ran = catalog(data, "ingest", *map(str, scratch.inputs))
    show_ran("first ingest", ran)
    show("papers stored", f"{stored(data)} of {scratch.papers}")
    with Server(data, wait_ok=False) as server:
        started = time.perf_counter()  # its first rebuild, until it fails for want of space
        while time.perf_counter() - started < 300 and "rebuilding" in health(server.http)[1]:
            time.sleep(1)
        status, text = health(server.http)
        show(f"/healthz {time.perf_counter() - started:.0f} s after its first answer",
             f"{status} {text}")
        before = tree_ticks(server.process.pid)
        time.sleep(20)
        share = (tree_ticks(server.process.pid) - before) / CLOCK_TICKS / 20
        show("server CPU over the next 20 s", f"{share:.0%} of a core; /healthz then "
             f"{' '.join(map(str, health(server.http)))}")
        (mount / "filler").unlink()
        freed = time.perf_counter()
        healthy = server.wait(200, timeout=600)
        searched = healthy and server.http.get(f"/api/search?q={WORD}").json()["total"]
        show("filler deleted", f"/healthz 200 after {healthy and round(healthy - freed, 1)} s; "
             f"a search then finds {searched} papers")
    said = ran.exit != 0 and "Traceback" not in ran.out + ran.err and "stored" in ran.err + ran.out
    named = any(word in text.lower() for word in ("space", "disk", "full"))
    return Outcome("4 full disk", f"ingest {ran.summary()}; /healthz {status} '{text[:40]}'; "
                   f"CPU {share:.0%}; recovered {bool(searched)}",
                   said and named and share < 0.2 and bool(searched))


def two_halves(scratch: Scratch) -> Outcome:
    """two ingests at once of the two halves of one list file (one new edition)"""
    data = scratch.copy("halves")
    half = max(50, min(1000, scratch.papers // 4))
    texts = abstracts(2 * half, 5, scratch.words)
    files = [list_file(data.parent / f"half{n}.txt", "FAULTHALVES", 2030,
                       texts[n * half:(n + 1) * half]) for n in (0, 1)]
    before = stored(data)
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda path: catalog(data, "ingest", str(path)), files))
    for n, ran in enumerate(runs):
        show_ran(f"ingest of half {n + 1} ({half} papers)", ran)
    papers = stored(data)
    show("papers stored", f"{papers} (expected {before} + {2 * half})")
    return Outcome("5 two ingests, one edition", f"exits {[r.exit for r in runs]}; {papers} of "
                   f"{before + 2 * half} papers stored", all(r.exit == 0 for r in runs)
                   and papers == before + 2 * half)
