"""Browsing pages at scale: size and first-render time of the home, venues, series, topics,
topic and trends pages, beside their targets (150 KB, /topics 200 KB; 300 ms first render).

    .venv/bin/python -m bench.browse --data /path/to/data   # a catalog already ingested
    (bench.run measures them too, on the catalog it builds)

The first request of a page renders it (pages are cached per catalog version); the second
is the cached copy, printed for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import httpx

from bench.harness import free_port, start_server

SIZE_TARGET_KB = 150
SIZE_TARGETS_KB = {"/topics": 200}
FIRST_RENDER_TARGET_MS = 300
TREND_QUERIES = "q=transformer&q=lstm&q=kernel"


def browsing_paths(http: httpx.Client) -> dict[str, str]:
    """The page types, each at its largest instance in this catalog."""
    series = max(http.get("/api/series").json()["series"], key=lambda s: s["papers"])
    topic = max(http.get("/api/topics").json()["topics"], key=lambda t: t["paper_count"])
    return {
        "/": "/", "/venues": "/venues", "/venues/{series}": f"/venues/{series['slug']}",
        "/topics": "/topics", "/topics?from=2015&to=2020": "/topics?from=2015&to=2020",
        "/topics/{slug}": f"/topics/{topic['slug']}", "/trends?q=...": f"/trends?{TREND_QUERIES}",
    }


def measure_browsing(base: str) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    with httpx.Client(base_url=base, timeout=120) as http:
        http.get("/api/search", params={"q": "warm"})  # the index opens at the first search
        for name, path in browsing_paths(http).items():
            timings, size = [], 0
            for _ in range(2):
                started = time.perf_counter()
                response = http.get(path)
                timings.append(round((time.perf_counter() - started) * 1000, 1))
                size = len(response.content)
                assert response.status_code == 200, (path, response.status_code)
            kb = round(size / 1024, 1)
            target_kb = SIZE_TARGETS_KB.get(name, SIZE_TARGET_KB)
            results[name] = {"path": path, "kb": kb, "target_kb": target_kb,
                             "first_ms": timings[0], "cached_ms": timings[1],
                             "met": kb <= target_kb and timings[0] <= FIRST_RENDER_TARGET_MS}
    return results


def print_browsing(results: dict[str, dict[str, object]]) -> None:
    print(f"\nbrowsing pages        {'KB':>7} {'target':>7} {'first ms':>9} {'cached ms':>10}  met")
    for name, r in results.items():
        print(f"  {name:26} {r['kb']:7} {r['target_kb']:7} {r['first_ms']:9} "
              f"{r['cached_ms']:10}  {'yes' if r['met'] else 'NO'}")
    print(f"  (first render target {FIRST_RENDER_TARGET_MS} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="an ingested data directory")
    args = parser.parse_args()
    port = free_port()
    server, cold = start_server({**os.environ, "CATALOG_DATA_DIR": str(args.data.resolve())},
                                port)
    try:
        results = measure_browsing(f"http://127.0.0.1:{port}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"cold start {cold:.2f} s")
    print_browsing(results)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
