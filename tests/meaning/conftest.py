"""The sentence encoder, loaded once per run from the installed model wheel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.meaning.encoder import Encoder

# Each text's vector, once the real encoder has made it in this run: (text, max_tokens) ->
# float32 row. The tests here encode the same 151 seed papers again and again (4 s of a core
# each time, in both database runs); the encoder's own output is checked against
# sentence-transformers' in tests/search/test_encoder.py, which this does not reach.
_VECTORS: dict[tuple[str, int], np.ndarray] = {}
_encode = Encoder.encode


def _remembered(self: Encoder, texts: list[str], max_tokens: int = 256, batch_size: int = 32
                ) -> np.ndarray:
    """Encoder.encode, but a text encoded before in this run is not encoded again."""
    new = list(dict.fromkeys(text for text in texts if (text, max_tokens) not in _VECTORS))
    if new:
        for text, vector in zip(new, _encode(self, new, max_tokens, batch_size), strict=True):
            _VECTORS[text, max_tokens] = vector
    vectors = np.empty((len(texts), self.dimensions), dtype=np.float32)
    for row, text in enumerate(texts):
        vectors[row] = _VECTORS[text, max_tokens]
    return vectors


@pytest.fixture(autouse=True)
def remembered_vectors(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """In this process, every encoder (the fixture's and those the app loads) remembers the
    vectors it made; a `catalog` or `python -m app.meaning.job` process encodes for real."""
    monkeypatch.setattr(Encoder, "encode", _remembered)
    yield


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache directory holding the model's files, extracted once."""
    cache = tmp_path_factory.mktemp("model")
    Encoder.load(cache)
    return cache


@pytest.fixture(scope="session")
def encoder(model_cache: Path) -> Encoder:
    return Encoder.load(model_cache)
