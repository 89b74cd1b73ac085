"""Settings from the environment: defaults, and a bad value as one line naming its variable
(exit 2), never a traceback."""

import os
import subprocess
from pathlib import Path

import pytest

from app.config import SettingsError, get_settings
from tests.servers import CATALOG


def test_defaults_and_values_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CATALOG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CATALOG_THREADS", "7")
    monkeypatch.setenv("CATALOG_BENCH_ENDPOINT", "1")
    for name in ("CATALOG_POLL_SECONDS", "CATALOG_PUBLIC_URL", "CATALOG_DATABASE_URL",
                 "CATALOG_ALLOWED_HOSTS", "CATALOG_GRACEFUL_SHUTDOWN_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    settings = get_settings()
    assert settings.data_dir == (tmp_path / "data").resolve()
    assert (settings.threads, settings.bench_endpoint, settings.poll_seconds) == (7, True, 2.0)
    assert settings.graceful_shutdown_seconds == 10.0
    assert settings.database_url == f"sqlite:///{tmp_path / 'data' / 'catalog.db'}"
    assert settings.hosts == {"localhost", "127.0.0.1", "::1"}


def test_the_allowed_hosts_are_the_public_urls_the_listed_and_the_loopback_ones(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CATALOG_PUBLIC_URL", "https://Papers.Example.org:8443/catalog")
    monkeypatch.setenv("CATALOG_ALLOWED_HOSTS", " catalog.internal, 10.0.0.5,[fd00::1], fd00::2,")
    assert get_settings().hosts == {"papers.example.org", "catalog.internal", "10.0.0.5",
                                    "fd00::1", "fd00::2", "localhost", "127.0.0.1", "::1"}


@pytest.mark.parametrize(("name", "value"), [
    ("CATALOG_THREADS", "x"), ("CATALOG_THREADS", "0"), ("CATALOG_POLL_SECONDS", "-1"),
    ("CATALOG_POLL_SECONDS", "soon"), ("CATALOG_GRACEFUL_SHUTDOWN_SECONDS", "0"),
    ("CATALOG_PUBLIC_URL", "ftp://papers.example.org"),
    ("CATALOG_ALLOWED_HOSTS", "papers.example.org,https://papers.example.org"),
    ("CATALOG_ALLOWED_HOSTS", "papers.example.org:8000"),
])
def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=f"{name}='{value}'"):
        get_settings()


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["ingest"], ["migrate"]])
def test_the_cli_says_which_variable_is_wrong_and_exits_2(tmp_path: Path, command: list[str]):
    env = {**os.environ, "CATALOG_DATA_DIR": str(tmp_path), "CATALOG_THREADS": "many"}
    done = subprocess.run([CATALOG, *command], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: CATALOG_THREADS='many': input should be a valid integer, unable to parse "
        "string as an integer"]
