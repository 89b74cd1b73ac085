"""Replay issue 29's hostile requests and files against a served catalog; print, for each,
whether it still reproduces, the peak memory of the server (or of the ingest) and /healthz
latency while it runs.

    .venv/bin/python -m bench.hostile --catalog /tmp/L/data [--workers 2]

The catalog is served as given (build the full corpus first: `catalog ingest
../shared/corpus/*.jsonl.gz`); hostile files are ingested into a scratch copy of the seeds,
never into it. Targets: /healthz p95 at most 50 ms with six expensive queries in flight, and
no request or ingest over 1.5 GB.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import subprocess
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

from app.config import PROJECT_ROOT
from bench.harness import BIN, free_port, start_server

EXPENSIVE = "/search?q=year%3A1987-2026+-zz{n}"
LIMIT_MB = 1536
HEALTHZ_P95_MS = 50


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its descendants (the server's workers, the ingest's
    index builder)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    own = int(status.split("VmRSS:")[1].split()[0]) / 1024 if "VmRSS:" in status else 0.0
    return own + sum(tree_rss_mb(int(child)) for child in children)


# /healthz is timed from a process of its own: in this one, the attacking clients' threads
# would hold the interpreter lock and add their waits to its latency.
PROBE = """
import sys, threading, time, httpx
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
with httpx.Client(timeout=30) as http:
    while not stop.wait(0.1):
        started = time.perf_counter()
        http.get(sys.argv[1] + "/healthz")
        print((time.perf_counter() - started) * 1000, flush=True)
"""


class Watch:
    """Samples a process tree's memory and /healthz's latency until stopped."""

    def __init__(self, base: str, pid: int) -> None:
        self.base, self.pid = base, pid
        self.peak_mb = 0.0
        self.healthz_ms: list[float] = []
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._memory, daemon=True)
        self._probe: subprocess.Popen[str] | None = None

    def _memory(self) -> None:
        while not self._stop.wait(0.05):
            self.peak_mb = max(self.peak_mb, tree_rss_mb(self.pid))

    def __enter__(self) -> Watch:
        self.peak_mb = tree_rss_mb(self.pid)  # a request may end before the first sample
        self._sampler.start()
        self._probe = subprocess.Popen([str(BIN / "python"), "-c", PROBE, self.base],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._sampler.join()
        if self._probe is not None:
            output, _ = self._probe.communicate("", timeout=60)
            self.healthz_ms = [float(line) for line in output.split()]

    def healthz(self) -> dict[str, float]:
        if not self.healthz_ms:  # over before the first check
            return {}
        ordered = sorted(self.healthz_ms)
        return {"healthz_p50_ms": round(ordered[len(ordered) // 2], 1),
                "healthz_p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
                "healthz_max_ms": round(ordered[-1], 1)}


def expensive_queries(base: str, clients: int = 6, seconds: float = 20) -> dict:
    """Item 9: `clients` clients each sending a different costly query (no cache helps) in a
    loop; a cached page is requested beside /healthz."""
    deadline = time.perf_counter() + seconds
    cached: list[float] = []
    done = [0]

    def client(index: int) -> None:
        n = index * 100_000
        with httpx.Client(timeout=120) as http:
            while time.perf_counter() < deadline:
                http.get(base + EXPENSIVE.format(n=n))
                n += 1
                done[0] += 1

    def cached_page() -> None:
        with httpx.Client(timeout=30) as http:
            http.get(base + "/")
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                http.get(base + "/")
                cached.append((time.perf_counter() - started) * 1000)
                time.sleep(0.1)

    with ThreadPoolExecutor(clients + 1) as pool:
        futures = [pool.submit(client, i) for i in range(clients)] + [pool.submit(cached_page)]
        for future in futures:
            future.result()
    cached.sort()
    return {"expensive_done": done[0],
            "cached_page_p95_ms": round(cached[int(0.95 * (len(cached) - 1))], 1)}


def encoded_format(base: str) -> dict:
    """Item 1: an encoded `format` must stream, never be buffered and cached as a page."""
    with httpx.Client(timeout=300) as http:
        started = time.perf_counter()
        with http.stream("GET", base + "/search?%66ormat=json&q=",
                         headers={"accept-encoding": "gzip"}) as response:
            first = None
            size = 0
            for chunk in response.iter_raw():
                first = first or time.perf_counter() - started
                size += len(chunk)
        return {"status": response.status_code, "first_byte_s": round(first or 0, 2),
                "bytes": size, "streamed": response.headers.get("content-length") is None}


def raw_get(base: str, target: str) -> tuple[int | str, int]:
    """Status and body size of a GET that httpx would refuse to send (URLs over 64 KB)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        return response.status, len(response.read())
    except (OSError, http.client.HTTPException) as error:
        return type(error).__name__, 0
    finally:
        connection.close()


def amplification(base: str) -> dict:
    """Item 7: a 108 KB query must not be echoed into a page of megabytes."""
    status, size = raw_get(base, "/search?q=" + "+".join(["learning"] * 12_000))
    return {"status": status, "page_kb": round(size / 1024)}


def host_header(base: str) -> dict:
    """Item 8: a foreign Host is not named in redirects."""
    response = httpx.get(base + "/saved/?ids=x", headers={"host": "evil.example"},
                         follow_redirects=False)
    return {"status": response.status_code,
            "location": response.headers.get("location", ""),
            "reproduces": "evil.example" in response.headers.get("location", "")}


