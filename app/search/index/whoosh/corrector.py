"""Whoosh's spelling corrector ranked by use: it overrides the list corrector's private
`_suggestions`, so it lives with the other code that reaches into Whoosh's internals."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from whoosh.spelling import ListCorrector


class FrequencyCorrector(ListCorrector):
    """Whoosh's corrector over a sorted word list, ranking by edit distance and then by how
    many papers use the word (the list corrector alone ranks equally close words by name)."""

    def __init__(self, words: Sequence[str], df: Mapping[str, int]) -> None:
        super().__init__(words)
        self.df = df

    def _suggestions(self, text: str, maxdist: int, prefix: int) -> Iterator[tuple[float, str]]:
        for distance, word in super()._suggestions(text, maxdist, prefix):
            if word != text:
                yield distance - 0.5 / self.df[word], word
