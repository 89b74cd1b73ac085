"""The performance harness: ingest, search, pages and server figures beside their baselines.

    make bench                                   # S (13,408 abstracts) then L (88,183)
    .venv/bin/python -m bench.run --size S       # one size
    .venv/bin/python -m bench.run --size smoke   # 500 abstracts, seconds-long: the smoke test

Corpora come from ../shared/corpus (written as list files by its make_lists.py) and are never
copied into the repository. Baselines run in the same process on the same documents and
queries: SQLite FTS5 (bm25 + snippet + venue counts) for search, and a minimal endpoint in the
same server (/bench/hello) for HTTP. Ratios are what to compare: absolute times on a shared
2-core machine are noisy. Results go to bench/results/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from app.config import PROJECT_ROOT, Settings
from app.db import get_engine
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.browse import measure_browsing, print_browsing
from bench.fts5 import build_fts5, fts5_page
from bench.harness import (
    BIN,
    RESULTS,
    SIZES,
    children_cpu_seconds,
    free_port,
    jsonl_inputs,
    load,
    percentiles,
    rss_mb,
    size_mb,
    start_server,
    timed_command,
    worker_pids,
    write_lists,
)
from bench.load import PROFILE_PATHS, readers_mix
from bench.pasted import measure_pasted, print_pasted
from bench.people import measure_people
from bench.recommend import print_speed
from bench.recommend import speed as recommendation_speed
from bench.words import measure_words, print_words

COMMON = {"learning", "model", "neural network", "deep learning", "data"}


def queries() -> list[str]:
    lines = (PROJECT_ROOT / "bench" / "queries.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def bench_ingest(inputs: list[Path], data: Path, env: dict[str, str], papers: int) -> dict:
    """A first ingest into an empty catalog, then the same files again."""
    env = {**env, "CATALOG_DATA_DIR": str(data)}
    command = [str(BIN / "catalog"), "ingest", *map(str, inputs)]
    cpu = children_cpu_seconds()
    seconds, peak, output = timed_command(command, env)
    cpu = children_cpu_seconds() - cpu
    again, _, output_again = timed_command(command, env)
    added = re.search(r"papers added: (\d+)", output)
    return {
        "papers": papers, "stored": int(added[1]) if added else None,
        "seconds": round(seconds, 1), "papers_per_s": round(papers / seconds, 1),
        "cpu_seconds": round(cpu, 1), "peak_rss_mb": peak, "db_mb": size_mb(data / "catalog.db"),
        "index_mb": size_mb((data / "index").resolve()),
        "reingest_seconds": round(again, 2),
        "reingest_index": "no work" if "search index: up to date" in output_again
        else output_again.splitlines()[-3:],
    }


def bench_search(settings: Settings, work: Path) -> dict:
    # No result cache: every timed search does the whole work (the server's cache is
    # measured separately, as repeats over HTTP).
    search = PaperSearch(settings.index_path, result_cache=0)
    db = sqlite3.connect(settings.database_path)

    def texts(ids: list[str]) -> dict[str, str]:
        marks = ",".join("?" * len(ids))
        return dict(db.execute(f"SELECT id, plain FROM paper WHERE id IN ({marks})", ids))

    started = time.perf_counter()
    fts = build_fts5(settings, work / "fts5.db")
    fts_build = time.perf_counter() - started
    timings: dict[str, dict[str, list[float]]] = {"whoosh": {}, "fts5": {}}
    for passes, record in ((1, False), (3, True)):  # a warm-up pass, then timed passes
        for _ in range(passes):
            for q in queries():
                t = time.perf_counter()
                search.search(SearchRequest(q=q), texts)
                w = (time.perf_counter() - t) * 1000
                t = time.perf_counter()
                fts5_page(fts, q)
                f = (time.perf_counter() - t) * 1000
                if record:
                    timings["whoosh"].setdefault(q, []).append(w)
                    timings["fts5"].setdefault(q, []).append(f)
    search.close()
    result = {"fts5_build_seconds": round(fts_build, 1)}
    for engine, per_query in timings.items():
        everything = [v for values in per_query.values() for v in values]
        common = [v for q, values in per_query.items() if q in COMMON for v in values]
        typical = [v for q, values in per_query.items() if q not in COMMON for v in values]
        result[engine] = {"all": percentiles(everything), "typical": percentiles(typical),
                          "common": percentiles(common),
                          "slowest": sorted(((round(statistics.median(v), 1), q)
                                             for q, v in per_query.items()), reverse=True)[:5]}
    return result


def time_search_pages(http: httpx.Client) -> tuple[dict[str, list[float]], list[float]]:
    """Milliseconds per query of its first search page, and of the same page again. The
    server caches results per query: warm up on page 2, time page 1 once (the whole work) and
    then again (a repeat, served from the cache)."""
    page_latency: dict[str, list[float]] = {}
    repeat_latency: list[float] = []
    for page, record in ((2, None), (1, page_latency), (1, repeat_latency)):
        for q in queries():
            t = time.perf_counter()
            response = http.get("/search", params={"q": q, "page": page})
            elapsed = (time.perf_counter() - t) * 1000
            # The warm-up's page 2 is past the end (a 404) for a query of 20 hits or fewer.
            assert response.status_code == 200 or (page == 2 and response.status_code == 404), (
                q, response.status_code)
            if isinstance(record, dict):
                record.setdefault(q, []).append(elapsed)
            elif record is not None:
                record.append(elapsed)
    return page_latency, repeat_latency


def bench_http(settings: Settings, env: dict[str, str], page_seconds: float) -> dict:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server, cold_start = start_server({**env, "CATALOG_BENCH_ENDPOINT": "1"}, port)
    try:
        with httpx.Client(base_url=base, timeout=120) as http:
            venue = max(http.get("/api/venues").json()["venues"], key=lambda v: v["paper_count"])
            deep = max(1, -(-venue["paper_count"] // 50))
            paper = http.get(f"/api/venues/{venue['slug']}/papers").json()["papers"][0]
            page_latency, repeat_latency = time_search_pages(http)
            server_rss = rss_mb(server.pid)
            paper_pages = first_time_paper_pages(http)
        browsing = measure_browsing(base)
        pages = {
            "hello (baseline)": "/bench/hello", "/": "/",
            "/venues/{slug}": f"/venues/{venue['slug']}",
            "/venues/{slug}?page=last": f"/venues/{venue['slug']}?page={deep}",
            "/papers/{id}": paper["url"].replace(base, "").replace("http://testserver", ""),
            "/search?q=reinforcement learning": "/search?q=reinforcement+learning",
        }
        throughput = {name: load(base, [path], page_seconds) for name, path in pages.items()}
        hello = throughput["hello (baseline)"]["rps"] or 1
        for report in throughput.values():
            report["share_of_hello"] = round(report["rps"] / hello, 3)
        search_page = {
            "all": percentiles([v for values in page_latency.values() for v in values]),
            "typical": percentiles([v for q, values in page_latency.items() if q not in COMMON
                                    for v in values]),
            "common": percentiles([v for q, values in page_latency.items() if q in COMMON
                                   for v in values]),
            "repeat (cached)": percentiles(repeat_latency),
        }
        return {"cold_start_seconds": round(cold_start, 2), "server_rss_mb": server_rss,
                "search_page_ms": search_page, "paper_page_first_ms": paper_pages,
                "pages": throughput, "browsing": browsing,
                "largest_venue": venue["slug"], "deep_page": deep}
    finally:
        server.terminate()
        server.wait(timeout=30)


def first_time_paper_pages(http: httpx.Client, editions: int = 25) -> dict:
    """Paper pages (with their related papers), each asked for the first time: two papers
    from each of up to 25 editions spread over the catalog."""
    venues = http.get("/api/venues").json()["venues"]
    chosen = venues[::max(1, len(venues) // editions)][:editions]
    latency = []
    for venue in chosen:
        listed = http.get(f"/api/venues/{venue['slug']}/papers").json()["papers"]
        for paper in listed[:: max(1, len(listed) // 2)][:2]:
            t = time.perf_counter()
            response = http.get(f"/papers/{paper['id']}")
            latency.append((time.perf_counter() - t) * 1000)
            assert response.status_code == 200, (paper["id"], response.status_code)
    return percentiles(latency)


def warm_workers(base: str) -> None:
    """A few searches, so that each worker of the server has opened the index."""
    with httpx.Client(base_url=base, timeout=120) as http:
        for q in ("warm", "up", "both", "workers", "of", "the", "server", "now"):
            http.get("/search", params={"q": q})


def bench_readers(env: dict[str, str], seconds: float) -> dict:
    """Many readers at once: `catalog serve --workers 2`, 16 clients, first-time title
    searches (first and second pages), venue pages at random depths and people pages where
    the catalog has people, each URL once."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server, _ = start_server(env, port, "--workers", "2")
    try:
        warm_workers(base)
        urls = readers_mix(base)
        result = load(base, urls, seconds, once=True)
        return {**result, "distinct_urls": len(urls),
                "people_urls": sum(url.startswith(PROFILE_PATHS) for url in urls),
                "worker_rss_mb": [rss_mb(pid) for pid in worker_pids(server)]}
    finally:
        server.terminate()
        server.wait(timeout=30)


