"""A served catalog's queries are encoded once per server, by its supervisor (issue 59: each
worker's RSS counted the model's weights and the tokenizer once it had answered a
description); a process without the supervisor's service encodes for itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sqlmodel import select

from app.meaning import model_files
from app.meaning.queries import SOCKET_ENV, EncoderService, LocalEncoder, QueryEncoder
from app.models import Paper
from tests.conftest import Catalog, write_list
from tests.meaning.test_search_by_meaning import DEPTH, GUESS, _encoded
from tests.servers import running_server
from tests.web.test_workers import _connection_to_each_worker, _mapped_files

TEXTS = ("diffusion models that sample faster", "Évaluer $O(n^2)$ attention — ≤ 5 ms")


@pytest.fixture
def service(model_cache: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(SOCKET_ENV, raising=False)
    running = EncoderService(model_cache)
    running.start()
    yield running
    running.stop()


def test_the_service_answers_the_vectors_the_process_would_make(model_cache: Path,
                                                                 service: EncoderService):
    asked = QueryEncoder(model_cache)
    assert asked.remote is not None and os.environ[SOCKET_ENV] == str(service.path)
    own = LocalEncoder(model_cache)
    for text in TEXTS:
        vector, expected = asked.vector(text), own.vector(text)
        assert vector is not None and expected is not None
        np.testing.assert_allclose(vector, expected, atol=1e-6)
    assert asked.remote is not None  # still the service's


def test_a_process_encodes_for_itself_once_the_service_is_gone(model_cache: Path,
                                                                service: EncoderService):
    asked = QueryEncoder(model_cache)
    assert asked.vector(TEXTS[0]) is not None
    service.stop()
    assert not service.directory.exists() and SOCKET_ENV not in os.environ
    vector = asked.vector(TEXTS[1])  # the socket refuses: encoded here instead
    assert vector is not None and asked.remote is None
    np.testing.assert_allclose(vector, LocalEncoder(model_cache).vector(TEXTS[1]), atol=1e-6)


def test_a_killed_supervisors_socket_directory_is_removed_by_the_next(model_cache: Path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = Path(tempfile.gettempdir()) / f"catalog-encoder-{dead.pid}-x1"
    orphan.mkdir()
    (orphan / "socket").write_text("")
    live = Path(tempfile.mkdtemp(prefix=f"catalog-encoder-{os.getpid()}-"))
    service = EncoderService(model_cache)
    try:
        assert not orphan.exists() and live.exists() and service.directory.exists()
    finally:
        service.stop()
        live.rmdir()
    assert not service.directory.exists()


def test_a_refused_model_reaches_the_workers_as_its_reason(
        tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch):
    cache = tmp_path / "model"
    shutil.copytree(model_cache, cache)
    (cache / "model.safetensors").write_bytes(b"not the model")
    wrong = tmp_path / "model.zip"
    with zipfile.ZipFile(wrong, "w") as archive:
        archive.writestr("model.safetensors", b"not the model either")
    monkeypatch.setattr(model_files, "packaged_archive", lambda: wrong)
    monkeypatch.delenv(SOCKET_ENV, raising=False)
    refusing = EncoderService(cache)
    refusing.start()
    try:
        asked = QueryEncoder(cache)
        assert asked.vector(TEXTS[0]) is None
        assert asked.problem is not None and "SHA-256" in asked.problem
    finally:
        refusing.stop()


def test_served_workers_do_not_load_the_model_and_still_search_by_meaning(
        fresh: Catalog, tmp_path: Path):
    fresh.ingest(write_list(tmp_path / "depth.txt", "DEPTH 2026 Papers", DEPTH))
    with fresh.session() as session:
        paper = session.exec(select(Paper.id).where(Paper.abstract == DEPTH)).one()
    _encoded(fresh)
    with running_server(fresh.env(), 60, "--workers", "2") as base:
        workers = _connection_to_each_worker(base)
        for worker, connection in workers.items():
            connection.request("GET", f"/api/search?q={GUESS.replace(' ', '+')}")
            answer = connection.getresponse().read().decode()
            assert f'"id":"{paper}"' in answer, worker
            assert not any(path.endswith("model.safetensors") or "/tokenizers/" in path
                           for path in _mapped_files(worker)), worker
            connection.close()
        supervisor = int(Path(f"/proc/{next(iter(workers))}/stat").read_text().split()[3])
        assert any(path.endswith("model.safetensors") for path in _mapped_files(supervisor))
