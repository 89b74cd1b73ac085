"""The catalog beside datasette, what a researcher would use instead (issue 42), in one run.

    make bench-datasette                                # L; installs '.[bench]' and wrk
    .venv/bin/python -m bench.datasette --size L        # or --corpus FILE.jsonl.gz ...
    .venv/bin/python -m bench.datasette --corpus FILE.jsonl.gz --builds   # the builds only
    .venv/bin/python -m bench.datasette --catalog DATA_DIR   # a catalog built before, alone
    .venv/bin/python -m bench.datasette --catalog DATA_DIR --in-process   # its searches only
    .venv/bin/python -m bench.datasette --size L --vectors-from DATA_DIR   # search by meaning on

The baseline is built from the same JSON Lines files: `sqlite-utils insert` of every record
(all fields), then `sqlite-utils enable-fts --fts5 --tokenize porter` on title and abstract;
one `datasette` process serves it with its defaults, and its search page is
/db/papers?_search=Q&_facet=venue&_facet=year. The catalog is `catalog ingest` of the same
files into a fresh data directory, served by `catalog serve --workers 2`. Printed, each
beside the other side and as a ratio:

- the two builds, timed back to back (wall and CPU seconds, the build's processes);
- search pages of distinct title phrases (bench.load.title_queries), each phrase asked once
  of each side, 16 connections (wrk when installed), in short rounds that alternate the
  sides: req/s, p50/p95 (the median of the rounds'), errors, and the CPU time its server
  processes spent per page (which contention on a shared machine moves less than req/s:
  there one datasette process gets about half the CPU of two catalog workers);
- each catalog worker's memory after the load: RSS, private and shared (smaps_rollup);
- the first-time search in-process: the catalog's (hits, snippets, facets) against FTS5's
  page and venue and year counts over the same papers (bench.fts5), p95 of wall time and
  of the thread's CPU time.

With `--vectors-from DATA_DIR`, the built catalog borrows its sentence vectors after the timed
build (bench/vectors.py), one query in ten is a TL;DR (bench/meaning_mix.py), and the targets
are issue 59's (p95 <= 0.6x, each worker <= 560 MB).

Absolute numbers on a shared 2-core machine are noisy; the ratios of one run are what to
compare. datasette and sqlite-utils come from the `bench` extra (pip install -e '.[bench]').
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.fts5 import fts5_page
from bench.harness import (
    BIN,
    RESULTS,
    SIZES,
    children_cpu_seconds,
    cpu_seconds,
    free_port,
    jsonl_inputs,
    load,
    memory_mb,
    percentiles,
    start_process,
    start_server,
    worker_pids,
)
from bench.load import first_records, title_queries
from bench.meaning_mix import corpus_tldrs, fts5_answer, with_descriptions
from bench.questions import CatalogTexts, beside_fts5, catalog_search, catalog_settings
from bench.run import bench_ingest, warm_workers
from bench.vectors import with_vectors

CONNECTIONS = 16  # bench.harness.load's
DATASETTE, CATALOG = "datasette (1 process)", "catalog (--workers 2)"
TARGETS = {"build": 10, "rps": 4, "p95_in_process": 0.5, "worker_rss_mb": 400,
           "private_of_one": 1.3}
# Issue 59's, with search by meaning on: the encoder and the papers' matrix are mapped too.
MEANING_TARGETS = {**TARGETS, "p95_in_process": 0.6, "worker_rss_mb": 560}


def build_baseline(inputs: list[Path], database: Path) -> dict[str, float]:
    """sqlite-utils insert of every record, then its FTS5 table: the wall and CPU seconds
    both took."""
    utils = str(BIN / "sqlite-utils")
    cpu, started = children_cpu_seconds(), time.perf_counter()
    for source in inputs:  # gzip -f passes plain files through
        unzip = subprocess.Popen(["gzip", "-dcf", str(source)], stdout=subprocess.PIPE)
        subprocess.run([utils, "insert", str(database), "papers", "-", "--nl", "--alter"],
                       stdin=unzip.stdout, check=True)
        unzip.stdout.close()
        if unzip.wait():
            raise RuntimeError(f"gzip could not read {source}")
    subprocess.run([utils, "enable-fts", str(database), "papers", "title", "abstract",
                    "--fts5", "--tokenize", "porter"], check=True)
    return {"seconds": round(time.perf_counter() - started, 1),
            "cpu_seconds": round(children_cpu_seconds() - cpu, 1)}


def datasette_url(query: str) -> str:
    return "/db/papers?" + str(httpx.QueryParams(
        [("_search", query), ("_facet", "venue"), ("_facet", "year")]))


def catalog_url(query: str) -> str:
    return "/search?" + str(httpx.QueryParams({"q": query}))


@dataclass
class Served:
    """One side under load: its base URL, a query's page, and the processes that serve it."""

    base: str
    page: Callable[[str], str]
    pids: list[int]

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def wait_idle(self, timeout: float = 60) -> None:
        """Until the requests still in flight when a round stopped are done."""
        deadline = time.perf_counter() + timeout
        before = self.cpu_seconds()
        while time.perf_counter() < deadline:
            time.sleep(0.25)
            now = self.cpu_seconds()
            if now - before < 0.01:
                return
            before = now


