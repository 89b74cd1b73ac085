"""Posting lists as arrays beside the index, written when the index is, memory-mapped by
every worker.

Whoosh keeps a term's postings in pickled, compressed blocks; a search that meets a word
for the first time unpickled them in Python (at L, a first-time search's main cost under
load, profiled). Decoded once per segment when the index is built or updated (7.4 M postings
of the abstracts' text at L in ~7 s) and written as plain arrays, they are a slice of a
memory-mapped file for every search after, shared by the workers through the page cache.

Layout, per segment and field: `arrays/<segment>.<field>/` with `terms.txt` (the terms, one
a line, in the order of their postings), `starts.npy` (where each term's postings begin; one
more entry than terms), `ids.npy` (segment document numbers, uint32), `weights.npy` (term
frequencies as Whoosh weighs them, float32), `bounds.npy` (where each posting's positions
begin, uint32; one more entry than postings) and `positions.npy` (int32). Deleted documents stay in
the arrays, as in Whoosh's own postings: readers filter them.

This module is also where Whoosh's private posting internals are read (W3 blocks, pickled
position values); the rest of the search package uses what it returns.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from array import array
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate
from pathlib import Path
from pickle import loads

import numpy as np
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.formats import Positions
from whoosh.matching.wrappers import FilterMatcher
from whoosh.reading import IndexReader, SegmentReader, TermNotFound

ARRAYS_DIR = "arrays"
FIELDS = ("headline", "text")  # the fields words are searched in


def decode_postings(reader: IndexReader, fieldname: str, text: object) -> tuple[array, array]:
    """A term's postings in one segment: document numbers and weights, decoded a block at a
    time (document numbers are stored as deltas)."""
    ids, weights = array("I"), array("f")
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return ids, weights
    if isinstance(matcher, FilterMatcher):
        matcher = matcher.child
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        for doc, weight in matcher.items_as("weight"):
            ids.append(doc)
            weights.append(weight)
        return ids, weights
    while matcher.is_active():
        matcher._read_weights()  # reads the block; weights may be stored compactly
        ids.extend(accumulate(matcher._data[0]))
        weights.extend(matcher._weights)
        matcher._next_block()
    return ids, weights


# A posting block: its last document number, and a function that reads its document numbers
# and encoded values (a block is one pickle: skipped blocks are never read).
Block = tuple[int, Callable[[], tuple[list[int], list[bytes]]]]


def value_blocks(reader: IndexReader, fieldname: str, word: object) -> Iterator[Block]:
    """The term's postings a block at a time; each block must be read before the next."""
    try:
        matcher = reader.postings(fieldname, word)
    except TermNotFound:
        return
    if isinstance(matcher, FilterMatcher):
        matcher = matcher.child
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        items = list(matcher.all_items())  # (document, value) a posting at a time
        if items:
            yield items[-1][0], lambda: ([d for d, _ in items], [v for _, v in items])
        return
    while matcher.is_active():
        def read(block: W3LeafMatcher = matcher) -> tuple[list[int], list[bytes]]:
            block._read_values()
            return list(accumulate(block._data[0])), block._values  # ids stored as deltas

        yield matcher._maxid, read
        matcher._next_block()


def position_decoder(reader: IndexReader, fieldname: str) -> Callable[[bytes], Iterable[int]]:
    """How the field's position values decode: for Whoosh's Positions format (a length, then
    the pickled deltas, stored without pickle's final "."), its decode_positions a third
    faster; else the format's own."""
    format_ = reader.schema[fieldname].format
    if type(format_).decode_positions is not Positions.decode_positions:
        return format_.decode_positions

    def decode(value: bytes) -> Iterable[int]:
        return accumulate(loads(value[4:] if value.endswith(b".") else value[4:] + b"."))

    return decode


def decode_positions(reader: IndexReader, fieldname: str,
                     word: object) -> tuple[list[int], list[int], list[int]]:
    """A term's postings with positions: document numbers, where each document's positions
    start in the positions (one more entry than documents), and the positions."""
    decode = position_decoder(reader, fieldname)
    ids: list[int] = []
    bounds = [0]
    positions: list[int] = []
    for _, read in value_blocks(reader, fieldname, word):
        block_ids, values = read()
        ids.extend(block_ids)
        for value in values:
            positions.extend(decode(value))
            bounds.append(len(positions))
    return ids, bounds, positions


