"""Whoosh's Positions values encoded for many postings at once, in the very bytes its
format's `encode` gives one posting: the count (4 bytes, big-endian) then the pickle
(protocol 2) of the list of deltas."""

from __future__ import annotations

import numpy as np
from whoosh.fields import FieldType

from app.search.index.postings import FieldPostings

_ENCODE_CHUNK = 1 << 20  # postings whose position values are encoded at once
_PICKLE_BATCH = 1000  # pickle writes longer lists in batches of this many items


class EncodedValues:
    """The postings' encoded values: given (other fields, empty ones left out as add_posting
    leaves them out) or encoded from positions a chunk of postings at a time."""

    def __init__(self, postings: FieldPostings, fieldobj: FieldType) -> None:
        self.postings = postings
        self.format = fieldobj.format
        self.chunk = (0, 0)
        self.buffer = b""
        self.offsets = np.zeros(1, dtype=np.int64)
        self.long: set[int] = set()  # postings of more positions than encode_positions handles

    def values(self, first: int, last: int) -> list[bytes]:
        postings = self.postings
        if postings.values is not None:
            return [value for value in postings.values[first:last] if value]
        if not self.chunk[0] <= first < last <= self.chunk[1]:
            self._encode(first, max(last, min(first + _ENCODE_CHUNK, len(postings.ids))))
        base, buffer = self.chunk[0], self.buffer
        bounds = self.offsets[first - base:last - base + 1].tolist()
        values = [buffer[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        for k in self.long.intersection(range(first, last)) if self.long else ():  # batched
            assert postings.bounds is not None and postings.positions is not None
            start, end = postings.bounds[k], postings.bounds[k + 1]
            values[k - first] = self.format.encode(postings.positions[start:end].tolist())
        return values

    def _encode(self, first: int, last: int) -> None:
        assert self.postings.bounds is not None and self.postings.positions is not None
        bounds = self.postings.bounds[first:last + 1]
        positions = self.postings.positions[bounds[0]:bounds[-1]]
        self.buffer, self.offsets = encode_positions(bounds - bounds[0], positions)
        self.long = set((np.flatnonzero(np.diff(bounds) > _PICKLE_BATCH) + first).tolist())
        self.chunk = (first, last)


def encode_positions(bounds: np.ndarray, positions: np.ndarray) -> tuple[bytes, np.ndarray]:
    """Positions.encode of every posting at once: the bytes, and where posting k's value is
    (offsets[k]:offsets[k + 1]). Correct for postings of up to 1,000 positions."""
    counts = np.diff(bounds)
    if not len(counts):
        return b"", np.zeros(1, dtype=np.int64)
    firsts = bounds[:-1]
    deltas = positions.astype(np.int64)
    deltas[1:] -= positions[:-1]
    deltas[firsts] = positions[firsts]  # a posting's first delta is from 0
    sizes = np.where(deltas < 256, 2, np.where(deltas < 65536, 3, 5))  # K, M or J opcodes
    several = (counts > 1).astype(np.int64)  # MARK ... APPENDS, else APPEND
    before = np.cumsum(sizes) - sizes  # item bytes before each item, over all postings
    item_bytes = np.add.reduceat(sizes, firsts)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(11 + several + item_bytes, out=offsets[1:])
    out = np.zeros(int(offsets[-1]), dtype=np.uint8)
    starts = offsets[:-1]
    for shift, byte in enumerate((24, 16, 8, 0)):
        out[starts + shift] = (counts >> byte) & 0xFF
    for shift, byte in enumerate(b"\x80\x02]q\x00"):  # PROTO 2, EMPTY_LIST, BINPUT 0
        out[starts + 4 + shift] = byte
    out[starts[counts > 1] + 9] = ord("(")
    owner = np.repeat(np.arange(len(counts)), counts)
    at = (starts + 9 + several)[owner] + before - before[firsts][owner]
    for size, opcode in ((2, "K"), (3, "M"), (5, "J")):
        chosen = sizes == size
        where, value = at[chosen], deltas[chosen]
        out[where] = ord(opcode)
        for byte in range(size - 1):  # little-endian
            out[where + 1 + byte] = (value >> (8 * byte)) & 0xFF
    ends = offsets[1:]
    out[ends - 2] = np.where(counts > 1, ord("e"), ord("a"))
    out[ends - 1] = ord(".")
    return out.tobytes(), offsets
