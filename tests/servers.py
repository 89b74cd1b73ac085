"""`catalog serve` in a subprocess on a free loopback port, for tests that need a real server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

CATALOG = str(Path(sys.executable).with_name("catalog"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(env: dict[str, str], timeout: float = 60) -> Iterator[str]:
    """Start the server, wait until /healthz answers, yield its base URL, stop it."""
    port = free_port()
    process = subprocess.Popen([CATALOG, "serve", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
