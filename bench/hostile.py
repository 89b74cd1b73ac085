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
import os
from pathlib import Path

from bench.harness import free_port, start_server
from bench.hostile_files import file_probes, scratch_catalog
from bench.hostile_requests import request_probes, run_probe, under_fire

LIMIT_MB = 1536
CPU_LIMIT_S = 1.0
HEALTHZ_P95_MS = 50


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
