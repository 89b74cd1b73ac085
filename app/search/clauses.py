"""Analyzed tokens as the Whoosh clause that finds them in a paper's headline or abstract, the
headline weighted up (`weights.WEIGHTS.headline_match`): what a query's words, their synonyms
and their families become."""

from __future__ import annotations

from whoosh.query import Or, Query, Term

from app.search import weights
from app.search.phrase import GappedPhrase, gaps_of


def text_query(tokens: tuple[str, ...], weight: float = 1.0) -> Query:
    """Match analyzed tokens in headline or abstract: a term, or a phrase for several (with
    the stop words between them when the tokens know them, `phrase.Tokens`)."""
    if len(tokens) == 1:
        return Or([Term("headline", tokens[0], boost=weights.WEIGHTS.headline_match * weight),
                   Term("text", tokens[0], boost=weight)])
    gaps = gaps_of(tokens)
    return Or([GappedPhrase("headline", list(tokens), gaps=gaps,
                            boost=weights.WEIGHTS.headline_match * weight),
               GappedPhrase("text", list(tokens), boost=weight, gaps=gaps)])
