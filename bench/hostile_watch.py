"""What bench/hostile.py measures of a process tree: its memory, its CPU seconds, and
/healthz latency timed from a process of its own."""

from __future__ import annotations

import os
import re
import subprocess
import threading
from pathlib import Path

from bench.harness import BIN

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
