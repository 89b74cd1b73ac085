"""A throwaway PostgreSQL cluster: initdb under a temporary directory, a free loopback port,
stopped and deleted when the process ends. The tests' PostgreSQL run (tests/postgres.py) and
bench/propagation.py start one; no mocks of the database.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg

from bench.harness import free_port


def server_binaries() -> Path | None:
    """Debian's PostgreSQL server programs (package postgresql), newest version first."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda path: int(path.parts[-3]), reverse=True)
    return found[0].parent if found else None


class Cluster:
    def __init__(self) -> None:
        binaries = server_binaries()
        if binaries is None:
            raise RuntimeError("PostgreSQL is not installed: `make test` installs Debian's "
                               "postgresql package; or run `apt-get install postgresql`")
        self.root = Path(tempfile.mkdtemp(prefix="catalog-pg-"))
        self.port = free_port()
        # initdb refuses to run as root: as root, the cluster belongs to the postgres user.
        self._as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as_owner:
            shutil.chown(self.root, "postgres")
        self._pg_ctl = str(binaries / "pg_ctl")
        data = str(self.root / "data")
        self._run(str(binaries / "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
                  "--encoding=UTF8", "--locale=C.UTF-8")
        # Durability off: the cluster is thrown away, and fsync would dominate test time.
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=400")
        self._run(self._pg_ctl, "-D", data, "-l", str(self.root / "log"), "-w", "-o", options,
                  "start")
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}"

    def _run(self, *command: str) -> None:
        subprocess.run([*self._as_owner, *command], check=True, capture_output=True)

    def new_database(self, template: str = "") -> str:
        """The URL of a new database of its own: empty, or a copy of the database at the URL
        `template` (which nothing may be connected to)."""
        name = f"catalog_{uuid.uuid4().hex[:12]}"
        copied = f' TEMPLATE "{template.rsplit("/", 1)[1]}"' if template else ""
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"{copied}')
        return f"{self.url}/{name}"

    def stop(self) -> None:
        subprocess.run([*self._as_owner, self._pg_ctl, "-D", str(self.root / "data"), "-m",
                        "immediate", "stop"], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


_cluster: Cluster | None = None


def cluster() -> Cluster:
    """This process's cluster, started on first use and stopped when the process ends."""
    global _cluster
    if _cluster is None:
        _cluster = Cluster()
        atexit.register(_cluster.stop)
    return _cluster