def interleaved(sides: dict[str, Served], queries: list[str], rounds: int,
                seconds: float) -> dict[str, dict]:
    """Rounds of `seconds` for each side, the order alternating round by round; each side
    asks the queries in order, each once as far as they last. A round's CPU is its server
    processes' until they are idle again."""
    asked = dict.fromkeys(sides, 0)
    reports: dict[str, list[dict]] = {name: [] for name in sides}
    for number in range(rounds):
        for name in list(sides)[:: 1 if number % 2 == 0 else -1]:
            side = sides[name]
            cpu = side.cpu_seconds()
            report = load(side.base, [side.page(q) for q in queries[asked[name]:] or queries],
                          seconds, once=True)
            side.wait_idle()
            reports[name].append({**report, "cpu_s": side.cpu_seconds() - cpu})
            # wrk does not count the requests still in flight when it stops: skip them too
            asked[name] += report["requests"] + CONNECTIONS
    return {name: {**side_summary(reports[name]), "asked": asked[name]} for name in sides}


def side_summary(rounds: list[dict]) -> dict:
    """One side's rounds: req/s over their whole time, the median of their percentiles, and
    CPU per request sent (those answered and the ones in flight when a round stopped)."""
    requests = sum(r["requests"] for r in rounds)
    sent = requests + CONNECTIONS * len(rounds)
    return {"rps": round(requests / sum(r["seconds"] for r in rounds), 1),
            "p50_ms": round(statistics.median(r["p50_ms"] for r in rounds), 1),
            "p95_ms": round(statistics.median(r["p95_ms"] for r in rounds), 1),
            "errors": sum(r["errors"] for r in rounds), "requests": requests,
            "cpu_ms_per_page": round(1000 * sum(r["cpu_s"] for r in rounds) / sent, 1),
            "tool": rounds[0]["tool"],
            "rounds": [{key: r[key] for key in ("rps", "p50_ms", "p95_ms", "errors")}
                       for r in rounds]}


