"""Hostile requests and files against a served catalog, from an attacker's chair (issues 29
and 43): every route and input probed. For each probe it prints the status, the time, the
server's CPU seconds and its peak memory (a file probe: the ingest's); then /healthz latency
while the most expensive probes run six at a time.

    .venv/bin/python -m bench.hostile --catalog /work/L [--workers 1] [--only PREFIX]

The catalog is only served (build the full corpus first: `catalog ingest
../shared/corpus/*.jsonl.gz`); hostile files go into scratch catalogs of the seeds, never
into it. Targets: no 5xx, no request over 1 s of CPU, /healthz p95 at most 50 ms while the
expensive probes run, no request or ingest over 1.5 GB.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.config import PROJECT_ROOT
from bench.harness import BIN, CORPUS, free_port, start_server

LIMIT_MB = 1536
CPU_LIMIT_S = 1.0
HEALTHZ_P95_MS = 50
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_pids(pid: int) -> list[int]:
    """A process and its descendants (the server's workers, the ingest's index builder)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [pid, *(p for child in children for p in tree_pids(int(child)))]


def tree_rss_mb(pid: int) -> float:
    total = 0.0
    for member in tree_pids(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        if found := re.search(r"VmRSS:\s+(\d+)", status):
            total += int(found[1]) / 1024
    return total


def tree_cpu_s(pid: int) -> float:
    """User and system CPU seconds the process tree has used so far."""
    total = 0
    for member in tree_pids(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


# /healthz is timed from a process of its own: in this one, the attacking clients' threads
# would hold the interpreter lock and add their waits to its latency.
HEALTH_PROBE = """
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
    """Samples a process tree's memory (and, with `base`, /healthz's latency) until stopped."""

    def __init__(self, pid: int, base: str = "") -> None:
        self.base, self.pid = base, pid
        self.peak_mb = 0.0
        self.healthz_ms: list[float] = []
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._memory, daemon=True)
        self._probe: subprocess.Popen[str] | None = None

    def _memory(self) -> None:
        while not self._stop.wait(0.02):
            self.peak_mb = max(self.peak_mb, tree_rss_mb(self.pid))

    def __enter__(self) -> Watch:
        self.peak_mb = tree_rss_mb(self.pid)  # a request may end before the first sample
        self._sampler.start()
        if self.base:
            self._probe = subprocess.Popen([str(BIN / "python"), "-c", HEALTH_PROBE, self.base],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           text=True)
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._sampler.join()
        if self._probe is not None:
            output, _ = self._probe.communicate("", timeout=60)
            self.healthz_ms = [float(line) for line in output.split()]

    def healthz(self) -> dict[str, float]:
        if not self.healthz_ms:
            return {}
        ordered = sorted(self.healthz_ms)
        return {"healthz_n": len(ordered),
                "healthz_p50_ms": round(ordered[len(ordered) // 2], 1),
                "healthz_p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
                "healthz_max_ms": round(ordered[-1], 1)}


# ---------------------------------------------------------------- requests


@dataclass(frozen=True)
class Probe:
    """One request, sent byte for byte as written (no client tidies it up)."""

    name: str
    target: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()


FOREIGN = b"evil.example"  # the host the probes name: never in an answer


def send(base: str, probe: Probe, timeout: float = 120) -> tuple[int, int, bool]:
    """The status, the body's size (0 and -1 when the connection was dropped) and whether
    the answer names the foreign host."""
    host, port = base.removeprefix("http://").split(":")
    named = [value for name, value in probe.headers if name.lower() == "host"]
    head = [f"{probe.method} {probe.target} HTTP/1.1",
            *([] if named else [f"Host: {host}:{port}"]), "Connection: close",
            *(f"{name}: {value}" for name, value in probe.headers)]
    with socket.create_connection((host, int(port)), timeout=timeout) as connection:
        connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape"))
        answer = bytearray()
        try:
            while chunk := connection.recv(1 << 20):
                answer += chunk
        except OSError:
            pass
    status = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    if status is None:
        return 0, -1, False
    return (int(status[1]), len(answer) - answer.find(b"\r\n\r\n") - 4,
            FOREIGN in answer.lower())


def corpus_words(count: int) -> list[str]:
    """Distinct words of the corpus's abstracts, as a reader's query would hold them."""
    words: dict[str, None] = {}
    with gzip.open(CORPUS / "ml-abstracts.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            for word in re.findall(r"[a-z]{4,12}", json.loads(line)["abstract"].lower()):
                words[word] = None
            if len(words) >= count:
                break
    return list(words)[:count]


def q(text: str) -> str:
    """A query string value, percent-encoded as a browser sends it."""
    from urllib.parse import quote_plus
    return quote_plus(text)


def route_probes(venue: str) -> list[Probe]:
    """Each route as a reader asks for it: what a hostile variant is measured against."""
    series = venue.rsplit("-", 1)[0]
    return [Probe(f"route {target}", target) for target in (
        "/", "/venues", f"/venues/{venue}", f"/venues/{series}", "/topics",
        "/topics/optimization", "/authors?q=smith", "/institutions", "/countries",
        "/trends?q=transformer&q=lstm", "/trends?year=2020", "/api/whats-new",
        "/search?q=diffusion+models", "/api/search?q=graph&has=code", "/help/search",
        "/robots.txt", "/sitemap.xml", f"/sitemaps/{series}.xml", "/opensearch.xml",
        "/openapi.json", "/docs", "/map.png", "/api/map", f"/venues/{venue}.bib",
        f"/venues/{venue}.atom", "/saved", "/healthz")]


def query_probes(words: list[str]) -> list[Probe]:
    nested = "(" * 200 + "learning" + ")" * 200
    or_terms = " OR ".join(words[:2500])[:20_000].rsplit(" OR ", 1)[0]  # under the 32 KB cap
    wildcards = " OR ".join(f"{w[:2]}*" for w in words[:2000])
    return [
        Probe("nested 200 deep", f"/search?q={q(nested)}"),
        Probe("nested 200 deep api", f"/api/search?q={q(nested)}"),
        Probe("nested unbalanced", f"/search?q={q('(' * 200 + 'learning')}"),
        Probe("nested NOT 200", f"/search?q={q('NOT (' * 200 + 'a' + ')' * 200)}"),
        Probe("nested minus 200", f"/search?q={q('-(' * 200 + 'model' + ')' * 200)}"),
        Probe("nested OR 200", f"/search?q={q('(graph OR ' * 200 + 'x' + ')' * 200)}"),
        Probe("nested phrases", f"/search?q={q(chr(34) * 401)}"),
        Probe("nested trends", f"/trends?q={q(nested)}"),
        Probe(f"{or_terms.count(' OR ') + 1} OR terms", f"/search?q={q(or_terms)}"),
        Probe("OR terms api by venue", f"/api/search?q={q(or_terms)}&sort=venue"),
        Probe("OR terms trends", f"/trends?q={q(or_terms)}"),
        Probe("3000 terms pasted", f"/search?q={q(' '.join(words[:3000]))[:30_000]}"),
        Probe("2000 wildcards", f"/search?q={q(wildcards)}"),
        Probe("wildcard *", "/search?q=*"),
        Probe("wildcard a*", "/search?q=a*"),
        Probe("wildcard *a*", "/search?q=%2Aa%2A"),
        Probe("wildcard ?*", "/search?q=%3F*"),
        Probe("wildcards a* b* ... z*", "/search?q=" + "+".join(f"{c}*" for c in
                                                               "abcdefghijklmnopqrstuvwxyz")),
        Probe("wildcard *-*", "/search?q=*-*+-a*"),
        Probe("wildcard author:*", "/search?q=author%3A*"),
        Probe("wildcard author:a* OR", "/search?q=" + "+OR+".join(
            f"author%3A{c}*" for c in "abcdefghijklmnopqrstuvwxyz")),
        Probe("wildcard trends", "/trends?" + "&".join(f"q={c}*" for c in "abcdef")),
        Probe("wildcard suggest", "/api/suggest?q=*"),
        Probe("wildcard map", "/api/map?q=*"),
        Probe("wildcard map.png", "/map.png?q=a*"),
        Probe("wildcard authors", "/api/authors?q=*"),
        Probe("wildcard authors %", "/authors?q=%25"),
        Probe("year huge range", "/search?q=year%3A0-99999999999999999999"),
        Probe("year negative range", "/search?q=year%3A-99999999999-99999999999"),
        Probe("year range minus word", "/search?q=year%3A1987-2026+-zz"),
        Probe("year range alone api", "/api/search?q=year%3A1-9999&sort=venue"),
        Probe("year reversed", "/search?q=year%3A2026-1987"),
        Probe("year 30 digits", "/search?q=year%3A" + "9" * 30),
        Probe("year 1e308", "/search?q=year%3A1e308"),
        Probe("year param huge", "/search?q=x&year=" + "9" * 40),
        Probe("year param range", "/api/search?year=0-99999999999999"),
        Probe("topics from-to huge", "/topics?from=-99999999999999&to=99999999999999"),
        Probe("institutions from-to", "/institutions?from=0&to=99999999999999999999"),
        Probe("trends year huge", "/trends?year=99999999999999999999"),
        Probe("whats-new year huge", "/api/whats-new?year=99999999999999999999&limit=10000000"),
        Probe("api topics range", "/api/topics?from=1&to=999999999"),
    ]


def encoding_probes() -> list[Probe]:
    return [
        Probe("NUL in q", "/search?q=a%00b"),
        Probe("NUL only", "/api/search?q=%00"),
        Probe("NUL in path", "/papers/%00"),
        Probe("NUL in facet", "/search?venue=%00&series=%00&topic=%00"),
        Probe("NUL raw byte", "/search?q=a\x00b"),
        Probe("invalid %ff%fe", "/search?q=%ff%fe"),
        Probe("invalid truncated utf8", "/search?q=%E2%82"),
        Probe("invalid surrogate", "/api/search?q=%ED%A0%80"),
        Probe("invalid overlong", "/venues/%c0%af"),
        Probe("invalid %zz", "/search?q=%zz"),
        Probe("invalid lone %", "/search?q=%"),
        Probe("invalid % name", "/search?%=%&%%=1"),
        Probe("invalid path %ff", "/venues/%ff"),
        Probe("invalid author %ff", "/authors/%ff%fe"),
        Probe("invalid api path", "/api/papers/%ff"),
        Probe("invalid bib", "/papers/%ff.bib"),
        Probe("traversal static", "/static/..%2f..%2fapp%2fconfig.py"),
        Probe("traversal static dots", "/static/%2e%2e/%2e%2e/README.md"),
        Probe("traversal swagger", "/static/swagger-ui/..%2f..%2f..%2fetc/passwd"),
        Probe("raw bidi in q", "/search?q=\u202elearning"),
        Probe("zero-width in q", "/search?q=" + q("lear\u200bning \ufeffmodel")),
    ]


def parameter_probes(words: list[str], venue: str) -> list[Probe]:
    many_q = "&".join(f"q={w}" for w in words[:2000])[:30_000]
    return [
        Probe("repeated q x2000", f"/search?{many_q}"),
        Probe("repeated q api", f"/api/search?{many_q}"),
        Probe("repeated venue x1000", "/search?q=a&" + "&".join([f"venue={venue}"] * 1000)),
        Probe("repeated year x2000", "/search?" + "&".join(["year=2020"] * 2000)),
        Probe("repeated series x1000", "/api/search?" + "&".join(
            f"series=s{i}" for i in range(1000))),
        Probe("repeated page x2000", "/search?q=a&" + "&".join(["page=2"] * 2000)),
        Probe("repeated trends q x1000", "/trends?" + "&".join(f"q={w}" for w in words[:1000])),
        Probe("repeated api trends", "/api/trends?" + "&".join(f"q={w}" for w in words[:1000])),
        Probe("repeated has x2000", "/search?q=a&" + "&".join(["has=code"] * 2000)),
        Probe("huge param name", "/search?" + "n" * 30_000 + "=1"),
        Probe("huge q 30k", "/search?q=" + "a" * 30_000),
        Probe("huge venue 30k", "/search?venue=" + "v" * 30_000),
        Probe("huge path 30k", "/venues/" + "x" * 30_000),
        Probe("over the cap 40k", "/search?q=" + "a" * 40_000),
        Probe("page 10**9", "/search?q=learning&page=1000000000"),
        Probe("page 10**9 api", "/api/search?q=learning&page=1000000000"),
        Probe("page 10**30", "/search?q=learning&page=" + "1" + "0" * 30),
        Probe("page -1", "/search?q=learning&page=-1"),
        Probe("page 1e9", "/search?q=learning&page=1e9"),
        Probe("page nan", "/api/search?q=learning&page=nan"),
        Probe("venue page 10**9", f"/venues/{venue}?page=1000000000"),
        Probe("api venue page 10**9", f"/api/venues/{venue}/papers?page=1000000000"),
        Probe("topic page 10**9", "/topics/optimization?page=1000000000"),
        Probe("author page 10**9", "/authors/x?page=1000000000"),
        Probe("atom page 10**9", "/search?q=learning&format=atom&page=1000000000"),
        Probe("sort bogus", "/search?q=a&sort=../../etc"),
        Probe("format bogus", "/search?q=a&format=exe"),
        Probe("saved 5000 ids", "/saved?ids=" + ",".join(f"x{i:05}" for i in range(4000))),
        Probe("saved.bib 5000 ids", "/saved.bib?ids=" + ",".join(f"y{i:05}" for i in range(4000))),
        Probe("recommendations ids", "/api/recommendations?ids=" + ",".join(
            f"z{i:05}" for i in range(4000))),
        Probe("map box inf nan", "/api/map/box?x0=-inf&x1=inf&y0=nan&y1=1e308"),
        Probe("map box huge", "/api/map/box?x0=-1e308&x1=1e308&y0=-1e308&y1=1e308"),
        Probe("map ids 4000", "/api/map?ids=" + ",".join(f"m{i:05}" for i in range(4000))),
        Probe("map.png everything", "/map.png?q=&series=&venue="),
        Probe("sitemap part huge", "/sitemaps/_site.xml?part=99999999999999999999"),
        Probe("suggest 30k", "/api/suggest?q=" + "b" * 30_000),
        Probe("suggest opensearch", "/api/suggest?q=lea&format=opensearch"),
        Probe("authors q 30k", "/api/authors?q=" + "c" * 30_000),
        Probe("export whole search json", "/search?%66ormat=json&q="),
        Probe("export whole search csv", "/search.csv?q="),
    ]


def header_probes(venue: str) -> list[Probe]:
    many_ranges = ",".join(["0-1"] * 2000)
    many_etags = ", ".join(f'"{i:024x}"' for i in range(1500))
    return [
        Probe("range 0-0 static", "/static/style.css", headers=(("Range", "bytes=0-0"),)),
        Probe("range suffix static", "/static/style.css", headers=(("Range", "bytes=-1"),)),
        Probe("range reversed", "/static/style.css", headers=(("Range", "bytes=9-1"),)),
        Probe("range 2000 parts", "/static/style.css",
              headers=(("Range", f"bytes={many_ranges}"),)),
        Probe("range overlapping", "/static/style.css", headers=(("Range", "bytes=0-,0-,0-,0-"),)),
        Probe("range huge numbers", "/static/style.css",
              headers=(("Range", "bytes=99999999999999999999999-"),)),
        Probe("range garbage", "/static/style.css", headers=(("Range", "bytes=a-b"),)),
        Probe("range units", "/static/style.css", headers=(("Range", "pages=1-2"),)),
        Probe("range page", f"/venues/{venue}", headers=(("Range", "bytes=0-10"),)),
        Probe("range export", f"/venues/{venue}.csv", headers=(("Range", "bytes=5-"),)),
        Probe("if-range garbage", "/static/style.css",
              headers=(("Range", "bytes=0-1"), ("If-Range", "x" * 1000))),
        Probe("if-none-match *", f"/venues/{venue}", headers=(("If-None-Match", "*"),)),
        Probe("if-none-match 1500", f"/venues/{venue}",
              headers=(("If-None-Match", many_etags),)),
        Probe("if-none-match static *", "/static/style.css", headers=(("If-None-Match", "*"),)),
        Probe("if-none-match W/", "/", headers=(("If-None-Match", 'W/"x", W/""'),)),
        Probe("if-modified-since junk", "/static/style.css",
              headers=(("If-Modified-Since", "yesterday at noon"),)),
        Probe("accept-encoding q=nan", "/", headers=(("Accept-Encoding", "gzip;q=nan"),)),
        Probe("accept-encoding q=1e999", "/", headers=(("Accept-Encoding", "gzip;q=1e999"),)),
        Probe("accept-encoding q=-1", "/api/venues", headers=(("Accept-Encoding", "gzip;q=-1"),)),
        Probe("accept-encoding 3000x", "/api/venues",
              headers=(("Accept-Encoding", ", ".join(["gzip"] * 3000)),)),
        Probe("accept-encoding 30k", "/", headers=(("Accept-Encoding", "g" * 30_000),)),
        Probe("accept-encoding *;q=0", "/", headers=(("Accept-Encoding", "*;q=0"),)),
        Probe("accept-encoding identity;q=0", "/api/venues",
              headers=(("Accept-Encoding", "identity;q=0, gzip;q=0"),)),
        Probe("accept-encoding br zstd", "/", headers=(("Accept-Encoding", "br, zstd, deflate"),)),
        Probe("accept q junk", "/search?q=a", headers=(("Accept", "text/html;q=x, */*;q=1e9"),)),
        *(Probe(f"host {host}", url, headers=(("Host", host),))
          for host in ("evil.example", "127.0.0.1:1@evil.example", "localhost/evil.example")
          for url in ("/robots.txt", "/search?q=a&format=atom", f"/venues/{venue}")),
        Probe("host twice", "/robots.txt", headers=(("Host", "127.0.0.1"),
                                                    ("Host", "evil.example"))),
        Probe("x-forwarded-host", "/robots.txt", headers=(("X-Forwarded-Host", "evil.example"),)),
        Probe("forwarded proto junk", "/opensearch.xml",
              headers=(("X-Forwarded-Proto", "javascript"), ("Forwarded", "host=evil.example"))),
        Probe("cookie 30k", "/", headers=(("Cookie", "a=" + "b" * 30_000),)),
        Probe("many headers", "/", headers=tuple((f"X-H{i}", "v") for i in range(500))),
    ]


def method_probes(venue: str) -> list[Probe]:
    targets = ["/", "/search?q=a", "/api/search?q=a", "/static/style.css", "/healthz",
               f"/venues/{venue}.csv", "/docs", "/sitemap.xml"]
    probes = [Probe(f"{method} {target}", target, method=method)
              for method in ("OPTIONS", "TRACE", "PUT", "DELETE", "PATCH", "PROPFIND")
              for target in targets]
    return [*probes, Probe("OPTIONS *", "*", method="OPTIONS"),
            Probe("TRACE cookie", "/", method="TRACE", headers=(("Cookie", "secret=1"),)),
            Probe("POST body 1 MB", "/search?q=a", method="POST",
                  headers=(("Content-Length", "0"),)),
            Probe("GET absolute-form", "http://evil.example/robots.txt"),
            Probe("GET lower-case method", "/", method="get"),
            Probe("unknown method", "/", method="BREW")]


def largest_edition(base: str) -> str:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(f"GET /api/venues HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        answer = b"".join(iter(lambda: connection.recv(1 << 20), b""))
    venues = json.loads(answer.split(b"\r\n\r\n", 1)[1])["venues"]
    return max(venues, key=lambda v: v["paper_count"])["slug"]


def request_probes(base: str) -> list[Probe]:
    """Every route and input; venue pages at the catalog's largest edition."""
    words, venue = corpus_words(3000), largest_edition(base)
    return [*route_probes(venue), *query_probes(words), *encoding_probes(),
            *parameter_probes(words, venue), *header_probes(venue), *method_probes(venue)]


def run_probe(base: str, pid: int, probe: Probe) -> dict:
    cpu = tree_cpu_s(pid)
    started = time.perf_counter()
    with Watch(pid) as watch:
        status, size, foreign = send(base, probe)
    return {"status": status, "ms": round((time.perf_counter() - started) * 1000),
            "cpu_s": round(tree_cpu_s(pid) - cpu, 2), "peak_mb": round(watch.peak_mb),
            "kb": round(size / 1024, 1), **({"FOREIGN_HOST": True} if foreign else {})}


def under_fire(base: str, pid: int, probes: list[Probe], seconds: float,
               clients: int = 6) -> dict:
    """`clients` clients sending the expensive probes in a loop while /healthz is timed from
    a process of its own; a cached page is timed beside it."""
    deadline = time.perf_counter() + seconds
    statuses: dict[int, int] = {}
    cached: list[float] = []

    def client(index: int) -> None:
        turn = index
        while time.perf_counter() < deadline:
            status, _, _ = send(base, probes[turn % len(probes)])
            statuses[status] = statuses.get(status, 0) + 1
            turn += 1

    def cached_page() -> None:
        page = Probe("home", "/")
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            send(base, page)
            cached.append((time.perf_counter() - started) * 1000)
            time.sleep(0.1)

    with Watch(pid, base) as watch, ThreadPoolExecutor(clients + 1) as pool:
        for future in [pool.submit(client, i) for i in range(clients)] + [
                pool.submit(cached_page)]:
            future.result()
    cached.sort()
    return {"statuses": statuses, "cached_page_p95_ms":
            round(cached[int(0.95 * (len(cached) - 1))], 1), **watch.healthz(),
            "peak_mb": round(watch.peak_mb)}


# ---------------------------------------------------------------- files


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
            "WHERE p.venue_slug = 'bidi-2026'")]
        titles = [row[0] for row in db.execute(
            "SELECT title FROM paper WHERE venue_slug = 'bidi-2026'")]
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


