"""Posting lists as arrays beside the index, written when the index is, memory-mapped by
every worker.

Whoosh keeps a term's postings in pickled, compressed blocks; a search that meets a word
for the first time unpickled them in Python (at L, a first-time search's main cost under
load, profiled). Written as plain arrays when a segment is (a bulk build has them sorted
already; an incremental update's segment is decoded from Whoosh's blocks), they are a slice
of a memory-mapped file for every search after, shared by the workers through the page cache.

Layout, per segment and field: `arrays/<segment>.<field>/` with `terms.txt` (the terms, one
a line, in the order of their postings), `starts.npy` (where each term's postings begin; one
more entry than terms), `ids.npy` (segment document numbers, uint32), `weights.npy` (term
frequencies as Whoosh weighs them, float32), `bounds.npy` (where each posting's positions
begin, uint32; one more entry than postings) and `positions.npy` (int32). Deleted documents
stay in the arrays, as in Whoosh's own postings: readers filter them.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from array import array
from pathlib import Path

import numpy as np
from whoosh.reading import IndexReader, SegmentReader

from app.search.postings import FieldPostings, as_numpy
from app.search.whoosh_adapter import decode_positions, open_index

ARRAYS_DIR = "arrays"
FIELDS = ("headline", "text")  # the fields words are searched in


def write_arrays(directory: Path) -> None:
    """Write the arrays of every segment of the index that lacks them; drop those of
    segments the index no longer has (merged away)."""
    ix = open_index(directory)
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
    """Decode the segment's postings of the field from Whoosh's blocks and save them."""
    terms: list[bytes] = []
    starts = array("q", [0])
    ids, weights = array("I"), array("f")
    bounds, positions = array("q", [0]), array("i")
    if fieldname in reader.schema:
        for term in reader.lexicon(fieldname):
            decoded = decode_positions(reader, fieldname, term)
            terms.append(term)
            ids.extend(decoded.ids)
            weights.extend(decoded.weights)
            starts.append(len(ids))
            bounds.extend(b + len(positions) for b in decoded.bounds[1:])
            positions.extend(decoded.positions)
    _save(target, FieldPostings(terms, as_numpy(starts, np.int64), as_numpy(ids, np.uint32),
                                as_numpy(weights, np.float32), as_numpy(bounds, np.int64),
                                as_numpy(positions, np.int32)))


def save_field(directory: Path, segment: str, fieldname: str, postings: FieldPostings) -> None:
    """Write the arrays of a segment being written (a bulk build has its postings sorted)."""
    if fieldname in FIELDS:
        _save(directory / ARRAYS_DIR / f"{segment}.{fieldname}", postings)


def _save(target: Path, postings: FieldPostings) -> None:
    assert postings.bounds is not None and postings.positions is not None
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}")
    tmp.mkdir(parents=True)
    (tmp / "terms.txt").write_bytes(b"\n".join(postings.terms))
    np.save(tmp / "starts.npy", postings.starts.astype(np.int64))
    np.save(tmp / "ids.npy", postings.ids.astype(np.uint32))
    np.save(tmp / "weights.npy", postings.weights.astype(np.float32))
    np.save(tmp / "bounds.npy", postings.bounds.astype(np.uint32))
    np.save(tmp / "positions.npy", postings.positions.astype(np.int32))
    os.replace(tmp, target)


def _mapped(path: Path) -> np.ndarray:
    """The file's array, memory-mapped, as a plain array: each slice of numpy's memmap runs
    Python code (4 % of a worker's time under load, profiled), a plain array's does not."""
    return np.asarray(np.load(path, mmap_mode="r"))


class FieldArrays:
    """One segment's postings of one field, memory-mapped."""

    def __init__(self, path: Path) -> None:
        words = (path / "terms.txt").read_bytes()
        self.terms = {term.decode("utf-8"): i
                      for i, term in enumerate(words.split(b"\n") if words else [])}
        self.starts = _mapped(path / "starts.npy")
        self.ids = _mapped(path / "ids.npy")
        self.weights = _mapped(path / "weights.npy")
        self.bounds = _mapped(path / "bounds.npy")
        self.positions_ = _mapped(path / "positions.npy")

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