def run(size: str, page_seconds: float, keep: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"bench-{size}-") as tmp:
        work = keep or Path(tmp)
        lists, data = work / "lists", work / "data"
        lists.mkdir(parents=True, exist_ok=True)
        papers = write_lists(size, lists)
        env = {**os.environ, "CATALOG_DATA_DIR": str(data)}
        settings = Settings(data_dir=data, seeds_dir=lists)
        report = {"size": size, "papers_in_lists": papers,
                  "ingest_jsonl": bench_ingest(jsonl_inputs(size, work / "jsonl"),
                                               work / "jsonl-data", env, papers),
                  "ingest": bench_ingest([lists], data, env, papers)}
        if size == "L":  # issue 23: the people pages' counts are the corpus's
            print(f"\n== {size}: people pages (JSON Lines catalog) ==")
            measure_people(work / "jsonl-data")
        # Readers read author, institution and country pages too: the catalog with people.
        report["readers"] = bench_readers({**env, "CATALOG_DATA_DIR": str(work / "jsonl-data")},
                                          2 * page_seconds)
        shutil.rmtree(work / "jsonl-data")
        get_engine(settings.database_url)
        report["search_in_process_ms"] = bench_search(settings, work)
        report["http"] = bench_http(settings, env, page_seconds)
        report["recommendations"] = recommendation_speed(data)
        if size == "L":
            report["words"] = measure_words(settings)  # issue 22: are word counts facts?
            report["pasted"] = measure_pasted(settings)
        return report


