"""A worker hands the allocator's free pages back to the system when it goes idle
(allocator.py): its memory after a load does not grow with the searches it answered."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from app import allocator
from app.main import create_app
from tests.conftest import Catalog


def test_a_worker_that_goes_idle_trims_the_allocator(seeded: Catalog,
                                                    monkeypatch: pytest.MonkeyPatch):
    if allocator._libc() is None:
        pytest.skip("not glibc: its allocator decides")
    monkeypatch.setattr(allocator, "TRIM_INTERVAL", 3600.0)  # only going idle wakes it
    monkeypatch.setattr(allocator, "TRIM_GAP", 0.0)
    with TestClient(create_app(seeded.settings)) as client:
        trimmer = client.app.state.trimmer
        for q in ("learning", "graph networks"):
            trims = trimmer.trims
            assert client.get("/search", params={"q": q}).status_code == 200
            deadline = time.monotonic() + 30
            while trimmer.trims == trims and time.monotonic() < deadline:
                time.sleep(0.01)
            assert trimmer.trims > trims
    assert not trimmer._thread.is_alive()  # stopped with the app
