"""Settings in one place: environment variables with defaults, validated by pydantic-settings
so that a bad value is one line naming its variable, not a traceback."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The hosts a server answers for besides its public URL's and those CATALOG_ALLOWED_HOSTS adds:
# its own machine's, for health checks and a server behind nothing. A link to one of them
# leads nowhere but the reader's own machine.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
# A host as a Host header names it (RFC 9110: a DNS name or an IP literal), without its port.
HOST_NAME = re.compile(r"\[[0-9a-f:.]+\]|[0-9a-z_](?:[0-9a-z_.-]*[0-9a-z_])?\.?", re.IGNORECASE)


class SettingsError(ValueError):
    """A CATALOG_* variable holds a value the catalog cannot use."""


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    seeds_dir: Path
    topics_file: Path = PROJECT_ROOT / "app" / "topics" / "topics.json"
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
    # the host each request names, once AllowedHosts let it through (app/web/middleware.py).
    public_url: str = ""
    # Host names a request may name besides the public URL's and the loopback ones; any other
    # is refused (400), so no other name can reach a page, a feed or a cache.
    allowed_hosts: tuple[str, ...] = ()
    # Encode the papers' sentence vectors in the background, after an ingest (`catalog
    # update-index`) and in servers (search by meaning: app/search/index/meaning_updates.py). On
    # by the environment's default; a catalog made in code (tests, benches) asks for it.
    encode_vectors: bool = False
    # How long a stopping worker waits for the requests in flight: a request stuck for good (a
    # hung search) kept a worker whose supervisor had been killed alive, answering nothing.
    graceful_shutdown_seconds: float = 10.0

    def __post_init__(self) -> None:
        if self.public_url:
            address = urlsplit(self.public_url)
            if address.scheme not in ("http", "https") or not address.hostname or address.query:
                raise SettingsError(f"CATALOG_PUBLIC_URL={self.public_url!r}: not an http(s) "
                                    "address such as https://papers.example.org")
        if bad := [name for name in self.allowed_hosts
                   if not (HOST_NAME.fullmatch(name) or HOST_NAME.fullmatch(f"[{name}]"))]:
            raise SettingsError(f"CATALOG_ALLOWED_HOSTS={','.join(self.allowed_hosts)!r}: "
                                f"{bad[0]!r} is not a host name such as papers.example.org "
                                "(no scheme, port or path)")

    @property
    def hosts(self) -> frozenset[str]:
        """Every host name a request may name, in its plain form (plain_host)."""
        public = urlsplit(self.public_url).hostname if self.public_url else None
        return frozenset(plain_host(name) for name in (
            *LOOPBACK_HOSTS, *self.allowed_hosts, *([public] if public else [])))

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


class _Environment(BaseSettings):
    """The CATALOG_* environment variables as the catalog reads them."""

    model_config = SettingsConfigDict(env_prefix="CATALOG_", extra="ignore")

    data_dir: Path = Path("data")
    seeds_dir: Path = PROJECT_ROOT / "seeds"
    topics_file: Path = Settings.topics_file
    bench_endpoint: bool = False
    database_url: str = ""
    poll_seconds: float = Field(2.0, gt=0)
    threads: int = Field(4, ge=1, le=256)
    public_url: str = ""
    allowed_hosts: str = ""  # comma-separated
    encode_vectors: bool = True
    graceful_shutdown_seconds: float = Field(Settings.graceful_shutdown_seconds, gt=0)


def plain_host(name: str) -> str:
    """A host name as hosts compare: lower case, without an IPv6 literal's brackets or a
    trailing dot ("LocalHost." and "localhost" are one host)."""
    return name.lower().removeprefix("[").removesuffix("]").removesuffix(".")


def get_settings() -> Settings:
    """Read the settings from the environment each time, so tests can point at tmp_path."""
    try:
        env = _Environment()
    except ValidationError as error:
        raise SettingsError("; ".join(
            f"CATALOG_{'_'.join(map(str, problem['loc'])).upper()}={problem['input']!r}: "
            f"{problem['msg'].lower()}" for problem in error.errors())) from None
    return Settings(data_dir=env.data_dir.resolve(), seeds_dir=env.seeds_dir.resolve(),
                    topics_file=env.topics_file.resolve(), bench_endpoint=env.bench_endpoint,
                    database=env.database_url, poll_seconds=env.poll_seconds,
                    threads=env.threads, public_url=env.public_url,
                    allowed_hosts=tuple(name.strip() for name in env.allowed_hosts.split(",")
                                        if name.strip()),
                    encode_vectors=env.encode_vectors,
                    graceful_shutdown_seconds=env.graceful_shutdown_seconds)
