"""A phrase and the stop words between its words.

The index drops a few stop words ("of", "the") but stores, with each word's position, how
many stood just before it (analysis.stored_position). A phrase written out (typed in quotes,
a hyphenated word, a synonym or an acronym's long form) knows its own gaps and matches only
where the text has as many: "in-context learning" no longer finds "in the context of
learning", and "mixture of experts" still finds "mixture-of-experts". A phrase made of
analyzed words alone (gaps unknown) matches across stop words, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
from whoosh import matching
from whoosh.query import And, Phrase, Term
from whoosh.searching import Searcher

from app.search.analysis import MAX_STOPS, TOKEN_PATTERN, catalog_analyzer
from app.search.matches import matching_docs

_TOKEN = re.compile(TOKEN_PATTERN)


class Tokens(tuple[str, ...]):
    """Analyzed words that know how many stop words stood between each and the one before
    (`gaps`); equal to the plain tuple of the same words."""

    gaps: tuple[int, ...] | None

    def __new__(cls, words: Iterable[str], gaps: Iterable[int] | None) -> Tokens:
        tokens = super().__new__(cls, words)
        tokens.gaps = tuple(min(gap, MAX_STOPS) for gap in gaps) if gaps is not None else None
        return tokens


def analyze_phrase(text: str) -> Tokens:
    """The text's terms, as `analysis.analyze` gives them, with the stop words between."""
    normalize = catalog_analyzer().normalize
    words: list[str] = []
    gaps: list[int] = []
    stops = 0
    for word in _TOKEN.findall(text):
        term = normalize(word)
        if term is None:
            stops += 1
            continue
        if words:
            gaps.append(stops)
        words.append(term)
        stops = 0
    return Tokens(words, gaps)


def gaps_of(tokens: tuple[str, ...]) -> tuple[int, ...] | None:
    return getattr(tokens, "gaps", None)


class GappedPhrase(Phrase):
    """Whoosh's phrase with the stop words between its words (None: any number)."""

    def __init__(self, fieldname: str, words: list[str], slop: int = 1, boost: float = 1.0,
                 char_ranges: list[tuple[int, int]] | None = None,
                 gaps: tuple[int, ...] | None = None) -> None:
        super().__init__(fieldname, words, slop=slop, boost=boost, char_ranges=char_ranges)
        self.gaps = gaps

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and self.gaps == getattr(other, "gaps", None)

    def __hash__(self) -> int:
        return super().__hash__() ^ hash(self.gaps)

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, gaps={self.gaps})"

    def normalize(self) -> Phrase:
        normalized = super().normalize()
        if isinstance(normalized, GappedPhrase):
            normalized.gaps = self.gaps
        return normalized

    def matcher(self, searcher: Searcher, context: object = None) -> matching.Matcher:
        """The words' matcher (so scores add up as in Whoosh's phrase) kept to the documents
        where the phrase stands, found from the positions' arrays: Whoosh's own phrase
        matcher knows nothing of the stop words under a position."""
        docs = np.flatnonzero(matching_docs(searcher, self))
        if not docs.size:
            return matching.NullMatcher()
        words = And([Term(self.fieldname, word) for word in self.words])
        return matching.FilterMatcher(words.matcher(searcher, context), set(docs.tolist()),
                                      boost=self.boost)
