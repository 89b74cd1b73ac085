"""Reading Whoosh's W3 codec from the inside: a term's posting blocks decoded a block at a
time (document numbers are stored as deltas, position values as pickled deltas), for the
posting arrays beside the index; and field lengths decoded once per segment reader into an
array, for Whoosh's writer and scorer (patched in by `open_index`) and for ours."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate
from pathlib import Path
from pickle import loads

import numpy as np
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import (
    LENGTHS_COLUMN,
    W3LeafMatcher,
    W3PerDocReader,
)
from whoosh.columns import NumericColumn
from whoosh.formats import Positions
from whoosh.matching.mcore import Matcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.reading import IndexReader, TermNotFound
from whoosh.scoring import BM25F, BaseScorer, BM25FScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

from app.search.index.postings import TermPostings, as_numpy

# --- reading posting blocks ---------------------------------------------------------------------

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


def decode_postings(reader: IndexReader, fieldname: str, text: object) -> TermPostings:
    """A term's postings in one segment without their values: document numbers and weights,
    decoded a block at a time (document numbers are stored as deltas)."""
    ids, weights = array("I"), array("f")
    matcher = _leaf_matcher(reader, fieldname, text)
    if matcher is not None and not _is_blocked(matcher):
        for doc, weight in matcher.items_as("weight"):
            ids.append(doc)
            weights.append(weight)
    else:
        while matcher is not None and matcher.is_active():
            matcher._read_weights()  # reads the block; weights may be stored compactly
            ids.extend(accumulate(matcher._data[0]))
            weights.extend(matcher._weights)
            matcher._next_block()
    return TermPostings(as_numpy(ids, np.uint32), as_numpy(weights, np.float32))


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


def decode_positions(reader: IndexReader, fieldname: str, word: object) -> TermPostings:
    """A term's postings in one segment with their positions, decoded a block at a time."""
    decode = position_decoder(reader, fieldname)
    ids, weights = array("I"), array("f")
    bounds, positions = array("q", [0]), array("i")
    for block_ids, block_weights, values in value_blocks(reader, fieldname, word):
        ids.extend(block_ids)
        weights.extend(block_weights)
        for value in values:
            positions.extend(decode(value))
            bounds.append(len(positions))
    return TermPostings(as_numpy(ids, np.uint32), as_numpy(weights, np.float32),
                        as_numpy(bounds, np.int64), as_numpy(positions, np.int32))

# --- field lengths ------------------------------------------------------------------------------
# Whoosh looks a document's field length up through the segment's length column for every
# posting it writes (block statistics) and every document it scores: a file read and a struct
# unpack each time, and, for fields without lengths, a stat() of the disk (14 % of building an
# index and 70 % of scoring a common word, profiled). A segment's lengths never change once
# written, so each column is decoded once per reader into an array.

_DECODED = np.array([byte_to_length(byte) for byte in range(256)], dtype=np.uint32)


def decoded_lengths(perdoc: W3PerDocReader, fieldname: str) -> array | None:
    kept: dict[str, array | None] = perdoc.__dict__.setdefault("_decoded_lengths", {})
    if fieldname not in kept:
        column = perdoc._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
        kept[fieldname] = None if column is None else _column_lengths(
            column, perdoc.doc_count_all())
    return kept[fieldname]


def _column_lengths(column: NumericColumn.Reader, documents: int) -> array:
    """A length column's values: a byte per document, read at once (iterating the column
    took 0.1 s a field at L, on a worker's first search); documents past its end are 0."""
    raw = np.frombuffer(column._dbfile.get(column._basepos, column._count), dtype=np.uint8)
    lengths = np.zeros(documents, dtype=np.uint32)
    lengths[:len(raw)] = _DECODED[raw]
    return array("I", lengths.tobytes())


def segment_lengths(reader: IndexReader, fieldname: str) -> array | None:
    """Every document's length of the field in the reader's segment, by document number;
    None when the field keeps no lengths or the reader is not one W3 segment."""
    perdoc = getattr(reader, "_perdoc", None)
    return decoded_lengths(perdoc, fieldname) if isinstance(perdoc, W3PerDocReader) else None


def _doc_field_length(self: W3PerDocReader, docnum: int, fieldname: str,
                      default: int = 0) -> int:
    lengths = decoded_lengths(self, fieldname)
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


def open_index(directory: Path | str) -> whoosh_index.Index:
    """The index in `directory`, its searchers and writers reading the decoded lengths."""
    use_decoded_lengths()
    return whoosh_index.open_dir(str(directory))
