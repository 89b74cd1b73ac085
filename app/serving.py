"""Several worker processes, each listening on a socket of its own.

Uvicorn's workers share one listening socket, and a worker's event loop accepts every
connection waiting when it wakes: sixteen keep-alive clients connecting at once could all
land on one worker while the other idled (2 bench runs in 3: 43 req/s instead of 110). Here
each worker has its own socket on the same port (SO_REUSEPORT) and the kernel spreads new
connections over the sockets by a hash of their addresses.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import threading
from multiprocessing.context import SpawnProcess

import uvicorn
from uvicorn.config import STARTUP_FAILURE

logger = logging.getLogger("uvicorn.error")


def serve_workers(config: uvicorn.Config, workers: int) -> None:
    """Run `workers` worker processes until SIGINT or SIGTERM, replacing any that dies."""
    sockets = _listening_sockets(config.host, config.port, workers)
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    processes = [_start(context, config, sock) for sock in sockets]
    try:
        while not stop.wait(0.5):
            for i, process in enumerate(processes):
                if process.is_alive():
                    continue
                if process.exitcode == STARTUP_FAILURE:  # the app cannot start: nor would a new one
                    logger.error("Worker [%s] failed to start; stopping.", process.pid)
                    stop.set()
                    break
                logger.warning("Worker [%s] died (exit code %s); starting another.",
                               process.pid, process.exitcode)
                processes[i] = _start(context, config, sockets[i])
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()  # uvicorn's graceful shutdown
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
                process.join()


def _listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # Bound without SO_REUSEPORT first: a port another server holds is an error, rather than
    # joining its group of sockets and taking a share of its connections.
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
        port = probe.getsockname()[1]  # port 0: the one the system chose
    sockets = []
    for _ in range(count):
        # IPPROTO_TCP named, not left 0: asyncio turns Nagle's algorithm off only on connections
        # whose socket says TCP, and with it on, every request after a connection's first
        # waited ~40 ms for the client's delayed ACK (a response is written in two parts).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sockets.append(sock)
    return sockets


def _start(context: multiprocessing.context.SpawnContext, config: uvicorn.Config,
           sock: socket.socket) -> SpawnProcess:
    process = context.Process(target=_run_worker, args=(config, sock), name="catalog-worker")
    process.start()
    return process


def _run_worker(config: uvicorn.Config, sock: socket.socket) -> None:
    config.configure_logging()  # a spawned process starts without uvicorn's logging
    uvicorn.Server(config).run(sockets=[sock])
