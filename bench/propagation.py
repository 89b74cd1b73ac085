"""How long until an ingested paper is searchable on every node (docs/scaling.md).

    .venv/bin/python -m bench.propagation            # S (13,408 abstracts) in PostgreSQL
    .venv/bin/python -m bench.propagation --size smoke

Starts a throwaway PostgreSQL cluster (as the tests do), ingests the corpus from an "ingest
machine" directory, starts two nodes (A with one worker, B with two sharing an index), then
ingests batches of new papers and times, for each, the ingest command and the delay from its
end until every node returns the whole batch for the batch's marker word. Prints a table and
writes bench/results/propagation-<size>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import httpx

from bench.harness import BIN, RESULTS, free_port, start_server, timed_command, write_lists
from bench.postgres import cluster

BATCHES = (1, 100, 1000, 5000)  # above 2,000 the update runs in a child process
POLL_SECONDS = "2"  # the default


def _env(url: str, data: Path) -> dict[str, str]:
    return {**os.environ, "CATALOG_DATABASE_URL": url, "CATALOG_DATA_DIR": str(data),
            "CATALOG_POLL_SECONDS": POLL_SECONDS}


def _batch_file(path: Path, marker: str, size: int) -> Path:
    abstracts = [f"We study the {marker} estimator, variant {i}, for sparse regression with "
                 f"$\\mathcal{{O}}(n \\log n)$ updates and report results on {i % 7} benchmarks."
                 for i in range(size)]
    path.write_text("PROPAGATION 2027 Papers\n\n" + "\n\n".join(abstracts) + "\n")
    return path


def _searchable_everywhere(nodes: list[str], marker: str, size: int) -> bool:
    # Several requests per node: each of node B's workers answers some of them.
    return all(httpx.get(f"{base}/api/search", params={"q": marker}, timeout=30).json()["total"]
               == size for base in nodes for _ in range(4))


def run(size: str) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-propagation-"))
    url = cluster().new_database()
    papers = write_lists(size, work / "lists")
    ingester = _env(url, work / "ingest-machine")
    seconds, peak, _ = timed_command([str(BIN / "catalog"), "ingest", str(work / "lists")],
                                     ingester)
    report: dict = {"size": size, "papers": papers, "poll_seconds": float(POLL_SECONDS),
                    "ingest_seconds": round(seconds, 1),
                    "ingest_papers_per_s": round(papers / seconds, 1), "ingest_peak_rss_mb": peak}
    servers = []
    ready = {}
    for name, args in (("A", ()), ("B", ("--workers", "2"))):
        port = free_port()
        server, ready_after = start_server(_env(url, work / f"node-{name}"), port, *args)
        servers.append((f"http://127.0.0.1:{port}", server))
        ready[name] = round(ready_after, 1)
    report["node_ready_seconds"] = ready  # a fresh node builds its index from the database
    nodes = [base for base, _ in servers]
    report["batches"] = []
    try:
        for batch in BATCHES:
            marker = f"zqx{batch}marker"
            path = _batch_file(work / f"batch{batch}.txt", marker, batch)
            ingest_seconds, _, _ = timed_command([str(BIN / "catalog"), "ingest", str(path)],
                                                 ingester)
            done = time.perf_counter()
            while not _searchable_everywhere(nodes, marker, batch):
                time.sleep(0.05)
            report["batches"].append({"papers": batch, "ingest_seconds": round(ingest_seconds, 2),
                                      "searchable_after_seconds":
                                          round(time.perf_counter() - done, 2)})
    finally:
        for _, server in servers:
            server.terminate()
            server.wait(timeout=30)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="S", choices=["smoke", "S", "L"])
    report = run(parser.parse_args().size)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"propagation-{report['size']}.json").write_text(json.dumps(report, indent=2))
    print(f"{report['papers']} papers ingested into PostgreSQL in {report['ingest_seconds']} s "
          f"({report['ingest_papers_per_s']} papers/s); fresh nodes ready after "
          f"{report['node_ready_seconds']} s")
    print(f"{'new papers':>10}  {'ingest':>8}  {'searchable on every node after':>30}")
    for row in report["batches"]:
        print(f"{row['papers']:>10}  {row['ingest_seconds']:>7}s  "
              f"{row['searchable_after_seconds']:>29}s")


if __name__ == "__main__":
    main()
