"""Field lengths decoded once per segment, for the index writer and for BM25F scoring.

Whoosh looks a document's field length up through the segment's length column for every
posting it writes (block statistics) and every document it scores: a file read and a struct
unpack each time, and, for fields without lengths (ID, NUMERIC, KEYWORD), a stat() of the
disk. Profiled, that was 14 % of building an index and 70 % of scoring "learning" at S. A
segment's lengths never change once its column is written, so each column is decoded once
into an array, kept per segment and field.
"""

from __future__ import annotations

from array import array

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3PerDocReader
from whoosh.reading import IndexReader, SegmentReader
from whoosh.scoring import BM25F, BaseScorer, BM25FScorer
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

_DECODED = [byte_to_length(byte) for byte in range(256)]
_SEGMENTS_KEPT = 256  # (segment, field) pairs: a few KB per thousand documents each
_lengths: dict[tuple[str, str], array | None] = {}


def decoded_lengths(perdoc: W3PerDocReader, fieldname: str) -> array | None:
    """Every document's length of the field in one segment, by document number; None when
    the field keeps no lengths."""
    key = (perdoc._segment.segment_id(), fieldname)
    try:
        return _lengths[key]
    except KeyError:
        pass
    column = perdoc._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
    lengths = None if column is None else array("I", (_DECODED[byte] for byte in column))
    if len(_lengths) >= _SEGMENTS_KEPT:
        _lengths.clear()
    _lengths[key] = lengths
    return lengths


def _doc_field_length(self: W3PerDocReader, docnum: int, fieldname: str,
                      default: int = 0) -> int:
    lengths = decoded_lengths(self, fieldname)
    return default if lengths is None else lengths[docnum]


W3PerDocReader.doc_field_length = _doc_field_length  # type: ignore[method-assign]


class SegmentLengthBM25F(BM25F):
    """Whoosh's BM25F (same B, K1 and formula) reading field lengths straight from the
    decoded arrays, without the four calls between a scorer and the column."""

    def scorer(self, searcher: Searcher, fieldname: str, text: bytes,
               qf: float = 1) -> BaseScorer:
        scorer = super().scorer(searcher, fieldname, text, qf)
        reader: IndexReader = searcher.reader()
        if isinstance(scorer, BM25FScorer) and isinstance(reader, SegmentReader):
            perdoc = reader._perdoc
            lengths = decoded_lengths(perdoc, fieldname) if isinstance(
                perdoc, W3PerDocReader) else None
            if lengths is not None:
                scorer.dfl = lengths.__getitem__
        return scorer
