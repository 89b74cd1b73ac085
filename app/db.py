"""Engine and sessions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from sqlalchemy import event, func, inspect
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine, select

from app.models import CatalogState, Paper

VERSION_KEY = "catalog_version"


@lru_cache(maxsize=8)
def get_engine(url: str) -> Engine:
    # Every request thread may hold a connection (the server runs up to 40 at once): a pool
    # smaller than that made requests queue for a connection behind slow searches.
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                           pool_size=16, max_overflow=48)

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # WAL lets the server keep reading while an ingest writes its one big transaction.
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    SQLModel.metadata.create_all(engine)
    _check_columns(engine)
    return engine


class CatalogSchemaError(RuntimeError):
    """The database was created by another version of the catalog."""


def _check_columns(engine: Engine) -> None:
    inspector = inspect(engine)
    for table in SQLModel.metadata.sorted_tables:
        have = {column["name"] for column in inspector.get_columns(table.name)}
        want = {column.name for column in table.columns}
        if have != want:
            raise CatalogSchemaError(
                f"the catalog database {engine.url.database} was made by another version of "
                f"this program (table {table.name}: missing {sorted(want - have)}, unknown "
                f"{sorted(have - want)}). Move it aside and ingest the list files again.")


@contextmanager
def session_scope(url: str) -> Iterator[Session]:
    with Session(get_engine(url)) as session:
        yield session


def catalog_version(session: Session) -> int:
    state = session.get(CatalogState, VERSION_KEY)
    return int(state.value) if state else 0


def bump_catalog_version(session: Session) -> int:
    version = catalog_version(session) + 1
    session.merge(CatalogState(key=VERSION_KEY, value=str(version)))
    return version


def paper_total(session: Session) -> int:
    return session.exec(select(func.count()).select_from(Paper)).one()
