"""Settings in one place: environment variables with defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    seeds_dir: Path
    topics_file: Path = PROJECT_ROOT / "app" / "topics.json"
    # A minimal endpoint (/bench/hello) beside the real ones: the HTTP baseline of bench/.
    bench_endpoint: bool = False
    # Any SQLAlchemy URL (e.g. postgresql+psycopg://...); empty: the SQLite file in data_dir.
    database: str = ""
    # How often a server asks the database whether an ingest changed the catalog.
    poll_seconds: float = 2.0
    # Threads per worker for requests. Few: they share one GIL, and every thread more waits
    # for it after each SQLite row and file read (measured in docs/performance.md).
    threads: int = 4
    # The address readers reach the catalog at ("https://papers.example.org"): absolute links
    # (BibTeX, feeds, sitemap, citation tags) name it whatever Host a request carries. Empty:
    # the Host of each request, as a server on 127.0.0.1 behind nothing needs.
    public_url: str = ""

    def __post_init__(self) -> None:
        if self.public_url:
            address = urlsplit(self.public_url)
            if address.scheme not in ("http", "https") or not address.hostname or address.query:
                raise ValueError(f"CATALOG_PUBLIC_URL {self.public_url!r} is not an http(s) "
                                 "address such as https://papers.example.org")

    @property
    def database_path(self) -> Path:
        return self.data_dir / "catalog.db"

    @property
    def database_url(self) -> str:
        return self.database or f"sqlite:///{self.database_path}"

    @property
    def index_path(self) -> Path:
        """The live Whoosh index: a symlink swapped atomically on every full rebuild."""
        return self.data_dir / "index"


def get_settings() -> Settings:
    """Read the settings from the environment each time, so tests can point at tmp_path."""
    data_dir = Path(os.environ.get("CATALOG_DATA_DIR", "data")).resolve()
    seeds_dir = Path(os.environ.get("CATALOG_SEEDS_DIR", PROJECT_ROOT / "seeds")).resolve()
    topics_file = Path(os.environ.get("CATALOG_TOPICS_FILE", Settings.topics_file)).resolve()
    return Settings(data_dir=data_dir, seeds_dir=seeds_dir, topics_file=topics_file,
                    bench_endpoint=os.environ.get("CATALOG_BENCH_ENDPOINT") == "1",
                    database=os.environ.get("CATALOG_DATABASE_URL", ""),
                    poll_seconds=float(os.environ.get("CATALOG_POLL_SECONDS", "2")),
                    threads=max(1, int(os.environ.get("CATALOG_THREADS", "4"))),
                    public_url=os.environ.get("CATALOG_PUBLIC_URL", ""))