def print_report(report: dict) -> None:
    print(f"\n== {report['size']}: {report['papers_in_lists']} abstracts ==")
    for name, key in (("list files", "ingest"), ("JSON Lines", "ingest_jsonl")):
        ingest = report[key]
        print(f"ingest of {name}: {ingest['seconds']} s, {ingest['papers_per_s']} papers/s "
              f"(target >= 1000), peak RSS {ingest['peak_rss_mb']} MB (target <= 1536), "
              f"db {ingest['db_mb']} MB, index {ingest['index_mb']} MB; re-ingest unchanged "
              f"{ingest['reingest_seconds']} s ({ingest['reingest_index']})")
    search = report["search_in_process_ms"]
    print(f"\nsearch in-process (ms)      {'Whoosh':>24} {'FTS5':>24}  ratio p95 (target <= 0.5)")
    for group in ("typical", "common", "all"):
        w, f = search["whoosh"][group], search["fts5"][group]
        print(f"  {group:8} p50/p95/p99/max  {w['p50']:6}/{w['p95']:6}/{w['p99']:6}/{w['max']:7}"
              f"  {f['p50']:6}/{f['p95']:6}/{f['p99']:6}/{f['max']:7}"
              f"  {w['p95'] / f['p95'] if f['p95'] else 0:6.2f}")
    http = report["http"]
    print("\n/search page over HTTP (ms; targets p95 typical <= 50, common <= 100): " + "; ".join(
        f"{g} p50 {v['p50']} p95 {v['p95']} p99 {v['p99']} max {v['max']}"
        for g, v in http["search_page_ms"].items()))
    paper = http["paper_page_first_ms"]
    print(f"paper page with related papers, first time ({paper['n']} papers): p50 "
          f"{paper['p50']} ms, p95 {paper['p95']} ms (target <= 100)")
    print(f"cold start {http['cold_start_seconds']} s (target <= 3); server RSS "
          f"{http['server_rss_mb']} MB")
    print_browsing(http["browsing"])
    print("\npages, concurrency 16:            req/s   share of hello   p50 ms   p95 ms  errors")
    for name, r in http["pages"].items():
        print(f"  {name:34} {r['rps']:8} {r['share_of_hello']:10}  {r['p50_ms']:8} "
              f"{r['p95_ms']:8}  {r['errors']}")
    r = report["readers"]
    print(f"\nreaders mix, 2 workers, 16 clients ({r['distinct_urls']} distinct URLs, "
          f"{r['people_urls']} of them author, institution and country pages): "
          f"{r['rps']} req/s, p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, p99 {r['p99_ms']} ms, "
          f"errors {r['errors']}, worker RSS {r['worker_rss_mb']} MB (targets >= 100 req/s, "
          "p95 <= 300 ms, no errors, RSS <= 400 MB)")
    print_speed(report["recommendations"])
    if "words" in report:
        print_words(report["words"])
        print_pasted(report["pasted"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=list(SIZES), action="append")
    parser.add_argument("--page-seconds", type=float, default=30)
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    for size in args.size or ["S", "L"]:
        report = run(size, args.page_seconds)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        (RESULTS / f"{size}-{stamp}.json").write_text(json.dumps(report, indent=2))
        print_report(report)


if __name__ == "__main__":
    main()
