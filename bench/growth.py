"""Growth (issue 27, item 3): the catalog at N times the corpus, each copy a series of its own.

    .venv/bin/python -m bench.growth --factors 1 2 4              # the full sizes
    .venv/bin/python -m bench.growth --factors 1 2 --fraction 0.03 --seconds 10   # a check

For each factor N it writes the two corpora of ../shared/corpus N times into one JSON Lines
file (copy 0 as it is, copy k with venue "X{k}-{venue}", slug "x{k}-...": distinct series and
editions, so every copy is stored), then in a fresh data directory runs `catalog migrate` and
`catalog ingest FILE`, and measures:

- ingest wall time and papers/s; peak RSS: the largest single process (wait4's ru_maxrss, as
  bench.run reports it), and, sampled every 0.2 s from /proc, the ingest process (parent),
  its largest descendant (child: the "index-build" process of app/search/index/parallel_build.py;
  VmHWM of each, so peaks between samples count) and the tree's summed VmRSS;
- index and database size;
- `catalog serve --workers 2`: cold start, first-time /search pages of 200 distinct title
  phrases, one after the other (p50/p95), then the readers mix of bench.run (16 clients,
  each URL once, `--seconds` long, on a server of its own).

The file is uncompressed on purpose: `catalog ingest` starts its index-build child from 2 MB
of input files, counted compressed, so a small gzip fraction would run without a child.

Prints a markdown table and writes bench/results/growth-<date>.json. `--fraction F` takes the
first F of each corpus file (before multiplying). Durations on the shared 2-core machine:
`--factors 1 2 --fraction 0.03 --seconds 10` took 3 min 15 s. At full size, session 13:
`--factors 1 4` took 25 minutes (ingests 260 s and 934 s, then serving each for 2-3 minutes;
the table is in docs/performance.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.harness import (
    BIN,
    CORPUS,
    RESULTS,
    SIZES,
    free_port,
    percentiles,
    size_mb,
    start_server,
    timed_command,
)
from bench.load import first_records, title_queries
from bench.run import bench_readers

SEARCHES = 200  # first-time search pages timed one after the other
READERS_QUERIES = 8000  # bench.load.readers_mix's queries: the timed searches are others


def copy_venue(venue: str, copy: int) -> str:
    """Copy 0 keeps the venue's name; copy k is the series "X{k}-{venue}" (slug x{k}-...)."""
    return venue if copy == 0 else f"X{copy}-{venue}"


def write_corpus(sources: list[Path], factor: int, fraction: float, out: Path) -> int:
    """Write the sources `factor` times into one JSON Lines file, copy k's venues renamed;
    returns the records written."""
    written = 0
    with out.open("w", encoding="utf-8") as target:
        for copy in range(factor):
            for source in sources:
                for record in first_records(source, fraction):
                    record["venue"] = copy_venue(record["venue"], copy)
                    target.write(json.dumps(record, ensure_ascii=False) + "\n")
                    written += 1
    return written


def _status_mb(pid: int, field: str) -> float:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # gone since it was listed
        return 0.0
    found = re.search(rf"{field}:\s+(\d+)", text)
    return int(found[1]) / 1024 if found else 0.0


def _children(pid: int) -> list[int]:
    pids = []
    for listed in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):  # gone since it was listed
            pids += map(int, listed.read_text().split())
    return pids