# ---------------------------------------------------------------- report


def report(name: str, row: dict) -> dict:
    print(f"{name:<34} " + "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalog", type=Path, required=True, help="a data directory")
    parser.add_argument("--workers", type=int, default=1, help="as `make run` serves")
    parser.add_argument("--seconds", type=float, default=20,
                        help="how long the expensive probes run beside /healthz")
    parser.add_argument("--kills", type=int, default=8, help="ingests killed at random")
    parser.add_argument("--only", default="", help="run only probes whose name starts so")
    args = parser.parse_args()
    rows: dict[str, dict] = {}
    port = free_port()
    server, _ = start_server({**os.environ, "CATALOG_DATA_DIR": str(args.catalog)}, port,
                             "--workers", str(args.workers))
    base = f"http://127.0.0.1:{port}"
    try:
        probes = [p for p in request_probes(base) if p.name.startswith(args.only)]
        for probe in probes:
            rows[probe.name] = report(probe.name, run_probe(base, server.pid, probe))
        if probes:
            costly = sorted(probes, key=lambda p: rows[p.name]["cpu_s"])[-6:]
            print("under fire: " + ", ".join(p.name for p in costly))
            rows["under fire"] = report("under fire", under_fire(base, server.pid, costly,
                                                                 args.seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    for name, probe in file_probes(args.kills).items():
        if name.startswith(args.only):
            with scratch_catalog() as (data, work):
                rows[name] = report(name, probe(data, work))
    summarize(rows)


def summarize(rows: dict[str, dict]) -> None:
    errors = [name for name, row in rows.items() if row.get("status", 0) >= 500
              or row.get("status") == 0 or row.get("traceback")
              or any(s >= 500 for s in row.get("statuses", {}))]
    slow = [f"{name} ({row['cpu_s']} s)" for name, row in rows.items()
            if row.get("cpu_s", 0) > CPU_LIMIT_S]
    peak = max(row.get("peak_mb", 0) for row in rows.values())
    fire = rows.get("under fire", {})
    print(f"\n5xx, dropped or crashed: {errors or 'none'}")
    print(f"over {CPU_LIMIT_S} s of CPU: {slow or 'none'}")
    print(f"/healthz p95 under fire: {fire.get('healthz_p95_ms')} ms (target ≤ "
          f"{HEALTHZ_P95_MS}); largest peak: {peak} MB (target ≤ {LIMIT_MB})")


if __name__ == "__main__":
    main()