def protocol(base: str) -> dict:
    """Item 10: Allow on 405, q=0 honoured, 414 for overlong URLs, local Swagger UI."""
    with httpx.Client(timeout=30) as http:
        not_allowed = http.post(base + "/search")
        refused = http.get(base + "/", headers={"accept-encoding": "gzip;q=0, identity"})
        docs = http.get(base + "/docs").text
    return {"405_allow": not_allowed.headers.get("allow", ""),
            "q0_encoding": refused.headers.get("content-encoding", "identity"),
            "long_url": raw_get(base, "/search?q=" + "a" * 200_000)[0],
            "docs_from_cdn": "cdn.jsdelivr.net" in docs}


def gzipped(head: bytes, fill: bytes, megabytes: int) -> bytes:
    """A gzip of `head` and then `megabytes` of `fill`, made without holding them."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = fill * ((1 << 20) // len(fill))
    return b"".join([packer.compress(head), *(packer.compress(block) for _ in range(megabytes)),
                     packer.flush()])


def hostile_files() -> dict[str, bytes]:
    """Items 2, 3, 4 and 6 as files."""
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


def stored_fields(data: Path) -> dict:
    """Items 5 and 6: what the stored hostile row looks like in the CSV export and the API."""
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    with TestClient(create_app(Settings(data_dir=data, seeds_dir=PROJECT_ROOT / "seeds"))) as http:
        export = http.get("/venues/ctrl-2026.csv").text
        paper = http.get("/api/venues/ctrl-2026/papers").json()["papers"][0]
    cells = [cell for line in export.splitlines()[1:] for cell in line.split(",")]
    return {"formula_cells": sum(cell.lstrip('"')[:1] in ("=", "+", "-", "@")
                                 for cell in cells),
            "control_chars": sum(ch in export for ch in "\x1b\x07\x08"),
            "api_paper_kb": round(len(json.dumps(paper)) / 1024, 1)}


def ingest_file(name: str, content: bytes, seeds_copy: Path) -> dict:
    """Ingest one hostile file into the scratch catalog; its exit, first message and peak."""
    path = seeds_copy.parent / "hostile" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(content)
    env = {**os.environ, "CATALOG_DATA_DIR": str(seeds_copy)}
    process = subprocess.Popen([str(BIN / "catalog"), "ingest", str(path)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, tree_rss_mb(process.pid))
        time.sleep(0.02)
    output = process.stdout.read() if process.stdout else ""
    errors = [line.strip() for line in output.splitlines() if str(path) in line
              and ":" in line.replace(str(path), "", 1)]
    return {"exit": process.returncode, "peak_mb": round(peak),
            "error": (errors or [""])[-1].replace(str(path.parent) + "/", "")[:110],
            "traceback": "Traceback" in output}


@contextmanager
def scratch_catalog() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "data"
        env = {**os.environ, "CATALOG_DATA_DIR": str(data)}
        subprocess.run([str(BIN / "catalog"), "ingest", str(PROJECT_ROOT / "seeds")],
                       env=env, check=True, capture_output=True)
        yield data


def report(name: str, figures: dict, watch: Watch | None = None) -> dict:
    row = {**figures, **(watch.healthz() if watch else {}),
           **({"server_peak_mb": round(watch.peak_mb)} if watch else {})}
    print(f"{name:<28} " + "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalog", type=Path, required=True, help="a data directory")
    parser.add_argument("--workers", type=int, default=1, help="as `make run` serves")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--only", default="", help="replay only items whose name starts so")
    args = parser.parse_args()
    env = {**os.environ, "CATALOG_DATA_DIR": str(args.catalog)}
    port = free_port()
    server, _ = start_server(env, port, "--workers", str(args.workers))
    base = f"http://127.0.0.1:{port}"
    rows: dict[str, dict] = {}
    try:
        with Watch(base, server.pid) as idle:
            time.sleep(3)
        rows["idle"] = report("idle", {}, idle)
        attacks: list[tuple[str, Callable[[], dict]]] = [
            ("9 six expensive queries", lambda: expensive_queries(base, 6, args.seconds)),
            ("1 encoded format", lambda: encoded_format(base)),
            ("7 amplification", lambda: amplification(base)),
            ("8 host header", lambda: host_header(base)),
            ("10 protocol", lambda: protocol(base)),
        ]
        for name, attack in attacks:
            if not name.startswith(args.only):
                continue
            with Watch(base, server.pid) as watch:
                figures = attack()
            rows[name] = report(name, figures, watch)
    finally:
        server.terminate()
        server.wait(timeout=30)
    if not args.only:
        with scratch_catalog() as seeds_copy:
            for name, content in hostile_files().items():
                rows[name] = report(name, ingest_file(name, content, seeds_copy))
            rows["5, 6 stored fields"] = report("5, 6 stored fields", stored_fields(seeds_copy))
    busy = rows.get("9 six expensive queries", rows["idle"])
    peaks = [row.get("server_peak_mb", row.get("peak_mb", 0)) for row in rows.values()]
    print(f"\n/healthz p95 with six expensive queries: {busy['healthz_p95_ms']} ms "
          f"(target ≤ {HEALTHZ_P95_MS}); largest peak: {max(peaks)} MB "
          f"(target ≤ {LIMIT_MB})")


if __name__ == "__main__":
    main()
