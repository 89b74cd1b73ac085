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

This module is also the one place where Whoosh's private internals are read (W3 blocks,
pickled position values, length columns) or patched (`use_decoded_lengths`, an explicit call);
the rest of the search package uses what it returns.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from pickle import loads

import numpy as np
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher, W3PerDocReader
from whoosh.formats import Positions
from whoosh.matching.mcore import Matcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.reading import IndexReader, SegmentReader, TermNotFound
from whoosh.scoring import BM25F, BaseScorer, BM25FScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

ARRAYS_DIR = "arrays"
FIELDS = ("headline", "text")  # the fields words are searched in


def _leaf_matcher(reader: IndexReader, fieldname: str, text: object) -> Matcher | None:
    """The term's own posting matcher in one segment (unwrapped from the filter Whoosh puts
    around it for deleted documents), or None when the segment lacks the term."""
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return None
    return matcher.child if isinstance(matcher, FilterMatcher) else matcher


def _is_blocked(matcher: Matcher) -> bool:
    """Whether the matcher is Whoosh's W3 block reader with delta-coded document numbers,
    which this module decodes a block at a time."""
    return isinstance(matcher, W3LeafMatcher) and not matcher._byteids


def decode_postings(reader: IndexReader, fieldname: str, text: object) -> tuple[array, array]:
    """A term's postings in one segment: document numbers and weights, decoded a block at a
    time (document numbers are stored as deltas)."""
    ids, weights = array("I"), array("f")
    matcher = _leaf_matcher(reader, fieldname, text)
    if matcher is not None and not _is_blocked(matcher):
        for doc, weight in matcher.items_as("weight"):
            ids.append(doc)
            weights.append(weight)
        return ids, weights
    while matcher is not None and matcher.is_active():
        matcher._read_weights()  # reads the block; weights may be stored compactly
        ids.extend(accumulate(matcher._data[0]))
        weights.extend(matcher._weights)
        matcher._next_block()
    return ids, weights


# A posting block, read: its document numbers, weights and encoded values.
Block = tuple[list[int], list[float], list[bytes]]


def value_blocks(reader: IndexReader, fieldname: str, word: object) -> Iterator[Block]:
    """The term's postings with their values, a block at a time."""
    matcher = _leaf_matcher(reader, fieldname, word)
    if matcher is None:
        return
    if not _is_blocked(matcher):
        block: Block = ([], [], [])
        while matcher.is_active():
            block[0].append(matcher.id())
            block[1].append(matcher.weight())
            block[2].append(matcher.value())
            matcher.next()
        yield block
        return
    while matcher.is_active():
        matcher._read_weights()  # a block's ids, weights and values are one pickle
        matcher._read_values()
        yield list(accumulate(matcher._data[0])), list(matcher._weights), matcher._values
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


@dataclass
class DecodedPositions:
    """A term's postings with positions: the positions of ids[k] (weighed weights[k]) are
    positions[bounds[k]:bounds[k + 1]]."""

    ids: list[int] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    bounds: list[int] = field(default_factory=lambda: [0])
    positions: list[int] = field(default_factory=list)


def decode_positions(reader: IndexReader, fieldname: str, word: object) -> DecodedPositions:
    decode = position_decoder(reader, fieldname)
    decoded = DecodedPositions()
    for ids, weights, values in value_blocks(reader, fieldname, word):
        decoded.ids.extend(ids)
        decoded.weights.extend(weights)
        for value in values:
            decoded.positions.extend(decode(value))
            decoded.bounds.append(len(decoded.positions))
    return decoded


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
            decoded = decode_positions(reader, fieldname, term)
            terms.append(term)
            ids.extend(decoded.ids)
            weights.extend(decoded.weights)
            starts.append(len(ids))
            bounds.extend(b + len(positions) for b in decoded.bounds[1:])
            positions.extend(decoded.positions)
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

# --- field lengths ------------------------------------------------------------------------------
# Whoosh looks a document's field length up through the segment's length column for every
# posting it writes (block statistics) and every document it scores: a file read and a struct
# unpack each time, and, for fields without lengths, a stat() of the disk (14 % of building an
# index and 70 % of scoring a common word, profiled). A segment's lengths never change once
# written, so each column is decoded once per reader into an array.

_DECODED = [byte_to_length(byte) for byte in range(256)]


def _decoded_lengths(perdoc: W3PerDocReader, fieldname: str) -> array | None:
    kept: dict[str, array | None] = perdoc.__dict__.setdefault("_decoded_lengths", {})
    if fieldname not in kept:
        column = perdoc._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
        kept[fieldname] = None if column is None else array(
            "I", (_DECODED[byte] for byte in column))
    return kept[fieldname]


def segment_lengths(reader: IndexReader, fieldname: str) -> array | None:
    """Every document's length of the field in the reader's segment, by document number;
    None when the field keeps no lengths or the reader is not one W3 segment."""
    perdoc = getattr(reader, "_perdoc", None)
    return _decoded_lengths(perdoc, fieldname) if isinstance(perdoc, W3PerDocReader) else None


def _doc_field_length(self: W3PerDocReader, docnum: int, fieldname: str,
                      default: int = 0) -> int:
    lengths = _decoded_lengths(self, fieldname)
    return default if lengths is None else lengths[docnum]


def use_decoded_lengths() -> None:
    """Make Whoosh's writers and scorers read field lengths from the decoded arrays. Called
    before an index is opened for writing or searching; calling it again changes nothing."""
    W3PerDocReader.doc_field_length = _doc_field_length  # type: ignore[method-assign]


class SegmentLengthBM25F(BM25F):
    """Whoosh's BM25F (same B, K1 and formula) reading field lengths straight from the
    decoded arrays, without the four calls between a scorer and the column."""

    def scorer(self, searcher: Searcher, fieldname: str, text: bytes,
               qf: float = 1) -> BaseScorer:
        scorer = super().scorer(searcher, fieldname, text, qf)
        lengths = segment_lengths(searcher.reader(), fieldname)
        if isinstance(scorer, BM25FScorer) and lengths is not None:
            scorer.dfl = lengths.__getitem__
        return scorer
