"""Everything that reaches into Whoosh's private internals, in one place, so the rest of the
search package reads as our own code: the W3 codec's posting blocks and field lengths
(reading.py), a segment written in bulk in Whoosh's own bytes (writing.py), and the spelling
corrector ranked by use.

Indexes are opened and created only through `open_index` and `create_index`: they put the
decoded field lengths in place first, which Whoosh's writers and scorers then read (a
process-wide patch that callers would otherwise have to remember).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh.fields import Schema
from whoosh.spelling import ListCorrector

from app.search.whoosh_adapter.reading import (
    SegmentLengthBM25F,
    decode_positions,
    decode_postings,
    open_index,
    segment_lengths,
    use_decoded_lengths,
)
from app.search.whoosh_adapter.writing import BulkSegmentWriter

__all__ = [
    "BulkSegmentWriter", "FrequencyCorrector", "SegmentLengthBM25F",
    "create_index", "decode_positions", "decode_postings", "open_index", "segment_lengths",
]


def create_index(directory: Path | str, schema: Schema) -> whoosh_index.Index:
    """A new, empty index in `directory`, as `open_index` would open it."""
    use_decoded_lengths()
    return whoosh_index.create_in(str(directory), schema)


class FrequencyCorrector(ListCorrector):
    """Whoosh's corrector over a sorted word list, ranking by edit distance and then by how
    many papers use the word (the list corrector alone ranks equally close words by name)."""

    def __init__(self, words: list[str], df: dict[str, int]) -> None:
        super().__init__(words)
        self.df = df

    def _suggestions(self, text: str, maxdist: int, prefix: int) -> Iterator[tuple[float, str]]:
        for distance, word in super()._suggestions(text, maxdist, prefix):
            if word != text:
                yield distance - 0.5 / self.df[word], word
