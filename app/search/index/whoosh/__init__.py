"""Everything that reaches into Whoosh's private internals, in one place, so the rest of the
search package reads as our own code: the W3 codec's posting blocks and field lengths
(reading.py), a segment written in bulk in Whoosh's own bytes (writing.py, which the index
builder imports itself), and the spelling corrector ranked by use (corrector.py).

Indexes are opened and created only through `open_index` and `create_index`: they put the
decoded field lengths in place first, which Whoosh's writers and scorers then read (a
process-wide patch that callers would otherwise have to remember).
"""

from __future__ import annotations

from pathlib import Path

from whoosh import index as whoosh_index
from whoosh.fields import Schema

from app.search.index.whoosh.reading import (
    SegmentLengthBM25F,
    decode_positions,
    decode_postings,
    open_index,
    segment_lengths,
    use_decoded_lengths,
)

__all__ = [
    "SegmentLengthBM25F", "create_index", "decode_positions", "decode_postings", "open_index",
    "segment_lengths",
]


def create_index(directory: Path | str, schema: Schema) -> whoosh_index.Index:
    """A new, empty index in `directory`, as `open_index` would open it."""
    use_decoded_lengths()
    return whoosh_index.create_in(str(directory), schema)
