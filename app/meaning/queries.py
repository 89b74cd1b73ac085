"""A query's sentence vector, from one encoder for all of a server's workers.

`catalog serve`'s supervisor (app/serving.py) runs an `EncoderService`: it answers its
workers' texts over a Unix socket, so the model's weights, its tokenizer and what encoding
allocates live in that one process rather than in each worker (at L each worker's RSS counted
the model's 62 MB of mapped weights and the tokenizer's library once it had answered a
description). A worker finds the socket in `SOCKET_ENV`, which the supervisor sets before it
starts them; where there is none (an app made in a test, `python -m` tools) or it cannot be
reached (the service gone), the process loads the encoder itself (`LocalEncoder`), as before.

A request is a text (4-byte big-endian length, then UTF-8); an answer a status byte, then the
vector (`DIMENSIONS` float32) or, where the model is refused or missing, why (UTF-8, 4-byte
length first).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import socketserver
import struct
import tempfile
import threading
from contextlib import suppress
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.meaning.encoder import DIMENSIONS, Encoder
from app.meaning.model_files import ModelCheck, ModelMissing, ModelRefused

SOCKET_ENV = "CATALOG_ENCODER_SOCKET"  # set by the supervisor for its workers, not by hand
QUERY_TOKENS = 128  # as the papers' own (app/meaning/store.py)
log = logging.getLogger("uvicorn.error.meaning")
MAX_TEXT_BYTES = 1 << 20  # a request longer than this is refused (a query is cut far sooner)
TIMEOUT = 30.0  # seconds a worker waits for its vector before it encodes the text itself
_LENGTH = struct.Struct(">I")
_VECTOR, _PROBLEM = b"v", b"p"


class LocalEncoder:
    """The sentence encoder of this process, loaded at its first text (its weights are
    mapped); a model refused (a wrong checksum) or missing gives no vectors, and `problem`
    says why."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._lock = threading.Lock()
        self._encoder: Encoder | None = None
        self.problem: str | None = None
        self._check = ModelCheck(cache)  # after a problem: whether the files were mended

    def vector(self, text: str) -> np.ndarray | None:
        encoder = self._loaded()
        return None if encoder is None else encoder.encode([text], max_tokens=QUERY_TOKENS)[0]

    def _loaded(self) -> Encoder | None:
        with self._lock:
            if self._encoder is None and (self.problem is None or self._check.current() is None):
                try:
                    self._encoder = Encoder.load(self.cache)
                    self.problem = None
                except (ModelRefused, ModelMissing, OSError) as error:
                    if self.problem is None:  # named once, not at every query
                        log.error("search by meaning is off: %s", error)
                    self.problem = str(error)
                    self._check.refused(self.problem)  # not loaded again until mended
            return self._encoder


def _read(connection: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        part = connection.recv(size - len(data))
        if not part:
            raise ConnectionError("the encoder's connection closed")
        data += part
    return bytes(data)


def _framed(data: bytes) -> bytes:
    return _LENGTH.pack(len(data)) + data


class _Answer(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        connection = self.request
        self.server.connections.add(connection)
        try:
            self._answer(connection)
        finally:
            self.server.connections.discard(connection)

    def _answer(self, connection: socket.socket) -> None:
        while True:  # one connection per worker thread, for as long as it lives
            try:
                (size,) = _LENGTH.unpack(_read(connection, _LENGTH.size))
                if size > MAX_TEXT_BYTES:
                    return
                text = _read(connection, size).decode("utf-8", errors="replace")
            except OSError:  # a ConnectionError too: the worker went
                return
            local = self.server.local
            vector = local.vector(text)
            answer = (_VECTOR + vector.astype("<f4").tobytes() if vector is not None
                      else _PROBLEM + _framed((local.problem or "no model").encode()))
            try:
                connection.sendall(answer)
            except OSError:
                return


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, local: LocalEncoder) -> None:
        self.local = local
        self.connections: set[socket.socket] = set()  # open, ended by `EncoderService.stop`
        super().__init__(str(path), _Answer)


_PREFIX = "catalog-encoder-"  # then the supervisor's process ID


def _sweep_orphans() -> None:
    """Remove the socket directories of supervisors that died without stopping (kill -9)."""
    for directory in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*"):
        pid = directory.name.removeprefix(_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(directory, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


class EncoderService:
    """Answers the workers' texts with their vectors, in threads of the supervisor, on a
    socket in a private temporary directory (mode 0700) that `stop` removes."""

    def __init__(self, cache: Path) -> None:
        _sweep_orphans()
        self.directory = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))
        self.path = self.directory / "socket"
        self._server = _Server(self.path, LocalEncoder(cache))
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="query-encoder", daemon=True)
        self._stopped = False

    def start(self) -> None:
        self._thread.start()
        os.environ[SOCKET_ENV] = str(self.path)  # inherited by the workers started after

    def stop(self) -> None:
        """Stop answering, end the open connections (their processes encode for themselves
        from then on) and remove the socket; once."""
        if self._stopped:
            return
        self._stopped = True
        os.environ.pop(SOCKET_ENV, None)
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()
        for connection in list(self._server.connections):
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        shutil.rmtree(self.directory, ignore_errors=True)


class RemoteEncoder:
    """The service's vectors, one connection per thread of this worker. `vector` raises
    OSError where the service cannot be reached; None where it has no model (`problem`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connections = threading.local()
        self.problem: str | None = None

    def vector(self, text: str) -> np.ndarray | None:
        connection = getattr(self._connections, "socket", None)
        if connection is None:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.settimeout(TIMEOUT)
            connection.connect(str(self.path))
            self._connections.socket = connection
        try:
            connection.sendall(_framed(text.encode("utf-8", errors="replace")[:MAX_TEXT_BYTES]))
            if _read(connection, 1) == _VECTOR:
                self.problem = None  # the service's model was mended
                return np.frombuffer(_read(connection, DIMENSIONS * 4), dtype="<f4").copy()
            (size,) = _LENGTH.unpack(_read(connection, _LENGTH.size))
            self.problem = _read(connection, size).decode("utf-8", errors="replace")
            return None
        except OSError:
            connection.close()
            self._connections.socket = None
            raise


class QueryEncoder:
    """A query's vector: from the supervisor's service where the process has one, else from
    an encoder of its own (which it then keeps using)."""

    def __init__(self, cache: Path) -> None:
        self.local = LocalEncoder(cache)
        path = os.environ.get(SOCKET_ENV)
        self.remote = RemoteEncoder(Path(path)) if path else None

    @property
    def problem(self) -> str | None:
        return self.remote.problem if self.remote is not None else self.local.problem

    def vector(self, text: str) -> np.ndarray | None:
        """The text's vector (a page's count, its hits and its download encode it once); none
        where the model is refused, asked again next time (it may have been mended)."""
        try:
            return self._vector(text)
        except _NoModel:
            return None

    @lru_cache(maxsize=256)  # noqa: B019 - one per process, for its life
    def _vector(self, text: str) -> np.ndarray:
        remote = self.remote
        if remote is not None:
            try:
                vector = remote.vector(text)
            except OSError:
                self.remote = None  # the service is gone: this process encodes from now on
                vector = self.local.vector(text)
        else:
            vector = self.local.vector(text)
        if vector is None:
            raise _NoModel  # not kept: lru_cache keeps no exception
        return vector


class _NoModel(Exception):
    """No vector: the model is refused or missing (`QueryEncoder.problem`)."""
