"""`catalog serve` in a subprocess on a free loopback port, for tests that need a real server."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench.harness import free_port

CATALOG = str(Path(sys.executable).with_name("catalog"))


@contextmanager
def running_server(env: dict[str, str], timeout: float = 60, *args: str) -> Iterator[str]:
    """Start the server, wait until /healthz says it is ready, yield its base URL, stop it."""
    port = free_port()
    process = subprocess.Popen([CATALOG, "serve", "--port", str(port), *args], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, timeout)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_until_ready(base: str, timeout: float) -> None:
    deadline = time.time() + timeout
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.time() > deadline:
            raise TimeoutError(f"{base} was not ready within {timeout} s")
        time.sleep(0.1)
