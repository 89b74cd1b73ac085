"""A real catalog for tests: seed list files → SQLite file → Whoosh index, all in tmp_path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import PROJECT_ROOT, Settings
from app.db import get_engine
from app.ingest.load import IngestReport, ingest_paths
from app.main import create_app
from app.search.index import build_index

SEEDS = PROJECT_ROOT / "seeds"


@dataclass
class Catalog:
    settings: Settings
    seeds: Path
    report: IngestReport

    def session(self) -> Session:
        return Session(get_engine(self.settings.database_url))

    def ingest(self, *paths: Path) -> IngestReport:
        with self.session() as session:
            report = ingest_paths(session, list(paths))
            build_index(self.settings, session)
        return report


def make_catalog(root: Path) -> Catalog:
    seeds = root / "seeds"
    shutil.copytree(SEEDS, seeds)
    settings = Settings(data_dir=root / "data", seeds_dir=seeds)
    settings.data_dir.mkdir(parents=True)
    catalog = Catalog(settings, seeds, IngestReport())
    catalog.report = catalog.ingest(seeds)
    return catalog


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The seed catalog, built once; tests that use it must not change it."""
    return make_catalog(tmp_path_factory.mktemp("seeded"))


@pytest.fixture
def fresh(tmp_path: Path) -> Catalog:
    """A seed catalog of the test's own, free to change."""
    return make_catalog(tmp_path)


@pytest.fixture(scope="session")
def client(seeded: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(seeded.settings), raise_server_exceptions=False) as test_client:
        yield test_client


def write_list(path: Path, header: str, *abstracts: str, newline: str = "\n") -> Path:
    path.write_text(newline.join([header, "", *(f"{a}{newline}" for a in abstracts)]),
                    encoding="utf-8", newline="")
    return path