def serve_both(database: Path | None, data: Path, queries: list[str], rounds: int,
               seconds: float) -> dict:
    """Both sides served at once and loaded in turn (the catalog alone without a
    `database`); then the catalog workers' memory."""
    ports = {DATASETTE: free_port(), CATALOG: free_port()}
    bases = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    datasette = database and start_process(
        [str(BIN / "datasette"), "serve", str(database), "--host", "127.0.0.1", "--port",
         str(ports[DATASETTE])], bases[DATASETTE] + "/-/versions.json")[0]
    try:
        catalog, cold_start = start_server({**os.environ, "CATALOG_DATA_DIR": str(data)},
                                           ports[CATALOG], "--workers", "2")
        try:
            warm_workers(bases[CATALOG])
            sides = {CATALOG: Served(bases[CATALOG], catalog_url,
                                     [catalog.pid, *worker_pids(catalog)])}
            if datasette:
                httpx.get(bases[DATASETTE] + datasette_url("warm up"), timeout=120)
                sides = {DATASETTE: Served(bases[DATASETTE], datasette_url, [datasette.pid]),
                         **sides}
            load_before = os.getloadavg()[0]
            return {"sides": interleaved(sides, queries, rounds, seconds),
                    "distinct_queries": len(queries),
                    "catalog_cold_start_s": round(cold_start, 1),
                    "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
                    "workers_mb": [memory_mb(pid) for pid in sides[CATALOG].pids[1:]],
                    "datasette_mb": datasette and memory_mb(datasette.pid)}
        finally:
            catalog.terminate()
            catalog.wait(timeout=30)
    finally:
        if datasette:
            datasette.terminate()
            datasette.wait(timeout=30)


