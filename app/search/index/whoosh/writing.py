"""Writing a segment the way Whoosh's own writer would, in bulk: `BulkSegmentWriter`, Whoosh's
segment writer with the postings collected in arrays (app/search/index/postings.py) and written a
field at a time: the files Whoosh's own writer produces, but for the posting blocks' data,
pickled otherwise and not compressed (`_block_data`; a test compares what Whoosh reads of
them, and the other files byte for byte)."""

from __future__ import annotations

import pickle
import struct
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

import numpy as np
from whoosh.analysis import IDTokenizer, RegexTokenizer
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC, W3FieldWriter, W3TermInfo
from whoosh.compat import dumps
from whoosh.fields import FieldType
from whoosh.filedb.filetables import OrderedHashWriter
from whoosh.formats import Existence, Frequency
from whoosh.index import Index
from whoosh.system import pack_uint, pack_ushort
from whoosh.util.numeric import length_to_byte
from whoosh.writing import SegmentWriter

from app.search.index.postings import (
    FieldCollector,
    FieldPostings,
    MergedRuns,
    RunOnDisk,
    save_run,
    term_slice,
)
from app.search.index.whoosh.encoding import EncodedValues
from app.search.index.whoosh.reading import decoded_lengths
from app.search.words.analysis import AnalyzedPositions, CachedAnalyzer

# --- writing a segment in bulk ------------------------------------------------------------------
# Whoosh's writer sends each posting through a sorting pool and then, one Python call per
# posting, into the codec (3.5 ms a paper at L, most of an ingest, profiled). This writer
# keeps Whoosh's per-document writer (stored fields, lengths, columns) and its segment and
# TOC handling, collects the postings in arrays, and writes the codec's blocks and term
# infos itself, with the position values encoded for all postings at once (encoding.py).


def _is_positional(fieldobj: FieldType) -> bool:
    return (isinstance(fieldobj.format, AnalyzedPositions)
            and isinstance(fieldobj.analyzer, CachedAnalyzer))


class PostingsSink(Protocol):
    def add(self, postings: FieldPostings) -> None: ...
    def close(self) -> None: ...


class BulkSegmentWriter(SegmentWriter):
    """A writer of one new segment whose postings are sorted in bulk. `on_postings` (given the
    segment ID, the field name and its merged runs) may give a sink that sees each field's
    sorted postings a range of terms at a time as they are written: for the arrays beside
    the index."""

    def __init__(self, ix: Index,
                 on_postings: Callable[[str, str, MergedRuns], PostingsSink | None]) -> None:
        for name, fieldobj in ix.schema.items():
            if fieldobj.vector or fieldobj.separate_spelling():
                raise ValueError(f"field {name!r}: vectors and spelling are not written in bulk")
        # compound=False: opening a compound segment copies it into memory; separate files don't.
        super().__init__(ix, compound=False)
        self.on_postings = on_postings
        self.collectors = self._new_collectors()
        self.runs: list[Path] = []  # the postings set aside so far, a directory each

    def _new_collectors(self) -> dict[str, FieldCollector]:
        return {name: FieldCollector(_is_positional(fieldobj),
                                     getattr(fieldobj.format, "field_boost", 1.0))
                for name, fieldobj in self.schema.items() if fieldobj.indexed}

    def spill(self, directory: Path) -> None:
        """Set the postings collected so far aside, sorted, as a run in `directory` (a new
        one), and collect anew: collecting holds a run's postings at most, and the segment is
        written a field at a time from its runs merged (app/search/index/postings.py), in the bytes
        of one writing."""
        for name, collector in self.collectors.items():
            if len(collector):
                save_run(directory / name, collector.drain())
        self.collectors = self._new_collectors()
        self.runs.append(directory)

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
            for term, freq, weight, encoded in _postings(fieldobj, value):
                collector.add_value(docnum, term, weight, encoded)
                length += freq
        return length if fieldobj.scorable else 0

    def _flush_segment(self) -> None:
        self.perdocwriter.close()
        lengths = self.per_document_reader()
        try:
            for name in sorted(self.collectors):
                collector = self.collectors.pop(name)  # its arrays go once sorted
                runs: list[FieldPostings | RunOnDisk] = [
                    RunOnDisk(run / name) for run in self.runs if (run / name).exists()]
                if len(collector):
                    runs.append(collector.drain())
                del collector
                if runs:  # Whoosh writes no field without postings
                    decoded = decoded_lengths(lengths, name)
                    doc_lengths = (np.frombuffer(decoded, dtype=np.uint32) if decoded
                                   else np.zeros(self.docnum, dtype=np.uint32))
                    self._write_field(name, MergedRuns(runs), doc_lengths)
            self.fieldwriter.close()
        finally:
            lengths.close()

    def _write_field(self, name: str, merged: MergedRuns, doc_lengths: np.ndarray) -> None:
        """The field's terms and posting blocks, as W3FieldWriter.add_postings writes them
        (`doc_lengths`: each document's field length as Whoosh's length column decodes it)."""
        sink = self.on_postings(self.newsegment.segment_id(), name, merged)
        fieldobj = self.schema[name]
        self.fieldwriter.start_field(name, fieldobj)
        for postings in merged.chunks():
            if sink is not None:
                sink.add(postings)
            _write_terms(self.fieldwriter, fieldobj, postings, doc_lengths)
        self.fieldwriter.finish_field()
        if sink is not None:
            sink.close()


