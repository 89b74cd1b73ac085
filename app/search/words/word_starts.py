"""Which words of a text can analyze to given terms, judged by their first letters alone:
what lets snippets analyze only the words that can match (analysis.CachedAnalyzer.spans)."""

from __future__ import annotations

import re
from functools import lru_cache

from whoosh.lang import porter2

from app.search.words import american_spelling, lemma_table
from app.search.words.analysis import TOKEN_PATTERN

# What a word analyzes to starts with the word's first START letters, lowercased (or fewer,
# where a suffix step leaves a shorter term), unless a lemma, a British spelling or one of
# Porter's exceptional forms starts otherwise ("was" → be, "oestrogen" → estrogen, "dying" →
# die) or the word holds a letter beyond ASCII (NFKC, Greek names, accents). So spans analyzes
# only the words that can match: analyzing every word of each hit's abstract was half of a
# first-time search's CPU.
START = 2


@lru_cache(maxsize=1)
def _changed_into() -> dict[str, frozenset[str]]:
    """Each start, and each shorter prefix of it (a term a suffix step shortens), → the starts
    of words whose lemma, American spelling or stem starts with it instead ("be" → "wa",
    "is", ...)."""
    porter = {(word[:START], stem[:START]) for word, stem in porter2.exceptional_forms.items()}
    into: dict[str, set[str]] = {}
    for start, becomes in {*lemma_table.changed_starts(START),
                           *american_spelling.changed_starts(START), *porter}:
        for length in range(len(becomes) + 1):
            into.setdefault(becomes[:length], set()).add(start)
    return {becomes: frozenset(starts) for becomes, starts in into.items()}


def possible_starts(terms: frozenset[str]) -> frozenset[str]:
    """The lowercase starts (START letters, fewer for a shorter term) of every ASCII word
    whose analysis can be one of `terms` or, for an acronym, its marker: the terms' own, and
    those that a lemma, a spelling or a stem changes into one of them, step after step."""
    into = _changed_into()
    starts = {term.lower()[:START] for term in terms}
    unseen = list(starts)
    while unseen:
        for start in into.get(unseen.pop(), ()):
            if start not in starts:
                starts.add(start)
                unseen.append(start)
    return frozenset(starts)


# Where _TOKEN's matches start: a word character after none, and not after a word's dot.
_TOKEN_START = r"(?<!\w)(?<!\w\.)"


@lru_cache(maxsize=1024)
def candidates(terms: frozenset[str], ascii_text: bool) -> re.Pattern[str]:
    """_TOKEN's matches that start as a word analyzed to one of `terms` can, or (unless the
    text is all ASCII) that hold a letter beyond ASCII."""
    starts = "|".join(re.escape(start) for start in sorted(possible_starts(terms)))
    beyond = "" if ascii_text else r"|[\w.]*[^\x00-\x7f]"
    return re.compile(rf"{_TOKEN_START}(?=(?i:{starts}){beyond}){TOKEN_PATTERN}")
