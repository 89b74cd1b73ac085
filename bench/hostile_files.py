"""bench/hostile.py's files and ingests: issue 29's hostile files, bidi and zero-width
names, files changed during an ingest, two ingests at once, and ingests killed at random."""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import sqlite3
import subprocess
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from app.config import PROJECT_ROOT
from bench.harness import BIN, free_port, start_server
from bench.hostile_requests import Probe, corpus_words, send
from bench.hostile_watch import Watch


def gzipped(head: bytes, fill: bytes, megabytes: int) -> bytes:
    """A gzip of `head` and then `megabytes` of `fill`, made without holding them."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = fill * ((1 << 20) // len(fill))
    return b"".join([packer.compress(head), *(packer.compress(block) for _ in range(megabytes)),
                     packer.flush()])


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


def hostile_files() -> dict[str, bytes]:
    """Issue 29's files."""
    row = '{"venue":"HOSTILE","year":2026,"abstract":"x","x":'
    duplicate = json.dumps({"venue": "DUP", "year": 2026, "abstract": "y " * 45_000})
    return {
        "deep.jsonl": (row + "[" * 2000 + "]" * 2000 + "}\n").encode(),
        "bignum.jsonl": (row + "9" * 100_000 + "}\n").encode(),
        "bomb.jsonl.gz": gzipped(b"", b"\0", 2048),
        "line.txt.gz": gzipped(b"BOMB 2026 Papers\n\n", b"w", 1000),
        "duplicates.jsonl.gz": gzip.compress((duplicate + "\n").encode() * 11_645, 9),
        "quote.csv": b'venue,year,abstract\nCSV,2026,"unclosed\nCSV,2026,a second row\n',
        "long.csv": ("venue,year,abstract\nCSV,2026," + "z" * 200_000
                     + "\nCSV,2026,the next good row\n").encode(),
        "url.jsonl": json.dumps({"venue": "URL", "year": 2026, "abstract": "ok",
                                 "url": "https://x/" + "u" * 10**6}).encode() + b"\n",
        "stored.jsonl": json.dumps({
            "venue": "CTRL", "year": 2026, "abstract": "Stored, then exported.",
            "title": "=cmd|' /C calc'!A0 \x1b[31mred\x07", "authors": ["@SUM(1+1)", "a" * 300],
            "keywords": ["k\x08" * 150]}).encode() + b"\n",
    }


def invisible_rows() -> bytes:
    """Titles and authors written with bidi controls and zero-width characters."""
    invisible = [
        {"venue": "BIDI", "year": 2026, "abstract": f"Pangolins {n} resist adversarial scales.",
         "title": title, "authors": authors, "keywords": [f"k{BIDI[n % len(BIDI)]}w"]}
        for n, (title, authors) in enumerate([
            ("\u202eseniL fo noitalucitrA", ["Ada\u202e Lovelace"]),
            ("Ada\u200bLovelace's \u2066isolated\u2069 engine", ["Ada\u200b Lovelace"]),
            ("Left \u202a open", ["\u200fAda Lovelace\u200e", "Ada Lovelace\ufeff"]),
            ("Soft\u00adhyphen and join\u200dings", ["Ada\u2060 Lovelace", "\u200b"]),
        ])]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in invisible).encode()


