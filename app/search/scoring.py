"""BM25F exactly as Whoosh computes it, with each segment's field lengths decoded once.

Whoosh's scorer looks up every scored document's field length through the segment's length
column: a file read and a struct unpack per document and field, 70 % of the time spent
scoring (profiled: "learning", "deep learning" and "neural network" at S). A segment's
lengths never change once it is written, so they are decoded once into an array per segment
and field and shared by every searcher of that segment.
"""

from __future__ import annotations

from array import array

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3PerDocReader
from whoosh.reading import IndexReader, SegmentReader
from whoosh.scoring import BM25F, BaseScorer, BM25FScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

# Whoosh stores a length as one byte; a document without the field reads as length 1, as
# Searcher.doc_field_length's default gives it.
_DECODED = [byte_to_length(byte) or 1 for byte in range(256)]
_SEGMENTS_KEPT = 64
_lengths: dict[tuple[str, str], array] = {}


def segment_lengths(reader: IndexReader, fieldname: str) -> array | None:
    """Every document's length of the field in one segment, by document number (None when
    the reader is not a single Whoosh 3 segment)."""
    if not isinstance(reader, SegmentReader):
        return None
    perdoc = reader._perdoc
    if not isinstance(perdoc, W3PerDocReader):
        return None
    key = (reader.segment().segment_id(), fieldname)
    lengths = _lengths.get(key)
    if lengths is None:
        column = perdoc._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
        if column is None:
            return None
        lengths = array("I", (_DECODED[byte] for byte in column))
        if len(_lengths) >= _SEGMENTS_KEPT:
            _lengths.clear()
        _lengths[key] = lengths
    return lengths


class SegmentLengthBM25F(BM25F):
    """Whoosh's BM25F (same B, K1 and formula) reading field lengths from the arrays."""

    def scorer(self, searcher: Searcher, fieldname: str, text: bytes,
               qf: float = 1) -> BaseScorer:
        scorer = super().scorer(searcher, fieldname, text, qf)
        if isinstance(scorer, BM25FScorer):
            lengths = segment_lengths(searcher.reader(), fieldname)
            if lengths is not None:
                scorer.dfl = lengths.__getitem__
        return scorer
