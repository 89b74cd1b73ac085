"""The database of a test run: SQLite, or with CATALOG_TEST_DATABASE=postgresql a throwaway
PostgreSQL cluster (bench/postgres.py), a new database of its own per catalog.

`make test` runs the suite on SQLite and, at the same time, the tests marked `database` again
on PostgreSQL (docs/testing.md).
"""

from __future__ import annotations

import os

import pytest

from bench.postgres import cluster

BACKEND = os.environ.get("CATALOG_TEST_DATABASE", "sqlite")
# A test marked `database` (tests/conftest.py) runs in both runs of `make test`; these keep one
# to the run of its database: a node beside a shared database, an upgrade of the SQLite
# catalogs of old, or work that is the same on both databases and too slow to do twice.
postgresql_run = pytest.mark.skipif(BACKEND != "postgresql",
                                    reason="runs in the PostgreSQL run of `make test`")
sqlite_run = pytest.mark.skipif(BACKEND != "sqlite", reason="runs in the SQLite run")


def new_database_url(template: str = "") -> str:
    """A new database for one test catalog: PostgreSQL in the PostgreSQL run (a copy of
    `template`'s when given), else "" (the SQLite file in the catalog's data directory)."""
    return cluster().new_database(template) if BACKEND == "postgresql" else ""
