"""Writing a segment the way Whoosh's own writer would, in bulk: `BulkSegmentWriter`, Whoosh's
segment writer with the postings collected in arrays (app/search/postings.py) and written to
the codec a block at a time, in the very bytes Whoosh's own writer produces (a test compares
the files)."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np
from whoosh.codec.whoosh3 import (
    W3FieldWriter,
    W3PostingsWriter,
)
from whoosh.fields import FieldType
from whoosh.index import Index
from whoosh.writing import SegmentWriter

from app.search.analysis import AnalyzedPositions, CachedAnalyzer
from app.search.postings import (
    FieldCollector,
    FieldPostings,
    MergedRuns,
    RunOnDisk,
    save_run,
)
from app.search.whoosh_adapter.encoding import EncodedValues
from app.search.whoosh_adapter.reading import decoded_lengths

# --- writing a segment in bulk ------------------------------------------------------------------
# Whoosh's writer sends each posting through a sorting pool and then, one Python call per
# posting, into the codec (3.5 ms a paper at L, most of an ingest, profiled). This writer
# keeps Whoosh's per-document writer (stored fields, lengths, columns) and its segment and
# TOC handling, collects the postings in arrays, and fills the codec's block buffers a block
# at a time, with the position values encoded for all postings at once (encoding.py).


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
        written a field at a time from its runs merged (app/search/postings.py), in the bytes
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


def _write_terms(writer: W3FieldWriter, fieldobj: FieldType, postings: FieldPostings,
                 doc_lengths: np.ndarray) -> None:
    encoded = EncodedValues(postings, fieldobj)
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
