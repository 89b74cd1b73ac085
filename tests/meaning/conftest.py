"""The sentence encoder, loaded once per run from the installed model wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.meaning.encoder import Encoder


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache directory holding the model's files, extracted once."""
    cache = tmp_path_factory.mktemp("model")
    Encoder.load(cache)
    return cache


@pytest.fixture(scope="session")
def encoder(model_cache: Path) -> Encoder:
    return Encoder.load(model_cache)
