"""`catalog serve --workers N`: each worker listens on a socket of its own, so connections that
arrive at once are spread over the workers; a worker that dies is replaced."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from app.search.rank.filters import COLUMNS_DIR
from app.search.words.completions import COMPLETION_TABLES_DIR
from app.search.words.lemma_table import LEMMAS_FILE
from app.search.words.vocabulary import WORD_TABLES_DIR
from app.serving import _listening_sockets
from bench.harness import free_port
from tests.conftest import Catalog
from tests.postgres import postgresql_run
from tests.servers import CATALOG, running_server, wait_until_ready

# Workers, sockets and mapped files: what the database is changes none of it, so these run
# once, in the PostgreSQL run of `make test`, the shorter of the two database runs.
pytestmark = postgresql_run


def _worker_answering(base: str) -> int | None:
    """The worker that answers on a new connection: None while it is starting, or when the
    connection landed on the socket of a worker that is gone and nobody answers it."""
    try:
        with httpx.Client(base_url=base, timeout=3) as client:
            response = client.get("/healthz")
    except httpx.TimeoutException:
        return None
    return response.json()["worker"] if response.status_code == 200 else None


def _all_workers(base: str, count: int, timeout: float = 60) -> set[int]:
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < count and time.monotonic() < deadline:
        worker = _worker_answering(base)
        if worker is not None:
            seen.add(worker)
    assert len(seen) == count, (f"only workers {sorted(seen)} answered within {timeout:.0f} s; "
                                f"{count} were expected")
    return seen


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _ask_healthz(connection: socket.socket, host: str) -> int:
    """The worker that answers /healthz on an open connection (kept alive)."""
    connection.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    response = b""
    while b"\r\n\r\n" not in response or not response.rstrip().endswith(b"}"):
        response += connection.recv(65536)
    return json.loads(response.split(b"\r\n\r\n", 1)[1])["worker"]


def test_connections_arriving_at_once_are_spread_over_the_workers(fresh: Catalog):
    with running_server(fresh.env(), 60, "--workers", "2") as base:
        workers = _all_workers(base, 2)
        host = base.removeprefix("http://")
        address = host.split(":")[0], int(host.split(":")[1])
        # Sixteen keep-alive clients connect in a burst, as a load generator does: with one
        # shared socket, the first worker to wake took all sixteen in most runs.
        connections = [socket.create_connection(address) for _ in range(16)]
        try:
            answered = [_ask_healthz(connection, host) for connection in connections]
            # A connection stays with its worker.
            assert [_ask_healthz(connection, host) for connection in connections] == answered
        finally:
            for connection in connections:
                connection.close()
        served = Counter(answered)
        assert set(served) == workers and min(served.values()) >= 2, served
    assert all(_gone(pid) for pid in workers)  # stopping the server stopped its workers


def _mapped_files(pid: int) -> dict[str, int]:
    """The files a process maps, each with the kB of its pages that the process copied and so
    holds alone (smaps' Anonymous). Private_Dirty would not tell: a file's page written a
    moment ago and read by one process only counts there until the kernel writes it back."""
    private: dict[str, int] = {}
    path = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 6 and fields[5].startswith("/"):
            path = fields[5]
            private.setdefault(path, 0)
        elif "-" in fields[0]:
            path = ""
        elif path and fields[0] == "Anonymous:":
            private[path] += int(fields[1])
    return private


def _connection_to_each_worker(base: str, count: int = 2
                               ) -> dict[int, http.client.HTTPConnection]:
    """A kept-alive connection to each worker, by its process ID. The server is ready once one
    worker answers; until the others listen, every connection lands on that one."""
    host, port = base.removeprefix("http://").split(":")
    by_worker: dict[int, http.client.HTTPConnection] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # connections are spread by a hash over the listeners
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/healthz")
        worker = json.loads(connection.getresponse().read())["worker"]
        if worker in by_worker:
            connection.close()
        else:
            by_worker[worker] = connection
        if len(by_worker) == count:
            return by_worker
    raise AssertionError(f"only workers {sorted(by_worker)} answered within 60 s")


def _private_mb(pid: int) -> float:
    """The process's pages no other process maps: what one more worker costs."""
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    return sum(int(line.split()[1]) for line in rollup
               if line.startswith(("Private_Clean:", "Private_Dirty:"))) / 1024


# A worker's private memory after searches of the seed catalog: 85 MB measured, most of it the
# modules it imports (docs/performance.md). Each worker reading the generation's files into
# memory of its own, or importing what only an ingest or a migration needs (scipy 24 MB,
# Alembic 11 MB), would go past it.
WORKER_PRIVATE_MB = 100


def test_workers_map_what_the_index_generation_derived_and_hold_little_of_their_own(
        fresh: Catalog):
    """Facet columns, what's new's counts, the vocabulary, the completions and the lemma table
    are files each worker maps: a page of them is read once per machine, not copied into every
    worker's own memory. So the second worker's private memory after a search is bounded."""
    index = fresh.settings.index_path.resolve()
    with running_server(fresh.env(), 60, "--workers", "2") as base:
        workers = _connection_to_each_worker(base)
        for worker, connection in workers.items():
            for page in ("/search?q=learning+models&country=china", "/",
                         "/api/suggest?q=author%3Ale", "/search?q=optim*"):
                connection.request("GET", page)
                assert connection.getresponse().read()
            mapped = _mapped_files(worker)
            for derived in (COLUMNS_DIR, "edition_terms", WORD_TABLES_DIR,
                            COMPLETION_TABLES_DIR):
                files = {path for path in mapped if Path(path).parent == index / derived}
                assert files, f"worker {worker} maps nothing of {index / derived}"
                assert all(mapped[path] == 0 for path in files), mapped
            assert mapped[str(LEMMAS_FILE)] == 0
            assert not any("/scipy" in path for path in mapped)  # imported by fits only
        second = sorted(workers)[1]
        private = _private_mb(second)
        assert private <= WORKER_PRIVATE_MB, f"worker {second}: {private:.0f} MB of its own"
        for connection in workers.values():
            connection.close()


def test_a_worker_that_dies_is_replaced(fresh: Catalog):
    with running_server(fresh.env(), 60, "--workers", "2") as base:
        first, second = sorted(_all_workers(base, 2))
        os.kill(first, signal.SIGKILL)
        # Without a replacement, connections hashed to the killed worker's socket wait for
        # ever: each try gives up after 3 s, and the assertion names who answered.
        now = _all_workers(base, 2, timeout=45)
        assert second in now and first not in now, (first, second, now)
        assert httpx.get(f"{base}/api/search", params={"q": "diffusion"}).json()["total"] > 0


def test_a_port_in_use_is_an_error_not_a_shared_port(fresh: Catalog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([CATALOG, "serve", "--port", str(port), "--workers", "2"],
                                env=fresh.env(), capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "Address already in use" in result.stdout + result.stderr


def test_the_workers_connections_send_without_waiting_for_acks():
    """Connections accepted on the workers' sockets have Nagle's algorithm off, as asyncio
    sets it for a TCP socket: with it on, each request after a connection's first waited for
    the client's delayed ACK."""
    sock = _listening_sockets("127.0.0.1", 0, 1)[0]
    accepted: list[int] = []

    class Answer(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            server_side = transport.get_extra_info("socket")
            accepted.append(server_side.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def accept_one() -> None:
        server = await asyncio.get_running_loop().create_server(Answer, sock=sock)
        async with server:
            port = sock.getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(100):
                if accepted:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    # In a thread of its own: a test before may have left this thread's event loop running.
    thread = threading.Thread(target=asyncio.run, args=(accept_one(),))
    thread.start()
    thread.join(timeout=30)
    assert accepted and accepted[0] != 0


def test_workers_end_with_their_supervisor_even_when_it_is_killed(fresh: Catalog):
    """Orphaned workers went on answering on the port (and their keepers rebuilding) after
    their supervisor was killed: each now gets a SIGTERM when it dies."""
    port = free_port()
    supervisor = subprocess.Popen([CATALOG, "serve", "--port", str(port), "--workers", "2"],
                                  env=fresh.env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_ready(base, 60)
        workers = _all_workers(base, 2)
    finally:
        supervisor.send_signal(signal.SIGKILL)
        supervisor.wait()
    deadline = time.monotonic() + 30
    while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(_gone(pid) for pid in workers)