def _postings(fieldobj: FieldType, value: object) -> Iterable[tuple[bytes, int, float, bytes]]:
    """fieldobj.index(value): an ID's value and a keyword field's words (and the venue's
    name) are counted here without Whoosh's Token per word, the same postings in the same
    order (ten such fields a paper were a tenth of an index build's adding, profiled)."""
    if not isinstance(value, str):
        return fieldobj.index(value)
    format_, analyzer = fieldobj.format, fieldobj.analyzer
    boost = format_.field_boost
    if format_.__class__ is Existence and analyzer.__class__ is IDTokenizer:
        return ((value.encode("utf-8"), 1, boost, b""),)
    if format_.__class__ is Frequency:
        if analyzer.__class__ is RegexTokenizer and not analyzer.gaps:
            counts = Counter(analyzer.expression.findall(value))
        elif analyzer.__class__ is CachedAnalyzer:
            counts = Counter({term: len(at) for term, at in analyzer.positions(value).items()})
        else:
            return fieldobj.index(value)
        return [(term.encode("utf-8"), n, n * boost, pack_uint(n))
                for term, n in counts.items()]
    return fieldobj.index(value)


def _write_terms(writer: W3FieldWriter, fieldobj: FieldType, postings: FieldPostings,
                 doc_lengths: np.ndarray) -> None:
    """The terms' posting blocks and term infos, as W3FieldWriter.add_postings writes them
    but for the blocks' data: pickled with protocol 5 and not compressed (`_block_data`).
    `doc_lengths`: each document's field length as Whoosh's length column decodes it."""
    ends, lo = postings.starts[1:], 0
    while lo < len(postings.terms):  # the blocks' statistics in lists: a part at a time
        hi = max(lo + 1, int(np.searchsorted(ends, postings.starts[lo] + _POSTINGS_AT_ONCE,
                                             side="right")))
        _write_part(writer, fieldobj, term_slice(postings, lo, hi), doc_lengths)
        lo = hi


def _write_part(writer: W3FieldWriter, fieldobj: FieldType, postings: FieldPostings,
                doc_lengths: np.ndarray) -> None:
    blocks = _Blocks(postings, writer._codec._blocklimit, doc_lengths)
    encoded = EncodedValues(postings, fieldobj)
    fixed = fieldobj.format.fixed_value_size()
    postfile, field_key = writer._postfile, pack_ushort(writer._fieldid)
    offset = postfile.tell()  # tracked here: each tell() on the file was a syscall
    parts: list[bytes] = []
    infos: list[tuple[bytes, bytes]] = []
    for i, term in enumerate(postings.terms):
        term_start, weight = offset, 0.0
        parts.append(WHOOSH3_HEADER_MAGIC)
        offset += len(WHOOSH3_HEADER_MAGIC)
        for b in range(blocks.first[i], blocks.first[i + 1]):
            first, last = blocks.starts[b], blocks.ends[b]
            block_weights = blocks.weights[first:last]
            weight += sum(block_weights)  # as W3TermInfo.add_block sums a block, in order
            data = _block_data(blocks.deltas[first:last], blocks.mini_weights(b, block_weights),
                               encoded.values(first, last), fixed)
            info = dumps((last - first, blocks.ids[last - 1], blocks.max_weight[b], 0,
                          length_to_byte(blocks.min_length[b]),
                          length_to_byte(blocks.max_length[b])), 2)
            size = len(info) + len(data)
            parts += (_INT.pack(-size if b == blocks.first[i + 1] - 1 else size), info, data)
            offset += _INT.size + size
        terminfo = blocks.term_info(i, weight)
        terminfo.set_extent(term_start, offset - term_start)
        infos.append((field_key + term, terminfo.to_bytes()))
    postfile.write(b"".join(parts))
    _add_terms(writer._tindex, infos)


