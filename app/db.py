"""Engine and sessions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from itertools import islice
from typing import TypeVar

from sqlalchemy import bindparam, event, func, insert, inspect, text
from sqlalchemy.engine import Engine, ExceptionContext, make_url
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session, SQLModel, create_engine, select

from app.models import CatalogChange, CatalogState, Paper
from app.schema import ensure_schema

VERSION_KEY = "catalog_version"
CATALOG_ID_KEY = "catalog_id"
# Indexes older than this version must be rebuilt: the change log does not cover it.
FULL_REBUILD_KEY = "full_rebuild_version"
# Set while the keyphrases of a first ingest's papers are still to be extracted (after it
# returned): the number of papers their IDF counts, as the ingest would have used it.
KEYPHRASES_PENDING_KEY = "keyphrases_pending"
T = TypeVar("T")
# The page cache of an ingest's connection (KiB). Its one transaction inserts every paper
# with its authors and origins and updates their tables' indexes: in SQLite's default 2 MB,
# index pages were written out and read back again and again (docs/performance.md).
INGEST_CACHE_KIB = 131_072
# What SQLite says of a file that is damaged, not merely busy or missing a table.
DAMAGE_MESSAGES = ("malformed", "not a database", "disk image", "btreeinitpage")
# Database URL → what was found wrong with it (a check's, or a query's that met damage).
_damage: dict[str, str] = {}


@lru_cache(maxsize=8)
def connect(url: str) -> Engine:
    """An engine for the URL, whatever state its schema is in (see get_engine)."""
    # Every request thread may hold a connection (the server runs up to 40 at once): a pool
    # smaller than that made requests queue for a connection behind slow searches.
    if not url.startswith("sqlite"):
        return create_engine(url, pool_size=16, max_overflow=48, pool_pre_ping=True,
                             connect_args={"options": "-c timezone=UTC"})
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                           pool_size=16, max_overflow=48)

    @event.listens_for(engine, "handle_error")
    def _noticed(context: ExceptionContext) -> None:
        # Any query that meets a damaged page names it, for /healthz and the commands.
        if _is_damage(context.original_exception):
            _damage[url] = _damaged(url, str(context.original_exception))

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # WAL lets the server keep reading while an ingest writes its one big transaction.
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def use_ingest_cache(session: Session) -> None:
    """Give the session's connection the page cache of an ingest (SQLite; for as long as the
    connection lives: a command's)."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(text(f"PRAGMA cache_size=-{INGEST_CACHE_KIB}"))


def _is_damage(error: BaseException) -> bool:
    return any(message in str(error).lower() for message in DAMAGE_MESSAGES)


def database_name(url: str) -> str:
    """The database a URL names, for messages: the file, or the URL without its password."""
    parsed = make_url(url)
    return parsed.database or "" if parsed.drivername.startswith("sqlite") else (
        parsed.render_as_string(hide_password=True))


def _damaged(url: str, found: str) -> str:
    return f"the catalog database {database_name(url)} is damaged ({found})"


def _first_problem(rows: list[str]) -> str:
    """quick_check's first problem, and how many more (its rows may hold several lines)."""
    problems = [line.strip() for row in rows for line in str(row).splitlines()
                if line.strip() and not line.startswith("***")]
    more = f", and {len(problems) - 1} more problems" if len(problems) > 1 else ""
    return f"PRAGMA quick_check: {problems[0] if problems else 'failed'}{more}"


def database_damage(url: str) -> str | None:
    """What a check or a query found wrong with the database, if anything."""
    return _damage.get(url)


def check_database(url: str) -> str | None:
    """SQLite's `PRAGMA quick_check` (2.6 s at L); on PostgreSQL, which checks each page as
    it reads it, every table read through. What is wrong, or None; remembered for
    `database_damage`."""
    engine = connect(url)
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                rows = connection.exec_driver_sql("PRAGMA quick_check").scalars().all()
                found = None if rows == ["ok"] else _first_problem(rows)
            else:  # the tables there are: a new or older catalog lacks some (migrate's)
                present = set(inspect(connection).get_table_names())
                for table in SQLModel.metadata.sorted_tables:
                    if table.name in present:
                        connection.execute(select(func.count()).select_from(table)).one()
                found = None
    except DatabaseError as error:
        if not _is_damage(error.orig or error):
            raise  # not damage: locked, unreachable... (the caller's to report)
        found = str(error.orig or error)
    if found is None:
        _damage.pop(url, None)
        return None
    _damage[url] = _damaged(url, found)
    return _damage[url]


@lru_cache(maxsize=8)
def get_engine(url: str) -> Engine:
    """An engine on a database at this program's schema (a fresh one is created)."""
    engine = connect(url)
    ensure_schema(engine)
    return engine


@contextmanager
def session_scope(url: str) -> Iterator[Session]:
    with Session(get_engine(url)) as session:
        yield session


# Every request reads the version: a Core statement built once costs half an ORM get.
_STATE = CatalogState.__table__.c  # type: ignore[attr-defined]
_STATE_VALUE = select(_STATE.value).where(_STATE.key == bindparam("key"))


def _state(session: Session, key: str, default: str = "") -> str:
    value = session.execute(_STATE_VALUE, {"key": key}).scalar()
    return default if value is None else value


def catalog_version(session: Session) -> int:
    return int(_state(session, VERSION_KEY, "0"))


def catalog_id(session: Session) -> str:
    """Which catalog this database holds: a node's index records it to detect another one."""
    return _state(session, CATALOG_ID_KEY)


def full_rebuild_version(session: Session) -> int:
    return int(_state(session, FULL_REBUILD_KEY, "0"))


def pending_keyphrases(session: Session) -> int | None:
    """The IDF's paper count of the keyphrases an ingest left to extract, or None: none left."""
    value = _state(session, KEYPHRASES_PENDING_KEY)
    return int(value) if value else None


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """The items a batch at a time: a statement takes a bounded number of parameters (SQLite
    32,766, PostgreSQL 65,535), a bulk insert is fastest at a few thousand rows, and an
    ingest holds one batch of papers at a time."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def bump_catalog_version(session: Session, changed_ids: Iterable[str] = ()) -> int:
    """Record a new catalog version and the papers it added or removed (for every node)."""
    version = catalog_version(session) + 1
    session.merge(CatalogState(key=VERSION_KEY, value=str(version)))
    session.info.pop("catalog_version", None)  # what catalog.memoized read of this session
    rows = [{"version": version, "paper_id": paper_id} for paper_id in sorted(set(changed_ids))]
    for batch in batched(rows, 5000):
        session.execute(insert(CatalogChange), batch)
    return version


def require_full_rebuild(session: Session) -> int:
    """A new version that changed papers wholesale (e.g. their topics): indexes rebuild."""
    version = bump_catalog_version(session)
    session.merge(CatalogState(key=FULL_REBUILD_KEY, value=str(version)))
    return version


def paper_total(session: Session) -> int:
    return session.exec(select(func.count()).select_from(Paper)).one()