def catalog_command(data: Path, *args: str, **popen: object) -> subprocess.Popen[str]:
    return subprocess.Popen([str(BIN / "catalog"), *args],
                            env={**os.environ, "CATALOG_DATA_DIR": str(data)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **popen)  # type: ignore[call-overload]


def watched(process: subprocess.Popen[str]) -> dict:
    """Wait for a command; its exit, time, peak memory, and whether it crashed."""
    started = time.perf_counter()
    with Watch(process.pid) as watch:
        output, _ = process.communicate()
    return {"exit": process.returncode, "s": round(time.perf_counter() - started, 1),
            "peak_mb": round(watch.peak_mb), "traceback": "Traceback" in output,
            "error": next((line.strip() for line in reversed(output.splitlines())
                           if "error" in line), "")[-110:]}


def papers(data: Path) -> int:
    with sqlite3.connect(data / "catalog.db") as db:
        if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            return -1
        return db.execute("SELECT count(*) FROM paper").fetchone()[0]


def ingest_file(data: Path, name: str, content: bytes) -> dict:
    path = data.parent / "hostile" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(content)
    return watched(catalog_command(data, "ingest", str(path)))


def invisible_characters(data: Path) -> dict:
    """What the bidi and zero-width rows became: the author pages and titles stored."""
    row = ingest_file(data, "bidi.jsonl", invisible_rows())
    with sqlite3.connect(data / "catalog.db") as db:
        names = [row[0] for row in db.execute(
            "SELECT DISTINCT a.name FROM paperauthor a JOIN paper p ON p.id = a.paper_id "
            "WHERE p.edition_slug = 'bidi-2026'")]
        titles = [row[0] for row in db.execute(
            "SELECT title FROM paper WHERE edition_slug = 'bidi-2026'")]
    stored = "".join(names + titles)
    return {**row, "authors": len(names), "bidi_kept": sum(ch in stored for ch in BIDI),
            "zero_width_kept": sum(ch in stored for ch in ZERO_WIDTH.replace("\u200d", ""))}


def synthetic_jsonl(path: Path, venue: str, count: int, seed: int) -> Path:
    rng = random.Random(seed)
    words = corpus_words(2000)
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            out.write(json.dumps({"venue": venue, "year": 2026, "title": f"{venue} paper {n}",
                                  "abstract": " ".join(rng.choices(words, k=150)),
                                  "authors": [f"Author {rng.randrange(500)}"]}) + "\n")
    return path


def changed_during_ingest(data: Path, work: Path) -> dict:
    """Files rewritten, removed and swapped for a FIFO after the ingest listed them, while
    it stores the ones before."""
    first = synthetic_jsonl(work / "first.jsonl", "FIRST", 300, 1)
    second = synthetic_jsonl(work / "second.jsonl", "SECOND", 3000, 2)
    moving = [synthetic_jsonl(work / f"{name}.jsonl", name.upper(), 100, 3)
              for name in ("rewritten", "removed", "piped")]
    before = papers(data)
    process = catalog_command(data, "ingest", str(first), str(second), *map(str, moving))
    assert process.stdout is not None
    output = []
    for line in process.stdout:  # the first file stored: the second is being read
        output.append(line)
        if str(first) in line:
            break
    moving[0].write_text(moving[0].read_text().replace("REWRITTEN", "CHANGED"))
    moving[1].unlink()
    moving[2].unlink()
    os.mkfifo(moving[2])
    row = watched(process)
    return {**row, "papers_added": papers(data) - before}


def two_ingests(data: Path, work: Path) -> dict:
    """Two ingests of different files at once: both load, nothing is lost."""
    left = synthetic_jsonl(work / "left.jsonl", "LEFT", 1500, 3)
    right = synthetic_jsonl(work / "right.jsonl", "RIGHT", 1500, 4)
    before = papers(data)
    processes = [catalog_command(data, "ingest", str(path)) for path in (left, right)]
    rows = [watched(process) for process in processes]
    return {"exits": [r["exit"] for r in rows], "s": max(r["s"] for r in rows),
            "peak_mb": max(r["peak_mb"] for r in rows),
            "traceback": any(r["traceback"] for r in rows),
            "error": " | ".join(r["error"] for r in rows if r["error"]),
            "papers_added": papers(data) - before}


def killed_ingests(data: Path, work: Path, rounds: int, seed: int = 43) -> dict:
    """SIGKILL an ingest of a new file at a random moment, `rounds` times: after each, the
    catalog opens (its integrity checked) and holds what it held or the whole file, never a
    part; a server answers; then one ingest of every file recovers them all."""
    rng = random.Random(seed)
    before = expected = papers(data)
    files, outcomes = [], []
    for turn in range(rounds):
        files.append(synthetic_jsonl(work / f"killed{turn}.jsonl", f"KILLED{turn}", 2000, turn))
        process = catalog_command(data, "ingest", str(files[-1]))
        time.sleep(rng.uniform(0.5, 15))  # from start-up to the index swap at the end
        process.send_signal(signal.SIGKILL)
        process.communicate()
        now = papers(data)
        outcomes.append({expected: "kept", expected + 2000: "committed"}.get(now, f"BROKEN {now}"))
        expected = now
    port = free_port()
    server, _ = start_server({**os.environ, "CATALOG_DATA_DIR": str(data)}, port)
    status, _, _ = send(f"http://127.0.0.1:{port}", Probe("search", "/api/search?q=learning"))
    server.terminate()
    server.wait(timeout=30)
    recovered = watched(catalog_command(data, "ingest", *map(str, files)))
    return {"kills": {o: outcomes.count(o) for o in sorted(set(outcomes))}, "served": status,
            "recover_exit": recovered["exit"], "traceback": recovered["traceback"],
            "all_recovered": papers(data) == before + 2000 * rounds}


@contextmanager
def scratch_catalog() -> Iterator[tuple[Path, Path]]:
    """A catalog of the seeds in a directory of its own, and a work directory beside it."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("HOSTILE_TMP")) as root:
        data, work = Path(root) / "data", Path(root) / "work"
        work.mkdir()
        subprocess.run([str(BIN / "catalog"), "ingest", str(PROJECT_ROOT / "seeds")],
                       env={**os.environ, "CATALOG_DATA_DIR": str(data)}, check=True,
                       capture_output=True)
        yield data, work


def file_probes(rounds: int) -> dict[str, Callable[[Path, Path], dict]]:
    probes: dict[str, Callable[[Path, Path], dict]] = {
        f"file {name}": (lambda data, _work, name=name, content=content:
                         ingest_file(data, name, content))
        for name, content in hostile_files().items()}
    return {**probes, "file bidi and zero-width": lambda data, _work: invisible_characters(data),
            "file changed during ingest": changed_during_ingest,
            "file two ingests at once": two_ingests,
            "file SIGKILL at random": lambda data, work: killed_ingests(data, work, rounds)}