def _add_terms(table: OrderedHashWriter, items: list[tuple[bytes, bytes]]) -> None:
    """table.add(key, value) of each item, in the same bytes, the file's offsets tracked: each
    add asked the file where it was twice (a sixth of writing the segment, profiled)."""
    offset, lastkey = table.dbfile.tell(), table.lastkey
    parts: list[bytes] = []
    for key, value in items:
        if key <= lastkey:
            raise ValueError(f"Keys must increase: {lastkey!r}..{key!r}")
        table.index.append(offset)
        h = table.hashfn(key)
        table.buckets[h & 255].append((h, offset))
        parts += (_KEY_VALUE_LENGTHS.pack(len(key), len(value)), key, value)
        offset += _KEY_VALUE_LENGTHS.size + len(key) + len(value)
        lastkey = key
    table.dbfile.write(b"".join(parts))
    table.lastkey = lastkey


# Block data as Whoosh's reader loads it (W3LeafMatcher._read_data: any pickle protocol,
# compressed or not as the block's info says). Protocol 2 pickles each position value
# through codecs.encode and zlib then compressed it: together 70 % of writing the segment,
# a third of an ingest's index build at L (with the rest written here, 46.6 -> 15.9 s; the
# postings file 174 -> 281 MB). Searches read the arrays beside the index, not these blocks.
_DATA_PROTOCOL = pickle.HIGHEST_PROTOCOL
_INT = struct.Struct("!i")  # StructFile.write_int
_KEY_VALUE_LENGTHS = struct.Struct("!ii")  # HashWriter.add's
# Postings whose blocks are written together: their statistics as Python lists cost ~100
# bytes a posting (a merge chunk's 2 M at once held 220 MB more at L).
_POSTINGS_AT_ONCE = 1 << 17


def _block_data(deltas: list[int], weights: object, values: list[bytes],
                fixed: int | None) -> bytes:
    """W3PostingsWriter's (_mini_ids, _mini_weights, _mini_values) of one block, pickled."""
    if fixed is None or fixed < 0:
        mini_values: object = tuple(values)
    else:
        mini_values = b"".join(values) if fixed else None
    return pickle.dumps((tuple(deltas), weights, mini_values), _DATA_PROTOCOL)


class _Blocks:
    """A chunk of postings cut into blocks of `limit` per term, with each block's statistics
    as W3PostingsWriter keeps them, computed for all blocks at once."""

    def __init__(self, postings: FieldPostings, limit: int, doc_lengths: np.ndarray) -> None:
        counts = np.diff(postings.starts)
        per_term = (counts + limit - 1) // limit
        first = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(per_term, out=first[1:])
        term_of = np.repeat(np.arange(len(counts)), per_term)
        within = np.arange(len(term_of)) - first[:-1][term_of]
        starts = postings.starts[:-1][term_of] + within * limit
        ends = np.minimum(starts + limit, postings.starts[1:][term_of])
        ids = postings.ids.astype(np.int64)
        deltas = ids.copy()
        deltas[1:] -= ids[:-1]
        deltas[starts] = ids[starts]  # a block's first ID is whole, the others deltas
        weights = postings.weights
        lengths = doc_lengths[postings.ids].astype(np.int64)
        longest = int(lengths.max(initial=0)) + 1
        shortest = np.minimum.reduceat(np.where(lengths > 0, lengths, longest), starts)
        self.first, self.starts, self.ends = first.tolist(), starts.tolist(), ends.tolist()
        self.ids, self.deltas, self.weights = ids.tolist(), deltas.tolist(), weights.tolist()
        self.max_weight = np.maximum.reduceat(weights, starts).tolist()
        self.min_weight = np.minimum.reduceat(weights, starts).tolist()
        self.max_length = np.maximum.reduceat(lengths, starts).tolist()
        # add_posting ignores a length of 0: a block of none has no shortest.
        self.min_length = [None if n == longest else n for n in shortest.tolist()]

    def mini_weights(self, block: int, weights: list[float]) -> object:
        """W3PostingsWriter._mini_weights: None when all are 1, one when all are alike."""
        low, high = self.min_weight[block], self.max_weight[block]
        if low == high:
            return None if low == 1.0 else low
        return tuple(weights)

    def term_info(self, term: int, weight: float) -> W3TermInfo:
        """The term's statistics, as W3TermInfo.add_block gathers them block by block."""
        first, last = self.first[term], self.first[term + 1]
        known = [n for n in self.min_length[first:last] if n is not None]
        return W3TermInfo(weight=weight, df=self.ends[last - 1] - self.starts[first],
                          minlength=min(known) if known else None,
                          maxlength=max(self.max_length[first:last]),
                          maxweight=max(self.max_weight[first:last]),
                          minid=self.ids[self.starts[first]],
                          maxid=self.ids[self.ends[last - 1] - 1])
