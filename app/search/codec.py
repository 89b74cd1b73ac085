"""Whoosh's W3 codec from the inside: the one module that reads or patches Whoosh's private
internals, so the rest of the search package reads as our own code.

- Reading: a term's posting blocks decoded a block at a time (document numbers are stored as
  deltas, position values as pickled deltas), for the posting arrays beside the index.
- Field lengths: decoded once per segment reader into an array, for Whoosh's writer and
  scorer (`use_decoded_lengths`, an explicit call) and for ours.
- Writing: `BulkSegmentWriter`, Whoosh's segment writer with the postings collected in
  arrays (app/search/postings.py) and written to the codec a block at a time, in the very
  bytes Whoosh's own writer produces (a test compares the files).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pickle import loads

import numpy as np
from whoosh.codec.whoosh3 import (
    LENGTHS_COLUMN,
    W3FieldWriter,
    W3LeafMatcher,
    W3PerDocReader,
    W3PostingsWriter,
)
from whoosh.columns import NumericColumn
from whoosh.fields import FieldType
from whoosh.formats import Positions
from whoosh.index import Index
from whoosh.matching.mcore import Matcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.reading import IndexReader, TermNotFound
from whoosh.scoring import BM25F, BaseScorer, BM25FScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length
from whoosh.writing import SegmentWriter

from app.search.analysis import AnalyzedPositions, CachedAnalyzer
from app.search.postings import FieldCollector, FieldPostings

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

# --- field lengths ------------------------------------------------------------------------------
# Whoosh looks a document's field length up through the segment's length column for every
# posting it writes (block statistics) and every document it scores: a file read and a struct
# unpack each time, and, for fields without lengths, a stat() of the disk (14 % of building an
# index and 70 % of scoring a common word, profiled). A segment's lengths never change once
# written, so each column is decoded once per reader into an array.

_DECODED = np.array([byte_to_length(byte) for byte in range(256)], dtype=np.uint32)


def _decoded_lengths(perdoc: W3PerDocReader, fieldname: str) -> array | None:
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


# --- writing a segment in bulk ------------------------------------------------------------------
# Whoosh's writer sends each posting through a sorting pool and then, one Python call per
# posting, into the codec (3.5 ms a paper at L, most of an ingest, profiled). This writer
# keeps Whoosh's per-document writer (stored fields, lengths, columns) and its segment and
# TOC handling, collects the postings in arrays, and fills the codec's block buffers a block
# at a time. Position values are encoded for all postings at once: Whoosh's Positions format
# is the count (4 bytes, big-endian) then the pickle (protocol 2) of the list of deltas.

_ENCODE_CHUNK = 1 << 20  # postings whose position values are encoded at once
_PICKLE_BATCH = 1000  # pickle writes longer lists in batches of this many items


def _is_positional(fieldobj: FieldType) -> bool:
    return (isinstance(fieldobj.format, AnalyzedPositions)
            and isinstance(fieldobj.analyzer, CachedAnalyzer))


class BulkSegmentWriter(SegmentWriter):
    """A writer of one new segment whose postings are sorted in bulk. `on_postings` sees each
    field's sorted postings before they are written (segment ID, field name, postings: for
    the arrays beside the index)."""

    def __init__(self, ix: Index,
                 on_postings: Callable[[str, str, FieldPostings], None]) -> None:
        for name, fieldobj in ix.schema.items():
            if fieldobj.vector or fieldobj.separate_spelling():
                raise ValueError(f"field {name!r}: vectors and spelling are not written in bulk")
        # compound=False: opening a compound segment copies it into memory; separate files don't.
        super().__init__(ix, compound=False)
        self.on_postings = on_postings
        self.collectors = {
            name: FieldCollector(_is_positional(fieldobj),
                                 getattr(fieldobj.format, "field_boost", 1.0))
            for name, fieldobj in self.schema.items() if fieldobj.indexed}

    def add_document(self, **fields: object) -> None:
        """As Whoosh's add_document, for documents without boosts or `_stored_` values."""
        self._check_state()
        names = sorted(fields)
        self._check_fields(self.schema, names)
        perdoc, docnum = self.perdocwriter, self.docnum
        perdoc.start_doc(docnum)
        for name in names:
            value = fields[name]
            if value is None:
                continue
            fieldobj = self.schema[name]
            length = self._collect(name, fieldobj, docnum, value) if fieldobj.indexed else 0
            perdoc.add_field(name, fieldobj, value if fieldobj.stored else None, length)
            if fieldobj.column_type:
                perdoc.add_column_value(name, fieldobj.column_type,
                                        fieldobj.to_column_value(value))
        perdoc.finish_doc()
        self._added = True
        self.docnum += 1

    def _collect(self, name: str, fieldobj: FieldType, docnum: int, value: object) -> int:
        """Add the value's postings; returns the field's length in the document (scored
        fields only, as Whoosh counts it)."""
        collector = self.collectors[name]
        length = 0
        if collector.positional:
            positions = fieldobj.analyzer.positions(value)
            collector.add_positions(docnum, positions)
            length = sum(map(len, positions.values()))
        else:
            for term, freq, weight, encoded in fieldobj.index(value):
                collector.add_value(docnum, term, weight, encoded)
                length += freq
        return length if fieldobj.scorable else 0

    def _flush_segment(self) -> None:
        self.perdocwriter.close()
        lengths = self.per_document_reader()
        try:
            for name in sorted(self.collectors):
                collector = self.collectors.pop(name)  # its arrays go once sorted
                if not len(collector):
                    continue  # Whoosh writes no field without postings
                postings = collector.sorted()
                del collector
                self.on_postings(self.newsegment.segment_id(), name, postings)
                decoded = _decoded_lengths(lengths, name)
                doc_lengths = (np.frombuffer(decoded, dtype=np.uint32) if decoded
                               else np.zeros(self.docnum, dtype=np.uint32))
                _write_field(self.fieldwriter, name, self.schema[name], postings, doc_lengths)
            self.fieldwriter.close()
        finally:
            lengths.close()