def write_arrays(directory: Path) -> None:
    """Write the arrays of every segment of the index that lacks them; drop those of
    segments the index no longer has (merged away)."""
    ix = whoosh_index.open_dir(str(directory))
    try:
        with ix.reader() as reader:
            leaves = [leaf for leaf, _ in reader.leaf_readers()]
            wanted = set()
            for leaf in leaves:
                if not isinstance(leaf, SegmentReader):
                    continue
                for fieldname in FIELDS:
                    name = f"{leaf.segment().segment_id()}.{fieldname}"
                    wanted.add(name)
                    if not (directory / ARRAYS_DIR / name).exists():
                        _write_field(leaf, fieldname, directory / ARRAYS_DIR / name)
    finally:
        ix.close()
    for old in (directory / ARRAYS_DIR).glob("*"):
        if old.name not in wanted and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)


def _write_field(reader: SegmentReader, fieldname: str, target: Path) -> None:
    terms: list[bytes] = []
    starts = array("q", [0])
    ids, weights = array("I"), array("f")
    bounds, positions = array("I", [0]), array("i")
    if fieldname in reader.schema:
        for term in reader.lexicon(fieldname):
            _, term_weights = decode_postings(reader, fieldname, term)
            term_ids, term_bounds, term_positions = decode_positions(reader, fieldname, term)
            terms.append(term)
            ids.extend(term_ids)
            weights.extend(term_weights)
            starts.append(len(ids))
            bounds.extend(b + len(positions) for b in term_bounds[1:])
            positions.extend(term_positions)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}")
    tmp.mkdir(parents=True)
    (tmp / "terms.txt").write_bytes(b"\n".join(terms))
    np.save(tmp / "starts.npy", np.frombuffer(starts, dtype=np.int64))
    np.save(tmp / "ids.npy", np.frombuffer(ids, dtype=np.uint32) if ids else
            np.zeros(0, dtype=np.uint32))
    np.save(tmp / "weights.npy", np.frombuffer(weights, dtype=np.float32) if weights else
            np.zeros(0, dtype=np.float32))
    np.save(tmp / "bounds.npy", np.frombuffer(bounds, dtype=np.uint32))
    np.save(tmp / "positions.npy", np.frombuffer(positions, dtype=np.int32) if positions else
            np.zeros(0, dtype=np.int32))
    os.replace(tmp, target)


class FieldArrays:
    """One segment's postings of one field, memory-mapped."""

    def __init__(self, path: Path) -> None:
        words = (path / "terms.txt").read_bytes()
        self.terms = {term.decode("utf-8"): i
                      for i, term in enumerate(words.split(b"\n") if words else [])}
        self.starts = np.load(path / "starts.npy", mmap_mode="r")
        self.ids = np.load(path / "ids.npy", mmap_mode="r")
        self.weights = np.load(path / "weights.npy", mmap_mode="r")
        self.bounds = np.load(path / "bounds.npy", mmap_mode="r")
        self.positions_ = np.load(path / "positions.npy", mmap_mode="r")

    def _range(self, text: str) -> tuple[int, int]:
        i = self.terms.get(text)
        return (0, 0) if i is None else (int(self.starts[i]), int(self.starts[i + 1]))

    def postings(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        start, end = self._range(text)
        return self.ids[start:end], self.weights[start:end]

    def positions_of(self, text: str, doc: int) -> np.ndarray:
        """The term's positions in one document (empty when it does not hold the term)."""
        start, end = self._range(text)
        k = start + int(np.searchsorted(self.ids[start:end], doc))
        if k >= end or self.ids[k] != doc:
            return self.positions_[:0]
        return self.positions_[int(self.bounds[k]):int(self.bounds[k + 1])]

    def positions(self, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The term's documents, where each one's positions start (one more entry than
        documents, from 0) and the positions."""
        start, end = self._range(text)
        bounds = self.bounds[start:end + 1].astype(np.int64)
        first, last = int(bounds[0]), int(bounds[-1])
        return self.ids[start:end], bounds - first, self.positions_[first:last]


_opened: dict[tuple[str, str, str], FieldArrays | None] = {}
_lock = threading.Lock()


def field_arrays(reader: IndexReader, fieldname: str) -> FieldArrays | None:
    """The segment's arrays of the field, or None when the index has none for it (an index
    written before them, or a segment being written)."""
    if not isinstance(reader, SegmentReader) or fieldname not in FIELDS:
        return None
    folder = getattr(reader.storage(), "folder", None)
    if folder is None:
        return None
    segment = reader.segment().segment_id()
    key = (folder, segment, fieldname)
    with _lock:
        if key in _opened:
            return _opened[key]
    path = Path(folder) / ARRAYS_DIR / f"{segment}.{fieldname}"
    try:
        found: FieldArrays | None = FieldArrays(path)
    except OSError:
        found = None
    with _lock:
        if len(_opened) > 256:
            _opened.clear()
        _opened[key] = found
    return found
