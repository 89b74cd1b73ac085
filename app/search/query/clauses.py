"""Analyzed tokens as the Whoosh clause that finds them in a paper's headline or abstract, the
headline weighted up (`weights.WEIGHTS.headline_match`): what a query's words, their synonyms
and their families become.

A phrase knows the stop words between its words. The index drops a few stop words ("of",
"the") but stores, with each word's position, how many stood just before it
(analysis.stored_position). A phrase written out (typed in quotes, a hyphenated word, a
synonym or an acronym's long form) knows its gaps (`Tokens`, `GappedPhrase`) and matches
only where the text has as many: "in-context learning" no longer finds "in the context of
learning", and "mixture of experts" still finds "mixture-of-experts". A phrase made of
analyzed words alone (gaps unknown) matches across stop words, as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from whoosh.query import Or, Phrase, Query, Term

from app.search.rank import weights
from app.search.words.analysis import MAX_STOPS, catalog_analyzer


class Alternatives(Or):
    """The words a question offers as alternatives, "sort or do arithmetic": one part, which a
    paper holds when it holds either (question.alternatives)."""


class Tokens(tuple[str, ...]):
    """Analyzed words that know how many stop words stood between each and the one before
    (`gaps`); equal to the plain tuple of the same words."""

    gaps: tuple[int, ...] | None

    def __new__(cls, words: Iterable[str], gaps: Iterable[int] | None) -> Tokens:
        tokens = super().__new__(cls, words)
        tokens.gaps = tuple(min(gap, MAX_STOPS) for gap in gaps) if gaps is not None else None
        return tokens


def analyze_phrase(text: str) -> Tokens:
    """The text's terms, as `analysis.analyze` gives them, with the stop words between them
    as the analyzer counts them under each position (`analysis.stored_position`)."""
    placed = [(token.text, token.pos) for token in catalog_analyzer()(text, positions=True)]
    return Tokens([term for term, _ in placed], [pos & MAX_STOPS for _, pos in placed[1:]])


def gaps_of(tokens: tuple[str, ...]) -> tuple[int, ...] | None:
    return getattr(tokens, "gaps", None)


class GappedPhrase(Phrase):
    """Whoosh's phrase with the stop words between its words (None: any number). Matched
    from the positions' arrays (matches.py); Whoosh's own phrase matcher cannot read the
    stop words under a position, so a query goes to Whoosh's searcher through
    `matches.whoosh_query`."""

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


def text_query(tokens: tuple[str, ...], weight: float = 1.0) -> Query:
    """Match analyzed tokens in headline or abstract: a term, or a phrase for several (with
    the stop words between them when the tokens know them, `Tokens`)."""
    if len(tokens) == 1:
        return Or([Term("headline", tokens[0], boost=weights.WEIGHTS.headline_match * weight),
                   Term("text", tokens[0], boost=weight)])
    gaps = gaps_of(tokens)
    return Or([GappedPhrase("headline", list(tokens), gaps=gaps,
                            boost=weights.WEIGHTS.headline_match * weight),
               GappedPhrase("text", list(tokens), boost=weight, gaps=gaps)])