class TreeSampler(threading.Thread):
    """Peak RSS (MB) of this process's children (the parent role: `catalog ingest`), of
    their largest descendant (the child role: the index-build process) and of the tree's
    sum, every 0.2 s until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peaks = {"parent": 0.0, "child": 0.0, "tree": 0.0}
        self.children_seen = 0
        self._done = threading.Event()  # not _stop: Thread has one

    def run(self) -> None:
        seen: set[int] = set()
        while not self._done.wait(0.2):
            for parent in _children(os.getpid()):
                descendants, todo = [], _children(parent)
                while todo:
                    descendants.append(todo.pop())
                    todo += _children(descendants[-1])
                seen.update(descendants)
                peaks = self.peaks
                peaks["parent"] = max(peaks["parent"], _status_mb(parent, "VmHWM"))
                peaks["child"] = max([peaks["child"],
                                      *(_status_mb(pid, "VmHWM") for pid in descendants)])
                peaks["tree"] = max(peaks["tree"], sum(
                    _status_mb(pid, "VmRSS") for pid in [parent, *descendants]))
        self.children_seen = len(seen)

    def stop(self) -> dict:
        self._done.set()
        self.join()
        return {f"{role}_peak_rss_mb": round(mb, 1) for role, mb in self.peaks.items()}


def ingest(corpus: Path, data: Path, env: dict[str, str], papers: int) -> dict:
    timed_command([str(BIN / "catalog"), "migrate"], env)
    sampler = TreeSampler()
    sampler.start()
    seconds, peak, output = timed_command([str(BIN / "catalog"), "ingest", str(corpus)], env)
    sampled = sampler.stop()
    added = re.search(r"papers added: (\d+)", output)
    return {"papers": papers, "stored": int(added[1]) if added else None,
            "seconds": round(seconds, 1), "papers_per_s": round(papers / seconds, 1),
            "peak_rss_mb": peak, **sampled, "descendants_seen": sampler.children_seen,
            "index_mb": size_mb((data / "index").resolve()),
            "db_mb": size_mb(data / "catalog.db"), "output_tail": output.splitlines()[-3:]}


def first_searches(env: dict[str, str], queries: list[str]) -> dict:
    """Cold start of `catalog serve --workers 2`, then each query's first search page."""
    port = free_port()
    server, cold_start = start_server(env, port, "--workers", "2")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
            http.get("/search", params={"q": "warm up"})  # the worker opens its index
            latency = []
            for q in queries:
                t = time.perf_counter()
                response = http.get("/search", params={"q": q})
                latency.append((time.perf_counter() - t) * 1000)
                assert response.status_code == 200, (q, response.status_code)
        return {"cold_start_seconds": round(cold_start, 2), "search_first_ms": percentiles(latency)}
    finally:
        server.terminate()
        server.wait(timeout=30)


def run(factor: int, fraction: float, seconds: float, queries: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"growth-{factor}x-") as tmp:
        corpus, data = Path(tmp) / f"corpus-{factor}x.jsonl", Path(tmp) / "data"
        started = time.perf_counter()
        papers = write_corpus([CORPUS / name for name in SIZES["L"][0]], factor, fraction, corpus)
        print(f"{factor}x: {papers} records written in {time.perf_counter() - started:.0f} s; "
              "ingesting", flush=True)
        env = {**os.environ, "CATALOG_DATA_DIR": str(data)}
        report = {"factor": factor, "fraction": fraction, "corpus_mb": size_mb(corpus),
                  "ingest": ingest(corpus, data, env, papers)}
        print(f"{factor}x: ingested in {report['ingest']['seconds']} s; serving", flush=True)
        report["http"] = first_searches(env, queries)
        report["readers"] = bench_readers(env, seconds)
        return report


def table(reports: list[dict]) -> str:
    columns = ["N", "papers", "stored", "ingest s", "papers/s", "peak RSS MB (largest)",
               "parent MB", "child MB", "tree MB", "index MB", "db MB", "cold start s",
               "search p50/p95 ms", "readers req/s", "readers p95 ms", "errors", "worker RSS MB"]
    rows = []
    for r in reports:
        i, h, rd = r["ingest"], r["http"], r["readers"]
        search = h["search_first_ms"]
        rows.append([r["factor"], i["papers"], i["stored"], i["seconds"], i["papers_per_s"],
                     i["peak_rss_mb"], i["parent_peak_rss_mb"], i["child_peak_rss_mb"],
                     i["tree_peak_rss_mb"], i["index_mb"], i["db_mb"], h["cold_start_seconds"],
                     f"{search['p50']}/{search['p95']}", rd["rps"], rd["p95_ms"], rd["errors"],
                     "/".join(map(str, rd["worker_rss_mb"]))])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return "\n".join(lines + ["| " + " | ".join(map(str, row)) + " |" for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--factors", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--fraction", type=float, default=1.0,
                        help="the first F of each corpus file (0.02: seconds a factor)")
    parser.add_argument("--seconds", type=float, default=30, help="of the readers mix")
    args = parser.parse_args()
    # Title phrases the readers mix (the same first 8,000) never asks: each search is new.
    queries = title_queries(READERS_QUERIES + SEARCHES, seed=5)[READERS_QUERIES:]
    reports = [run(factor, args.fraction, args.seconds, queries) for factor in args.factors]
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"growth-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(reports, indent=2))
    print(table(reports))
    print(f"\n{out}")


if __name__ == "__main__":
    main()
