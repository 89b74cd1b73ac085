"""Whoosh's Positions values encoded in bulk, compared with Whoosh's own `encode` of each
posting: opcode edges, the long postings pickle batches, chunks and given values."""

from __future__ import annotations

import random

import numpy as np
import pytest
from whoosh.fields import TEXT
from whoosh.formats import Positions

from app.search.index.postings import FieldPostings
from app.search.index.whoosh import encoding
from app.search.index.whoosh.encoding import EncodedValues, encode_positions


def test_positions_are_encoded_as_whoosh_encodes_them():
    draw = random.Random(7)
    lists = [sorted(draw.sample(range(limit), count))
             for limit, count in [(10, 1), (300, 5), (70_000, 40), (3_000_000, 9), (1000, 1000)]
             for _ in range(20)]
    # Deltas at each opcode's edge (1-byte K below 256, 2-byte M below 65,536, then J), as
    # first positions and between positions (issue 28, mutant 4: 255 and 65,535 as bounds).
    edges = [255, 256, 65_535, 65_536]
    lists += [[edge] for edge in edges] + [[3, 3 + edge] for edge in edges] + [
        [1, 1 + 255, 1 + 255 + 256, 1 + 255 + 256 + 65_535, 1 + 255 + 256 + 65_535 + 65_536]]
    bounds = np.cumsum([0, *map(len, lists)])
    buffer, offsets = encode_positions(bounds, np.array([p for ps in lists for p in ps]))
    encode = Positions().encode
    assert [buffer[offsets[k]:offsets[k + 1]] for k in range(len(lists))] == [
        encode(positions) for positions in lists]


def test_no_postings_encode_to_nothing():
    buffer, offsets = encode_positions(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))
    assert buffer == b"" and offsets.tolist() == [0] and offsets.dtype == np.int64


def positional(lists: list[list[int]]) -> FieldPostings:
    return FieldPostings(terms=[b"t"], starts=np.array([0, len(lists)]),
                         ids=np.arange(len(lists), dtype=np.uint32),
                         weights=np.ones(len(lists), dtype=np.float32),
                         bounds=np.cumsum([0, *map(len, lists)]).astype(np.int64),
                         positions=np.array([p for ps in lists for p in ps], dtype=np.int32))


@pytest.mark.parametrize("chunk", [3, 1 << 20])
def test_values_in_any_slices_are_whoosh_bytes(monkeypatch: pytest.MonkeyPatch, chunk: int):
    """Postings of 1,000 positions (the encoder's own) and 1,001 (Whoosh's encode) among short
    ones, read in slices that cross the chunks they are encoded in."""
    monkeypatch.setattr(encoding, "_ENCODE_CHUNK", chunk)
    draw = random.Random(3)
    lists = [sorted(draw.sample(range(5000), n)) for n in (2, 1000, 1, 1001, 3, 1002, 4, 5)]
    encode = Positions().encode
    values = EncodedValues(positional(lists), TEXT(phrase=True))
    read = []
    for first, last in [(0, 2), (2, 3), (3, 7), (7, 8)]:
        read += values.values(first, last)
    assert read == [encode(ps) for ps in lists]
    assert values.values(1, 6) == [encode(ps) for ps in lists[1:6]]
    assert values.values(5, 6) == [encode(lists[5])]


def test_each_chunk_is_encoded_once_as_the_writer_reads_on(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(encoding, "_ENCODE_CHUNK", 4)
    encoded: list[int] = []

    def counting(bounds, positions):
        encoded.append(len(bounds) - 1)
        return encode_positions(bounds, positions)

    monkeypatch.setattr(encoding, "encode_positions", counting)
    lists = [[n, n + 300] for n in range(10)]
    values = EncodedValues(positional(lists), TEXT(phrase=True))
    encode = Positions().encode
    read = values.values(0, 1) + values.values(1, 3) + values.values(3, 4)
    read += values.values(4, 5) + values.values(5, 8) + values.values(8, 10)
    assert read == [encode(ps) for ps in lists]
    assert values.values(8, 9) == [encode(lists[8])]  # from the chunk in hand
    assert encoded == [4, 4, 2]  # postings 0-3, 4-7, 8-9


def test_given_values_are_passed_without_the_empty_ones():
    postings = FieldPostings(terms=[b"t"], starts=np.array([0, 4]),
                             ids=np.arange(4, dtype=np.uint32),
                             weights=np.ones(4, dtype=np.float32),
                             values=[b"a", b"", b"bc", b"d"])
    values = EncodedValues(postings, TEXT())
    assert values.values(0, 4) == [b"a", b"bc", b"d"]
    assert values.values(1, 3) == [b"bc"]


def test_the_batches_pickle_uses():
    assert (encoding._PICKLE_BATCH, encoding._ENCODE_CHUNK) == (1000, 1 << 20)
