"""Posting lists as arrays beside the index, written when the index is, memory-mapped by
every worker.

Whoosh keeps a term's postings in pickled, compressed blocks; a search that meets a word
for the first time unpickled them in Python (at L, a first-time search's main cost under
load, profiled). Decoded once per segment when the index is built or updated (7.4 M postings
of the abstracts' text at L in ~7 s) and written as plain arrays, they are a slice of a
memory-mapped file for every search after, shared by the workers through the page cache.

Layout, per segment and field: `arrays/<segment>.<field>/` with `terms.txt` (the terms, one
a line, in the order of their postings), `starts.npy` (where each term's postings begin; one
more entry than terms), `ids.npy` (segment document numbers, uint32) and `weights.npy` (term
frequencies as Whoosh weighs them, float32). Deleted documents stay in the arrays, as in
Whoosh's own postings: readers filter them.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from array import array
from itertools import accumulate
from pathlib import Path

import numpy as np
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import W3LeafMatcher
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
    if fieldname in reader.schema:
        for term in reader.lexicon(fieldname):
            term_ids, term_weights = decode_postings(reader, fieldname, term)
            terms.append(term)
            ids.extend(term_ids)
            weights.extend(term_weights)
            starts.append(len(ids))
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}")
    tmp.mkdir(parents=True)
    (tmp / "terms.txt").write_bytes(b"\n".join(terms))
    np.save(tmp / "starts.npy", np.frombuffer(starts, dtype=np.int64))
    np.save(tmp / "ids.npy", np.frombuffer(ids, dtype=np.uint32) if ids else
            np.zeros(0, dtype=np.uint32))
    np.save(tmp / "weights.npy", np.frombuffer(weights, dtype=np.float32) if weights else
            np.zeros(0, dtype=np.float32))
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

    def postings(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        i = self.terms.get(text)
        if i is None:
            return self.ids[:0], self.weights[:0]
        start, end = int(self.starts[i]), int(self.starts[i + 1])
        return self.ids[start:end], self.weights[start:end]


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
