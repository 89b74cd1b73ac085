"""Many tiny abstracts in one list file, at the scale the suite leaves out: the ingest's time
and peak memory, then the venue's last page and a search that every paper matches, timed.
tests/hardening/test_hostile_files.py checks the same behaviour on a few thousand.

    .venv/bin/python -m bench.tiny                    # 100,000 abstracts: 2-3 minutes here
    .venv/bin/python -m bench.tiny --papers 20000

Prints a table and writes bench/results/tiny-<papers>.json; exits 1 when a paper is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from app.catalog import VENUE_PAGE_SIZE
from app.config import Settings
from app.main import create_app
from bench.harness import BIN, RESULTS, size_mb, timed_command

VENUE = "tiny-2026"


def write_tiny(path: Path, papers: int) -> Path:
    """A list file of `papers` one-sentence abstracts, numbered from 0."""
    path.write_text("TINY 2026 Papers\n\n" + "\n\n".join(
        f"Tiny abstract number {i}." for i in range(papers)) + "\n")
    return path


def run(papers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-tiny-") as work:
        return measure(Path(work), papers)


def measure(work: Path, papers: int) -> dict:
    source = write_tiny(work / "tiny.txt", papers)
    settings = Settings(data_dir=work / "data", seeds_dir=work)
    env = {**os.environ, "CATALOG_DATA_DIR": str(settings.data_dir), "CATALOG_DATABASE_URL": ""}
    seconds, peak, output = timed_command([str(BIN / "catalog"), "ingest", str(source)], env)
    report: dict = {"papers": papers, "ingest_seconds": round(seconds, 1),
                    "ingest_papers_per_s": round(papers / seconds), "ingest_peak_rss_mb": peak,
                    "db_mb": size_mb(settings.database_path),
                    "index_mb": size_mb(settings.index_path.resolve()),
                    "ingest_summary": output.strip().splitlines()[-3:]}
    last_page = -(-papers // VENUE_PAGE_SIZE)
    with TestClient(create_app(settings)) as client:
        started = time.perf_counter()
        listed = client.get(f"/api/venues/{VENUE}/papers", params={"page": last_page}).json()
        report["last_page_ms"] = round(1000 * (time.perf_counter() - started), 1)
        started = time.perf_counter()
        found = client.get("/api/search", params={"q": "tiny", "venue": VENUE}).json()
        report["search_all_ms"] = round(1000 * (time.perf_counter() - started), 1)
    report["last_abstract_listed"] = (listed["papers"][-1]["abstract"]
                                      == f"Tiny abstract number {papers - 1}.")
    report["search_total"] = found["total"]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    report = run(parser.parse_args().papers)
    for name, value in report.items():
        print(f"{name:>22}  {value}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"tiny-{report['papers']}.json").write_text(json.dumps(report, indent=2))
    if not report["last_abstract_listed"] or report["search_total"] != report["papers"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
