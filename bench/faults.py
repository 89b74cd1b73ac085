"""Issue 58's faults, each reproduced on a copy of a scratch catalog and described in a block
(numbers, status codes, the lines the commands printed), then a summary against the issue's
"Done when", so a reliability round starts from what it prints:

    .venv/bin/python -m bench.faults [--papers N | --seeds] [--only NAME ...]

The catalog is built from the 13,408 papers of ml-abstracts.jsonl.gz (the whole run took
24 minutes on two busy cores), from its first N papers, or from seeds/. Faults: ingests
(editions added under load), index (damaged index files), database (a damaged catalog.db),
disk (a full disk: a tmpfs, so root only), halves (two ingests of one edition at once),
heads (request heads) and small (a long query's page, a page past the last, Allow, download
errors, completions, the first `/` after a start). Servers listen on 127.0.0.1 only;
everything is removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import re
import shutil
import socket
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx

from bench.faults_kit import (
    MB,
    WORD,
    Outcome,
    Scratch,
    Server,
    fetch,
    gist,
    note,
    show,
    stop_processes_on,
)
from bench.faults_stored import (
    damaged_database,
    damaged_index,
    full_disk,
    ingests_under_load,
    two_halves,
)
from bench.harness import percentiles

URL_PIECE = re.compile(r"^(?:https?\w*|www\w*|github\w*|gitlab\w*|doi|com|org|io|html?)$")


def send_head(port: int, extra: bytes, timeout: float = 60) -> tuple[str, float]:
    """A search's request head with `extra` header bytes: the status line (or what happened
    instead) and the seconds from the first byte sent to it."""
    head = (f"GET /search?q={WORD} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
            + extra + b"\r\n")
    connection = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sender = threading.Thread(target=_send_all, args=(connection, head), daemon=True)
    started, answer, line = time.perf_counter(), b"", ""
    sender.start()
    try:
        while b"\r\n" not in answer and (chunk := connection.recv(1 << 16)):
            answer += chunk
    except OSError as error:
        line = f"no answer: {type(error).__name__}"
    seconds = time.perf_counter() - started
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)
    sender.join()
    connection.close()
    return line or answer.split(b"\r\n")[0].decode(errors="replace") or "closed, no answer", seconds


def _send_all(connection: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):
        connection.sendall(data)


def timed_searches(http: httpx.Client, words: list[str]) -> dict[str, float]:
    times = []
    for word in words:
        started = time.perf_counter()
        http.get(f"/search?q={WORD}+{word}")
        times.append(time.perf_counter() - started)
    return percentiles(times)


def request_heads(scratch: Scratch) -> Outcome:
    """150,000 header lines, a search beside four such clients, a 2 MB head"""
    lines, stop = b"X: y\r\n" * 150_000, threading.Event()
    with Server(scratch.copy("heads"), "--workers", "2") as server:
        status, seconds = send_head(server.port, lines)
        show("150,000 'X: y' lines", f"'{status}' after {seconds:.3f} s")
        quiet = timed_searches(server.http, scratch.words[:20])
        def client() -> None:
            while not stop.is_set():
                send_head(server.port, lines)

        clients = [threading.Thread(target=client) for _ in range(4)]
        for client in clients:
            client.start()
        fire = timed_searches(server.http, scratch.words[20:40])
        stop.set()
        for client in clients:
            client.join()
        show("20 searches alone", f"p50 {quiet['p50']} s, p95 {quiet['p95']} s")
        show("20 searches beside 4 such clients", f"p50 {fire['p50']} s, p95 {fire['p95']} s")
        big = {kind: send_head(server.port, extra) for kind, extra in (
            ("one 2 MB header line", b"X: " + b"a" * 2 * MB + b"\r\n"),
            ("2 MB of 'X: y' lines", b"X: y\r\n" * (2 * MB // 6)))}
        for kind, (answer, took) in big.items():
            show(kind, f"'{answer}' after {took:.3f} s")
    answered = all(" 4" in answer for answer, _ in big.values())
    return Outcome("6 request heads", f"150k lines: '{status[9:]}' in {seconds:.2f} s; search p50 "
                   f"{fire['p50']} s beside 4; 2 MB: {[a[9:] for a, _ in big.values()]}",
                   status.startswith("HTTP/1.1 431") and seconds < 0.5 and fire["p50"] <= 0.3
                   and answered)


DOWNLOAD_ERRORS = ["/search.json?q=%22", f"/search.json?q={WORD}&page=10000",
                   f"/search.csv?q={WORD}&part=100000", f"/search.bib?q={WORD}&sort=bogus"]


def page_checks(server: Server, words: list[str]) -> dict[str, bool]:
    query = ""
    while len(query) < 10_000:
        query += words[len(query) % len(words)] + " "
    page = server.http.get("/search", params={"q": query.strip()})
    body, query = page.text, query.strip()
    times = sum(body.count(form) for form in (query, quote_plus(query), quote(query)))
    show("a 10 KB query's page", f"{page.status_code}, {len(page.content):,} bytes "
         f"({len(gzip.compress(page.content)):,} gzipped), the query {times} times in it")
    past, _ = fetch(server.http, f"/search?q={WORD}&page=10000")
    show("a page past the last", past)
    refused, response = fetch(server.http, "/search", "POST")
    allow = response.headers.get("allow", "") if response is not None else ""
    show("POST /search", f"{refused}, Allow: {allow}")
    html = []
    for path in DOWNLOAD_ERRORS:
        answered, response = fetch(server.http, path)
        kind = response.headers.get("content-type", "") if response is not None else ""
        show(f"  {path}", f"{answered} {kind} {gist(response) if answered != 200 else ''}")
        html += [path] if answered != 200 and "html" in kind else []
    suggested = {p: server.http.get(f"/api/suggest?q={p}").json()["suggestions"]
                 for p in ("git", "http", "www")}
    show("completions", suggested)
    pieces = [s for listed in suggested.values() for s in listed
              if any(URL_PIECE.match(word) for word in s.lower().split())]
    return {"page ≤ 300 KB": len(page.content) <= 300_000, "past the last 404": past == 404,
            "Allow has HEAD": "HEAD" in allow, "download errors not HTML": not html,
            "no URL piece completed": not pieces}


def small_lies(scratch: Scratch) -> Outcome:
    """a 10 KB query, a page past the last, Allow, download errors, completions, first `/`"""
    data = scratch.copy("small")
    with Server(data) as server:
        checks = page_checks(server, scratch.words)
    with Server(data) as server:  # a restart: the first `/` after /healthz said ok
        started = time.perf_counter()
        server.http.get("/")
        done = time.perf_counter()
    assert server.ready_at is not None
    show("the first / after a start", f"answered {done - server.ready_at:.3f} s after /healthz "
         f"200; the request took {done - started:.3f} s")
    checks["first / ≤ 300 ms"] = done - started <= 0.3
    return Outcome("7 smaller ones", ", ".join(f"{name}: {'yes' if ok else 'NO'}"
                                               for name, ok in checks.items()),
                   all(checks.values()))


FAULTS: dict[str, Callable[[Scratch], Outcome]] = {
    "ingests": ingests_under_load, "index": damaged_index, "database": damaged_database,
    "disk": full_disk, "halves": two_halves, "heads": request_heads, "small": small_lies}


def run_fault(name: str, scratch: Scratch) -> Outcome:
    print(f"\n== {name}: {FAULTS[name].__doc__}", flush=True)
    started = time.perf_counter()
    try:
        outcome = FAULTS[name](scratch)
    except Exception as error:  # one fault's failure leaves the others to run
        traceback.print_exc(limit=4)
        outcome = Outcome(name, f"the bench failed: {type(error).__name__}: {error}"[:120], None)
    finally:
        stop_processes_on(scratch.root / "runs")
        shutil.rmtree(scratch.root / "runs", ignore_errors=True)
    note(f"{name} took {time.perf_counter() - started:.0f} s")
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=0, help="the corpus's first N papers")
    parser.add_argument("--seeds", action="store_true", help="the repository's seeds/")
    parser.add_argument("--only", nargs="+", choices=list(FAULTS), default=list(FAULTS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="faults-") as root:
        scratch, outcomes = Scratch(Path(root), args.papers, args.seeds), []
        try:
            scratch.build()
            outcomes = [run_fault(name, scratch) for name in args.only]
        finally:
            stop_processes_on(Path(root))
    print("\nSummary (against issue 58's Done when)")
    width = max(len(o.fault) for o in outcomes)
    for o in outcomes:
        print(f"  {o.fault:<{width}}  {({True: 'ok', False: 'NOT OK'}.get(o.ok, '-')):<6}  "
              f"{o.outcome}")


if __name__ == "__main__":
    main()
