"""A real catalog for tests: seed list files → database → Whoosh index, all in tmp_path.

The database is a SQLite file in the catalog's data directory, or, when the run sets
CATALOG_TEST_DATABASE=postgresql (`make test` does, beside the SQLite run), a new database of
its own in a throwaway PostgreSQL cluster (tests/postgres.py). That run holds only the tests
marked `database`: those whose outcome depends on the database (docs/testing.md).
"""

from __future__ import annotations

import atexit
import copy
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import PROJECT_ROOT, Settings
from app.db import get_engine
from app.enrich import ON_INGEST
from app.feature_parts import register_parts
from app.ingest.listfile import ParsedList, parse_list_bytes
from app.ingest.load import IngestReport, ingest_paths
from app.main import create_app
from app.search.index.sync import build_index, sync_index
from tests import rising
from tests.multiseries import write_corpus
from tests.postgres import BACKEND, new_database_url

SEEDS = PROJECT_ROOT / "seeds"
# `catalog` commands run by tests encode no sentence vectors in the background (each ingest
# would start an encoder beside the suite); tests of search by meaning ask for it.
os.environ["CATALOG_ENCODE_VECTORS"] = "0"
register_parts()  # tests build and open indexes as the app does, most without an app
TEST_HOSTS = ("testserver",)  # the host httpx's TestClient names
TESTS = Path(__file__).parent
# Every test under these directories reads or writes the catalog through the app's queries
# (ingest, pages, migrations, crashes), so it is marked `database`; a module elsewhere whose
# outcome depends on the database says `pytestmark = pytest.mark.database`.
DATABASE_DIRS = {"ingest", "web", "scaling", "hardening"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "database: run on PostgreSQL as well as on SQLite "
                                       "(make test); every test under tests/"
                                       f"{{{','.join(sorted(DATABASE_DIRS))}}}/ is")


@pytest.hookimpl(tryfirst=True)  # marked before `-m database` selects (make test)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.relative_to(TESTS).parts[0] in DATABASE_DIRS:
            item.add_marker(pytest.mark.database)
    if BACKEND == "postgresql":  # the others ran in the SQLite run
        once = [item for item in items if item.get_closest_marker("database") is None]
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if item.get_closest_marker("database") is not None]


@dataclass
class Catalog:
    settings: Settings
    seeds: Path
    report: IngestReport

    def session(self) -> Session:
        return Session(get_engine(self.settings.database_url))

    def env(self) -> dict[str, str]:
        """The environment under which `catalog` commands use this catalog."""
        return {**os.environ, "CATALOG_DATA_DIR": str(self.settings.data_dir),
                "CATALOG_DATABASE_URL": self.settings.database}

    def close(self) -> None:
        get_engine(self.settings.database_url).dispose()

    def ingest(self, *paths: Path, rebuild: bool = False) -> IngestReport:
        """As `catalog ingest` and the update it leaves to the background, both done before
        this returns: the index follows the change log (rebuilt only when it must be). With
        `rebuild`, as `catalog reindex` after it: the vectors' model is fitted to these papers
        too, where an update projects them with the seeds' model."""
        with self.session() as session:
            report = ingest_paths(session, list(paths), ON_INGEST)
            if rebuild:
                build_index(self.settings, session)
            else:
                sync_index(self.settings, session)
        return report


def make_catalog(root: Path) -> Catalog:
    """The seed catalog in `root`: a copy of the one the run built first (database, index and
    seeds), as ingesting the seeds and building the index take seconds and a copy does not."""
    template = seed_template()
    seeds = root / "seeds"
    shutil.copytree(SEEDS, seeds)
    settings = Settings(data_dir=root / "data", seeds_dir=seeds,
                        database=new_database_url(template.settings.database),
                        allowed_hosts=TEST_HOSTS)
    shutil.copytree(template.settings.data_dir, settings.data_dir, symlinks=True)
    return Catalog(settings, seeds, copy.deepcopy(template.report))


@cache
def seed_template() -> Catalog:
    """The seeds ingested and indexed once per run, closed: what make_catalog copies."""
    root = Path(tempfile.mkdtemp(prefix="catalog-seeds-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    settings = Settings(data_dir=root / "data", seeds_dir=SEEDS, database=new_database_url())
    settings.data_dir.mkdir()
    template = Catalog(settings, SEEDS, IngestReport())
    template.report = template.ingest(SEEDS)
    template.close()  # nothing may be connected to a PostgreSQL database that is copied
    return template


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The seed catalog, built once; tests that use it must not change it."""
    return make_catalog(tmp_path_factory.mktemp("seeded"))


@pytest.fixture(scope="session")
def multiseries(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The generated multi-series catalog (tests/multiseries.py), in two ingests a second
    apart; tests that use it must not change it."""
    root = tmp_path_factory.mktemp("multiseries")
    files = write_corpus(root / "corpus")
    settings = Settings(data_dir=root / "data", seeds_dir=root / "corpus",
                        database=new_database_url(), allowed_hosts=TEST_HOSTS)
    settings.data_dir.mkdir(parents=True)
    catalog = Catalog(settings, root / "corpus", IngestReport())
    catalog.report = catalog.ingest(files["first"], *sorted((root / "corpus").glob("*.txt")))
    time.sleep(1.1)  # the later batch is newer by the index's clock too (whole seconds)
    catalog.ingest(files["later"])
    return catalog


@pytest.fixture(scope="session")
def delta(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The seeds and the series of tests/rising.py; tests that use it must not change it."""
    catalog = make_catalog(tmp_path_factory.mktemp("delta"))
    catalog.ingest(rising.corpus(tmp_path_factory.mktemp("input") / "delta.jsonl"))
    return catalog


@pytest.fixture(scope="session")
def multi_client(multiseries: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(multiseries.settings),
                    raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Catalog]:
    """A seed catalog of the test's own, free to change."""
    catalog = make_catalog(tmp_path)
    yield catalog
    catalog.close()


@pytest.fixture
def catalog_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point `catalog` commands run in this test at an empty catalog; returns its data dir."""
    data = tmp_path / "data"
    monkeypatch.setenv("CATALOG_DATA_DIR", str(data))
    monkeypatch.setenv("CATALOG_DATABASE_URL", new_database_url())
    return data


@pytest.fixture(scope="session")
def client(seeded: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(seeded.settings), raise_server_exceptions=False) as test_client:
        yield test_client


def write_list(path: Path, header: str, *abstracts: str, newline: str = "\n") -> Path:
    path.write_text(newline.join([header, "", *(f"{a}{newline}" for a in abstracts)]),
                    encoding="utf-8", newline="")
    return path


@contextmanager
def served_list(tmp_path_factory: pytest.TempPathFactory, header: str, *abstracts: str,
                rebuild: bool = False) -> Iterator[tuple[Catalog, TestClient]]:
    """The seeds and one more list file of these abstracts, in a catalog served by the app."""
    catalog = make_catalog(tmp_path_factory.mktemp("catalog"))
    catalog.ingest(write_list(tmp_path_factory.mktemp("list") / "list.txt", header, *abstracts),
                   rebuild=rebuild)
    with TestClient(create_app(catalog.settings)) as client:
        yield catalog, client
    catalog.close()


def parse_list_file(path: Path) -> ParsedList:
    return parse_list_bytes(path, path.read_bytes())
