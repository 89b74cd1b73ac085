"""The database schema, kept by Alembic migrations (app/migrations) on SQLite and PostgreSQL.

A fresh database is migrated to the newest revision when first opened. An existing one is
upgraded only by `catalog migrate`: a server never changes the schema under other servers
that still run the previous release.

Alembic is imported only to migrate or to explain a mismatch: a server worker checks the
stamped revision against `HEAD_REVISION` with one query (Alembic, with the Mako and Pygments
it loads, was 11 MB of each worker's private memory).
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.engine import Engine

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Catalogs created before migrations existed have exactly the first revision's tables.
FIRST_REVISION = "0001"
# The newest migration's revision (tests/scaling/test_migrations.py checks it is Alembic's head).
HEAD_REVISION = "0010"
# Any fixed numbers: the PostgreSQL advisory locks that serialize migrations, and ingests,
# across nodes.
MIGRATION_LOCK = 7_411_966
INGEST_LOCK = 7_411_967


class CatalogSchemaError(RuntimeError):
    """The database's schema is not the one this program works with."""


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def current_revision(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


@contextmanager
def catalog_lock(engine: Engine, name: str, key: int,
                 waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
    """One holder of the catalog's lock `name` at a time, across processes and, on PostgreSQL
    (an advisory lock `key`), across nodes; `waiting` is called first if another holds it."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            if not connection.execute(text("SELECT pg_try_advisory_lock(:key)"),
                                      {"key": key}).scalar():
                waiting()
                connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                connection.commit()
    elif engine.url.database and engine.url.database != ":memory:":
        with open(f"{engine.url.database}.{name}-lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waiting()
                fcntl.flock(lock, fcntl.LOCK_EX)
            yield
    else:
        yield


def _columns(connection: Connection) -> dict[str, set[str]]:
    inspector = inspect(connection)
    return {table: {column["name"] for column in inspector.get_columns(table)}
            for table in inspector.get_table_names() if table != "alembic_version"}


def _first_revision_columns() -> dict[str, set[str]]:
    from alembic import command

    with create_engine("sqlite://").begin() as connection:
        command.upgrade(_config(connection), FIRST_REVISION)
        return _columns(connection)


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Migrate to `revision`; returns the revisions before and after."""
    from alembic import command

    # One migration at a time, even when several servers start on one new database.
    with catalog_lock(engine, "migrate", MIGRATION_LOCK), engine.begin() as connection:
        before = current_revision(connection)
        tables = _columns(connection)
        if before is None and tables:
            # A catalog from before migrations: adopt it if it is the first revision's schema.
            if tables != _first_revision_columns():
                raise CatalogSchemaError(
                    f"{_where(engine)} holds tables that are not a catalog this program can "
                    "upgrade. Use another database, or move this one aside.")
            before = FIRST_REVISION
            command.stamp(_config(connection), FIRST_REVISION)
        command.upgrade(_config(connection), revision)
        return before, current_revision(connection)


def _where(engine: Engine) -> str:
    return f"the catalog database {engine.url.render_as_string(hide_password=True)}"


def ensure_schema(engine: Engine) -> None:
    """Create a fresh database; refuse one whose schema is older or newer than this program's."""
    with engine.connect() as connection:
        if _stamped(connection) == HEAD_REVISION:
            return
    head = head_revision()
    with engine.connect() as connection:
        revision = current_revision(connection)
        empty = not inspect(connection).get_table_names()
    if revision == head:
        return
    if empty:
        upgrade(engine)
        return
    from alembic.script import ScriptDirectory

    known = {script.revision for script in ScriptDirectory.from_config(_config()).walk_revisions()}
    if revision is not None and revision not in known:
        raise CatalogSchemaError(
            f"{_where(engine)} has schema revision {revision}, made by a newer "
            f"version of this program (this one knows up to {head}). Upgrade the program.")
    raise CatalogSchemaError(
        f"{_where(engine)} has schema revision {revision or 'from before migrations'}; this "
        f"program needs {head}. Run `catalog migrate` to upgrade it in place.")


def _stamped(connection: Connection) -> str | None:
    """The revision the database is stamped with, read from Alembic's table without Alembic
    (None without the table, or with other than one row)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    stamped = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return stamped[0] if len(stamped) == 1 else None
