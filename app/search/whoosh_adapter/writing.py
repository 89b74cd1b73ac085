"""Writing a segment the way Whoosh's own writer would, in bulk: `BulkSegmentWriter`, Whoosh's
segment writer with the postings collected in arrays (app/search/postings.py) and written to
the codec a block at a time, in the very bytes Whoosh's own writer produces (a test compares
the files)."""

from __future__ import annotations

from array import array
from collections.abc import Callable

import numpy as np
from whoosh.codec.whoosh3 import (
    W3FieldWriter,
    W3PostingsWriter,
)
from whoosh.fields import FieldType
from whoosh.index import Index
from whoosh.writing import SegmentWriter

from app.search.analysis import AnalyzedPositions, CachedAnalyzer
from app.search.postings import FieldCollector, FieldPostings
from app.search.whoosh_adapter.reading import decoded_lengths

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
                decoded = decoded_lengths(lengths, name)
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
