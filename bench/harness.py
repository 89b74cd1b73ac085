"""What every benchmark shares: the corpus and its sizes, where results go, timing a child
process, starting a server, and a load of concurrent readers (wrk when installed).
bench/run.py orchestrates; the benchmarks of one feature (browse.py, hostile.py, ...) take
their tools from here."""

from __future__ import annotations

import gzip
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.config import PROJECT_ROOT
from bench.load import run_apart, run_load

CORPUS = (PROJECT_ROOT / ".." / "shared" / "corpus").resolve()
SIZES = {
    "smoke": (["ml-abstracts.jsonl.gz"], 500),
    "S": (["ml-abstracts.jsonl.gz"], 0),
    "L": (["ml-abstracts.jsonl.gz", "more-abstracts.jsonl.gz"], 0),
}
RESULTS = PROJECT_ROOT / "bench" / "results"
BIN = Path(sys.executable).parent


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

    return {"p50": round(at(50), 2), "p95": round(at(95), 2), "p99": round(at(99), 2),
            "max": round(ordered[-1], 2), "n": len(ordered)}


def write_lists(size: str, out: Path) -> int:
    files, limit = SIZES[size]
    total = 0
    for index, name in enumerate(files):
        target = out / f"part{index}"
        command = [sys.executable, str(CORPUS / "make_lists.py"), str(CORPUS / name), str(target)]
        if limit:
            command += ["--limit", str(limit)]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        total += int(output.split()[0])
        for path in target.glob("*.txt"):  # both corpora write e.g. iclr_2019.txt: keep both
            path.rename(out / f"{index}_{path.name}")
    return total


def timed_command(command: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (MB) and output of one child process."""
    with tempfile.TemporaryFile("w+") as output:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read()
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{command} failed:\n{text[-2000:]}")
    return seconds, int(usage.ru_maxrss / 1024), text


def children_cpu_seconds() -> float:
    """The CPU time (user + system) of this process's children that have ended, and of the
    descendants they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def size_mb(path: Path) -> float:
    """A file's size, or everything under a directory, with SQLite's WAL beside its file."""
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [
        p for p in (path, path.with_name(path.name + "-wal")) if p.exists()]
    return round(sum(p.stat().st_size for p in files) / 2**20, 1)


def jsonl_inputs(size: str, out: Path) -> list[Path]:
    """The size's papers as JSON Lines: the corpus files, or their first lines when limited."""
    files, limit = SIZES[size]
    if not limit:
        return [CORPUS / name for name in files]
    out.mkdir(parents=True, exist_ok=True)
    inputs = []
    for name in files:
        with gzip.open(CORPUS / name, "rt", encoding="utf-8") as corpus:
            lines = [line for _, line in zip(range(limit), corpus, strict=False)]
        inputs.append(out / name.removesuffix(".gz"))
        inputs[-1].write_text("".join(lines), encoding="utf-8")
    return inputs


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_process(command: list[str], ready_url: str,
                  env: dict[str, str] | None = None) -> tuple[subprocess.Popen, float]:
    """Start a server; returns it and the seconds until `ready_url` answered 200."""
    started = time.perf_counter()
    server = subprocess.Popen(command, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.perf_counter() - started < 1800 and server.poll() is None:
        try:
            if httpx.get(ready_url, timeout=1).status_code == 200:
                return server, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.05)  # 503 "starting" while the index is built, or not listening yet
    server.kill()
    raise RuntimeError(f"{command[0]} did not answer {ready_url}")


def start_server(env: dict[str, str], port: int, *args: str) -> tuple[subprocess.Popen, float]:
    """Start `catalog serve`; returns it and the seconds until /healthz said it was ready."""
    return start_process([str(BIN / "catalog"), "serve", "--port", str(port), *args],
                         f"http://127.0.0.1:{port}/healthz", env)


def worker_pids(server: subprocess.Popen) -> list[int]:
    """The worker processes of `catalog serve --workers N`: its spawned children (not
    multiprocessing's resource tracker, a child too)."""
    listed = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True)
    return [int(pid) for pid in listed.stdout.split()
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return round(int(re.search(r"VmRSS:\s+(\d+)", status)[1]) / 1024, 1)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def memory_mb(pid: int) -> dict[str, float]:
    """A process's resident memory (MB): in all, private to it (pages no other process
    maps: what a second worker adds), and shared with others (libraries, memory-mapped
    index files)."""
    rollup = dict(re.findall(r"^(\w+):\s+(\d+) kB", Path(f"/proc/{pid}/smaps_rollup")
                             .read_text(), re.MULTILINE))

    def mb(*fields: str) -> float:
        return round(sum(int(rollup[f]) for f in fields) / 1024, 1)

    return {"rss": mb("Rss"), "private": mb("Private_Clean", "Private_Dirty"),
            "shared": mb("Shared_Clean", "Shared_Dirty")}


def load(base: str, paths: list[str], seconds: float, once: bool = False) -> dict:
    """Concurrency 16 against the pages (in turn; `once`: each at most once, as far as the
    time allows): wrk when installed, as it takes no core from the server, else the Python
    generator."""
    wrk = shutil.which("wrk")
    if wrk:
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as listed:
            listed.write("\n".join(paths) + "\n")
            listed.flush()
            output = subprocess.run(
                [wrk, "-t2", "-c16", f"-d{max(1, int(seconds))}s", "--timeout", "30s", "-s",
                 str(PROJECT_ROOT / "bench" / "wrk_report.lua"), base + paths[0],
                 "--", listed.name, "2"],
                capture_output=True, text=True, check=True).stdout
        report = json.loads(output.strip().splitlines()[-1])
        report["rps"] = round(report["requests"] / report["seconds"], 1)
        report["tool"] = "wrk"
        return report
    result = run_apart(run_load(base, paths, 16, seconds, once=once))
    return {**result.summary(), "tool": "python"}
