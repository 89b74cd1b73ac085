"""The database schema, kept by Alembic migrations (app/migrations) on SQLite and PostgreSQL.

A fresh database is migrated to the newest revision when first opened. An existing one is
upgraded only by `catalog migrate`: a server never changes the schema under other servers
that still run the previous release.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.engine import Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Catalogs created before migrations existed have exactly the first revision's tables.
FIRST_REVISION = "0001"
# Any fixed number: the PostgreSQL advisory lock that serializes migrations across nodes.
MIGRATION_LOCK = 7_411_966


class CatalogSchemaError(RuntimeError):
    """The database's schema is not the one this program works with."""


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """One migration at a time, even when several servers start on one new database."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"),
                                   {"key": MIGRATION_LOCK})
    elif engine.url.database and engine.url.database != ":memory:":
        with open(f"{engine.url.database}.migrate-lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
    else:
        yield


def _columns(connection: Connection) -> dict[str, set[str]]:
    inspector = inspect(connection)
    return {table: {column["name"] for column in inspector.get_columns(table)}
            for table in inspector.get_table_names() if table != "alembic_version"}


def _first_revision_columns() -> dict[str, set[str]]:
    with create_engine("sqlite://").begin() as connection:
        command.upgrade(_config(connection), FIRST_REVISION)
        return _columns(connection)


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Migrate to `revision`; returns the revisions before and after."""
    with _migration_lock(engine), engine.begin() as connection:
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
    head = head_revision()
    with engine.connect() as connection:
        revision = current_revision(connection)
        empty = not inspect(connection).get_table_names()
    if revision == head:
        return
    if empty:
        upgrade(engine)
        return
    known = {script.revision for script in ScriptDirectory.from_config(_config()).walk_revisions()}
    if revision is not None and revision not in known:
        raise CatalogSchemaError(
            f"{_where(engine)} has schema revision {revision}, made by a newer "
            f"version of this program (this one knows up to {head}). Upgrade the program.")
    raise CatalogSchemaError(
        f"{_where(engine)} has schema revision {revision or 'from before migrations'}; this "
        f"program needs {head}. Run `catalog migrate` to upgrade it in place.")
