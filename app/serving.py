"""Several worker processes, each listening on a socket of its own.

Uvicorn's workers share one listening socket, and a worker's event loop accepts every
connection waiting when it wakes: sixteen keep-alive clients connecting at once could all
land on one worker while the other idled (2 bench runs in 3: 43 req/s instead of 110). Here
each worker has its own socket on the same port (SO_REUSEPORT) and the kernel spreads new
connections over the sockets by a hash of their addresses.

Each worker reads requests with BoundedHeads, which refuses a head of too many header lines
before the HTTP parser reads any of it.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import re
import signal
import socket
import threading
from contextlib import suppress
from http import HTTPStatus
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any

import h11
import uvicorn
from threadpoolctl import threadpool_limits
from uvicorn.config import STARTUP_FAILURE
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.meaning.queries import EncoderService
from app.web.middleware import MAX_REQUEST_HEAD_BYTES

logger = logging.getLogger("uvicorn.error")
# A request's header fields, apart from its request line (whose address may be long:
# middleware.LongAddresses answers 414 past 32,768 characters). Browsers send about 20 lines
# and a few KB; h11 took 0.5 s of a worker to parse 150,000 lines, and four clients sending
# them made a search beside them wait 3.5 s at the median.
MAX_HEADER_LINES = 100
MAX_HEADER_BYTES = 64 * 1024
# After refusing a head, what the client still sends is read and dropped this long before the
# connection closes: closed with bytes unread, it is reset, and the client may lose the answer.
LINGER = 1.0  # seconds
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
_HEAD_END = re.compile(rb"\n\r?\n")
_BODY_HEADERS = re.compile(rb"(?:^|\n)(?:content-length|transfer-encoding)[ \t]*:", re.IGNORECASE)
_REFUSALS = {
    431: f"The request's header fields are too large: at most {MAX_HEADER_LINES} lines and "
         f"{MAX_HEADER_BYTES // 1024} KB.",
    414: f"The request line is longer than {MAX_REQUEST_HEAD_BYTES // 1024} KB.",
}


def serve_workers(config: uvicorn.Config, workers: int, model_dir: Path) -> None:
    """Run `workers` worker processes until SIGINT or SIGTERM, replacing any that dies; this
    process encodes their queries' sentence vectors (its `EncoderService`, the model in
    `model_dir`), so that they do not each load the model."""
    sockets = _listening_sockets(config.host, config.port, workers)
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    encoder = EncoderService(model_dir)
    encoder.start()
    processes: list[SpawnProcess] = []
    try:
        processes.extend(_start(context, config, sock) for sock in sockets)
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
        encoder.stop()


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
    _end_with_parent()
    # One BLAS thread: a worker's products are small (a query against the sentence vectors,
    # a paper's against the others'), and OpenBLAS's idle threads spin between calls. At L,
    # 300 title phrases and 60 TL;DRs over 16 connections took the workers 19.0 s of CPU
    # with its default two threads, 12.5-12.8 s with one (the encoder had set one as it ran).
    threadpool_limits(limits=1, user_api="blas")
    config.configure_logging()  # a spawned process starts without uvicorn's logging
    uvicorn.Server(config).run(sockets=[sock])


def _end_with_parent() -> None:
    """Ask Linux for a SIGTERM (a graceful stop) when the supervisor dies, even by kill -9:
    orphaned workers went on answering on the port, and their keepers rebuilding, for an
    hour after the supervisors of killed test runs were gone."""
    with suppress(OSError, AttributeError):  # not Linux: a supervisor stops its workers
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # the supervisor died before the request above
        os.kill(os.getpid(), signal.SIGTERM)


class _HeadSize:
    """How much of a request's head has arrived: its request line's bytes, then its header
    lines and their bytes, counted as bytes come (without parsing them) until the blank line
    that ends the head."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.request_line = 0  # bytes
        self.fields: bytearray | None = None  # once the request line has ended
        self.tail = b""  # the last bytes taken: the head's end may straddle two reads

    def take(self, data: bytes) -> int | None:
        """The status to refuse the request with (431, 414) once its head is too large,
        else None. Bytes past the head's end are counted as the next request's head, unless
        this one has a body."""
        view = self.tail + data
        end = _HEAD_END.search(view, max(0, len(self.tail) - 2))
        fresh = view[len(self.tail):end.end() if end else None]
        if self.fields is None:
            line_end = fresh.find(b"\n")
            self.request_line += len(fresh) if line_end < 0 else line_end
            if self.request_line > MAX_REQUEST_HEAD_BYTES:
                return 414
            if line_end < 0:
                self.tail = view[-3:]
                return None
            self.fields, fresh = bytearray(), fresh[line_end + 1:]
        self.fields += fresh
        # Each line ends in a newline; the blank line that ends the head is no header line.
        lines = self.fields.count(b"\n") - (1 if end else 0)
        if lines > MAX_HEADER_LINES or len(self.fields) > MAX_HEADER_BYTES:
            return 431
        if end is None:
            self.tail = view[-3:]
            return None
        body = _BODY_HEADERS.search(self.fields) is not None
        self.reset()
        rest = view[end.end():]
        return None if body or not rest else self.take(rest)


class BoundedHeads(H11Protocol):
    """Uvicorn's HTTP/1.1 protocol, with a request head of more than MAX_HEADER_LINES header
    lines or MAX_HEADER_BYTES refused with a 431 as soon as that much has arrived, before h11
    parses any of it (and a request line too long for any address with a 414, where h11
    answered a head past its limit with a 400 and a reset)."""

    def __init__(self, config: uvicorn.Config, server_state: ServerState,
                 app_state: dict[str, Any], _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.head = _HeadSize()
        self.refused = False

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # lingering: read and dropped
        if self.conn.their_state is not h11.SEND_BODY:
            status = self.head.take(data)
            if status is not None:
                self.refuse(status)
                return
        super().data_received(data)

    def refuse(self, status: int) -> None:
        self.refused = True
        body = f"{_REFUSALS[status]}\n".encode()
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: %d\r\nconnection: close\r\n\r\n%s"
            % (status, HTTPStatus(status).phrase.encode(), len(body), body))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER, self.transport.close)