def _write_field(writer: W3FieldWriter, name: str, fieldobj: FieldType,
                 postings: FieldPostings, doc_lengths: np.ndarray) -> None:
    """The field's terms and posting blocks, as W3FieldWriter.add_postings writes them
    (`doc_lengths`: each document's field length as Whoosh's length column decodes it)."""
    writer.start_field(name, fieldobj)
    encoded = _EncodedValues(postings, fieldobj)
    for i, term in enumerate(postings.terms):
        start, end = postings.term_range(i)
        writer.start_term(term)
        block_writer = writer._postwriter
        for first in range(start, end, block_writer._blocklimit):
            last = min(first + block_writer._blocklimit, end)
            _fill_block(block_writer, postings.ids[first:last], postings.weights[first:last],
                        encoded.values(first, last), doc_lengths[postings.ids[first:last]])
            if last < end:
                block_writer._write_block()
        writer.finish_term()  # writes the last block, marked as the last
    writer.finish_field()


def _fill_block(block_writer: W3PostingsWriter, ids: np.ndarray, weights: np.ndarray,
                values: list[bytes], lengths: np.ndarray) -> None:
    """Put a block's postings in the writer's buffer, with the statistics add_posting keeps."""
    block_writer._ids = array("I", ids.astype(np.uint32).tobytes())
    block_writer._weights = array("f", weights.tobytes())
    block_writer._values = values
    block_writer._maxweight = float(weights.max())
    shortest, longest = int(lengths.min()), int(lengths.max())
    if not shortest:  # add_posting ignores a length of 0
        scored = lengths[lengths > 0]
        shortest = int(scored.min()) if len(scored) else None
    block_writer._minlength = shortest
    block_writer._maxlength = longest


class _EncodedValues:
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