def _timed(ask: Callable[..., object], *args: object) -> tuple[float, float]:
    """Milliseconds of one call: wall, and this thread's CPU (no wait for a busy core)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    ask(*args)
    return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def first_time_searches(data: Path, queries: list[str],
                        described: frozenset[str] = frozenset()) -> dict:
    """Each query once, in-process: the catalog's search (no result cache) and FTS5's page
    with venue and year counts (`described`: the queries that are descriptions), in turn,
    after one untimed search each; wall and CPU."""
    texts = CatalogTexts(catalog_settings(data).database_path)

    def timed(search, fts: sqlite3.Connection) -> dict[str, list[tuple[float, float]]]:
        catalog_search(search, texts.plain, "warm up")
        fts5_page(fts, "warm up")
        times: dict[str, list[tuple[float, float]]] = {"catalog": [], "fts5": []}
        for q in queries:
            times["catalog"].append(_timed(catalog_search, search, texts.plain, q))
            times["fts5"].append(_timed(fts5_answer, fts, q, described))
        return times

    try:
        times = beside_fts5(catalog_settings(data), texts, timed)
    finally:
        texts.close()
    return {name: {"wall": percentiles([wall for wall, _ in values]),
                   "cpu": percentiles([cpu for _, cpu in values])}
            for name, values in times.items()}


def run(inputs: list[Path], work: Path, rounds: int = 3, seconds: float = 20,
        searches: int = 300, queries: int = 8000, vectors_from: Path | None = None) -> dict:
    """The whole comparison on the JSON Lines files `inputs`, built under `work`; with
    `vectors_from`, search by meaning on (the vectors borrowed after the timed build)."""
    titles = title_queries(queries, sources=inputs)
    report = builds(inputs, work)
    database, data = work / "db.db", work / "catalog"
    phrases = titles
    if vectors_from is not None:
        with_vectors(catalog_settings(data), vectors_from)
        phrases = with_descriptions(titles, corpus_tldrs())
    described = frozenset(phrases) - frozenset(titles)
    return {**report, "meaning": vectors_from is not None, "descriptions": len(described),
            "pages": serve_both(database, data, phrases, rounds, seconds),
            "in_process_ms": first_time_searches(data, phrases[:searches], described)}


def builds(inputs: list[Path], work: Path) -> dict:
    """Both builds of the JSON Lines files `inputs`, back to back, under `work`: db.db and
    catalog/."""
    records = sum(1 for source in inputs for _ in first_records(source))
    database, data = work / "db.db", work / "catalog"
    baseline = build_baseline(inputs, database)
    with sqlite3.connect(database) as db:
        inserted = db.execute("SELECT count(*) FROM papers").fetchone()[0]
    if inserted != records:
        raise RuntimeError(f"sqlite-utils inserted {inserted} of {records} records")
    ingest = bench_ingest(inputs, data, {**os.environ, "CATALOG_DATA_DIR": str(data)}, records)
    return {"inputs": [source.name for source in inputs], "records": records,
            "build": {"sqlite_utils": baseline, "catalog": ingest}}


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def print_report(report: dict) -> None:
    print(f"\n== the catalog beside datasette: {report['records']:,} records of "
          f"{', '.join(report['inputs'])} ==")
    targets = MEANING_TARGETS if report.get("meaning") else TARGETS
    if report.get("meaning"):
        print(f"search by meaning on: every paper has a vector; {report['descriptions']} of "
              "the queries are TL;DRs (one in ten)")
    print_builds(report["build"])
    print_pages(report["pages"])
    print_memory(report["pages"], targets)
    print_in_process(report["in_process_ms"], targets)


def print_builds(build: dict) -> None:
    catalog_build, baseline = build["catalog"], build["sqlite_utils"]
    build_ratio = catalog_build["seconds"] / baseline["seconds"]
    print(f"build, back to back: sqlite-utils insert + enable-fts {baseline['seconds']} s "
          f"(CPU {baseline['cpu_seconds']} s); catalog ingest {catalog_build['seconds']} s (CPU "
          f"{catalog_build['cpu_seconds']} s, {catalog_build['stored']} papers, peak RSS "
          f"{catalog_build['peak_rss_mb']} MB): {build_ratio:.1f}x (target <= "
          f"{TARGETS['build']}x: {_met(build_ratio <= TARGETS['build'])}); CPU "
          f"{catalog_build['cpu_seconds'] / baseline['cpu_seconds']:.1f}x")


def print_pages(pages: dict) -> None:
    sides = pages["sides"]
    first = next(iter(sides.values()))
    print(f"\nsearch pages of first-time title phrases, {CONNECTIONS} connections, "
          f"{len(first['rounds'])} rounds each side, interleaved ({first['tool']}; "
          f"{pages['distinct_queries']} distinct phrases, asked of "
          + ", ".join(f"{name.split()[0]} {side['asked']}" for name, side in sides.items())
          + f"; load average {pages['load_average'][0]} before, {pages['load_average'][1]} "
          "after):")
    for name, side in sides.items():
        rounds = "; ".join(f"{r['rps']}" for r in side["rounds"])
        print(f"  {name:24} {side['rps']:7} req/s  p50 {side['p50_ms']:7} ms  p95 "
              f"{side['p95_ms']:7} ms  errors {side['errors']}  CPU {side['cpu_ms_per_page']} "
              f"ms a page  (rounds' req/s: {rounds})")
    if pages["distinct_queries"] < max(side["asked"] for side in sides.values()):
        print("  (the phrases ran out: later requests repeated them)")
    if DATASETTE not in sides:
        return
    datasette, catalog = sides[DATASETTE], sides[CATALOG]
    rps_ratio = catalog["rps"] / datasette["rps"] if datasette["rps"] else 0.0
    no_errors = catalog["errors"] == 0
    print(f"  CPU per page (the server's processes over their rounds): datasette "
          f"{datasette['cpu_ms_per_page']} ms, catalog {catalog['cpu_ms_per_page']} ms: "
          f"{catalog['cpu_ms_per_page'] / datasette['cpu_ms_per_page']:.2f}x")
    print(f"  ratio catalog / datasette: req/s {rps_ratio:.2f}x (target >= {TARGETS['rps']}x "
          f"with 0 errors: {_met(rps_ratio >= TARGETS['rps'] and no_errors)}), "
          f"p50 {catalog['p50_ms'] / datasette['p50_ms']:.2f}x, "
          f"p95 {catalog['p95_ms'] / datasette['p95_ms']:.2f}x")


def print_memory(pages: dict, targets: dict = TARGETS) -> None:
    workers = pages["workers_mb"]
    rss = [worker["rss"] for worker in workers]
    private_ratio = sum(worker["private"] for worker in workers) / statistics.mean(rss)
    print("\nafter the load: " + "; ".join(
        f"worker {number} RSS {worker['rss']} MB (private {worker['private']}, shared "
        f"{worker['shared']})" for number, worker in enumerate(workers, 1))
        + (f"; datasette RSS {pages['datasette_mb']['rss']} MB" if pages["datasette_mb"]
           else ""))
    print(f"  each worker's RSS <= {targets['worker_rss_mb']} MB: "
          f"{_met(max(rss) <= targets['worker_rss_mb'])}; the workers' private memory "
          f"together is {private_ratio:.2f}x one worker's RSS (target <= "
          f"{TARGETS['private_of_one']}x: {_met(private_ratio <= TARGETS['private_of_one'])})")


def print_in_process(searches: dict, targets: dict = TARGETS) -> None:
    print(f"\nfirst-time search in-process ({searches['catalog']['wall']['n']} title phrases), "
          "the catalog's beside FTS5's page + venue and year counts:")
    for clock in ("wall", "cpu"):
        catalog_ms, fts5_ms = searches["catalog"][clock], searches["fts5"][clock]
        ratio = catalog_ms["p95"] / fts5_ms["p95"]
        print(f"  {clock:4}  catalog p50 {catalog_ms['p50']} p95 {catalog_ms['p95']} ms; FTS5 "
              f"p50 {fts5_ms['p50']} p95 {fts5_ms['p95']} ms: p95 {ratio:.2f}x (target <= "
              f"{targets['p95_in_process']}x: {_met(ratio <= targets['p95_in_process'])})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=list(SIZES), default="L")
    parser.add_argument("--corpus", type=Path, nargs="+",
                        help="JSON Lines files (.jsonl or .jsonl.gz) instead of --size's")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each side")
    parser.add_argument("--seconds", type=float, default=20, help="of each round")
    parser.add_argument("--searches", type=int, default=300,
                        help="first-time searches timed in-process")
    parser.add_argument("--builds", action="store_true",
                        help="only the two builds (no serving), printed and not saved")
    parser.add_argument("--catalog", type=Path, metavar="DATA_DIR",
                        help="only this catalog, built before: its search pages and its "
                        "workers' memory, printed and not saved")
    parser.add_argument("--in-process", action="store_true",
                        help="with --catalog: only its first-time searches in-process beside "
                        "FTS5 (--searches of them), printed and not saved")
    parser.add_argument("--vectors-from", type=Path, metavar="DATA_DIR",
                        help="search by meaning on: the built catalog borrows this catalog's "
                        "sentence vectors, and one query in ten is a TL;DR")
    args = parser.parse_args()
    if args.in_process and not args.catalog:
        parser.error("--in-process needs --catalog")
    with tempfile.TemporaryDirectory(prefix="bench-datasette-") as tmp:
        inputs = args.corpus or jsonl_inputs(args.size, Path(tmp) / "jsonl")
        if args.in_process:
            load_before = os.getloadavg()[0]
            print_in_process(first_time_searches(
                args.catalog, title_queries(args.searches, sources=inputs)))
            print(f"  load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
            return
        if args.catalog:
            pages = serve_both(None, args.catalog, title_queries(8000, sources=inputs),
                               args.rounds, args.seconds)
            print_pages(pages)
            print_memory(pages)
            return
        if args.builds:
            print_builds(builds(inputs, Path(tmp))["build"])
            return
        report = run(inputs, Path(tmp), args.rounds, args.seconds, args.searches,
                     vectors_from=args.vectors_from)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (RESULTS / f"datasette-{stamp}.json").write_text(json.dumps(report, indent=2))
    print_report(report)


if __name__ == "__main__":
    main()
