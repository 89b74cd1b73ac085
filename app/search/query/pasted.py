"""A pasted text (an abstract) in the search box: when a query is read as one, the filters typed
with it, and how many papers like it a search lists (pipeline.py reads it, similar.py ranks).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from whoosh.query import Query

from app.search.query.parts import FILTER_FIELDS
from app.search.query.question import OPERATORS

# A query of more words is a pasted text: answered by papers like it as a whole (similar.py),
# as 200 ANDed words would find nothing. It may be this long.
PASTED_TEXT_WORDS = 40
MAX_TEXT_CHARS = 10_000
# Its papers most like it: the best of more candidates, so filters leave some.
LIKE_TEXT_RESULTS = 100
LIKE_TEXT_CANDIDATES = 2000
# A filter typed with a text: a field the query language filters by, and a word or a quoted
# value that closes within a line (a text's quotes are its own words: an unclosed
# `author:"Ada` had taken the whole abstract for its value)...
_FILTER = rf'-?(?i:{"|".join(FILTER_FIELDS)}):(?:"[^"\n]{{1,100}}"|[^\s()"]+)'
# ...and the run of them that the query language would join: "venue:a OR venue:b" (each read
# alone, the two had been ANDed and OR left a word of the text), "NOT year:2019"
_RUN = re.compile(rf"(?<!\S)(?:NOT\s+)?{_FILTER}"
                  rf"(?:\s+(?:(?:OR|AND|&&)\s+)?(?:NOT\s+)?{_FILTER})*(?!\S)")
FILTERS_NAMED = 5  # filters checked alone where a query found nothing: each is matched
IMPASSABLE = "No paper in the catalog passes “{}”: remove it to see the papers found."
READ_AS_TEXT = "This {words}-word query was read as a text, not as words that must all match."
LIKE_TEXT_NOTE = READ_AS_TEXT[:-1] + (": these are the {n} papers{within} most like it as a whole "
                                      "(by the terms that most set it apart), as related papers "
                                      "are found.")
NO_KEY_TERMS_NOTE = ("This {words}-word query was read as a text, but none of its words is in "
                     "the catalog: no paper is like it.")


def is_pasted_text(raw: str) -> bool:
    """Whether a query is long enough to be a pasted text rather than words to match: more
    than `PASTED_TEXT_WORDS` words besides the filters and the operators typed with them (a
    query of 32 prefixes joined by OR is words to match, not a 63-word text)."""
    text, _ = typed_filters(raw[:MAX_TEXT_CHARS])
    return sum(word not in OPERATORS for word in text.split()) > PASTED_TEXT_WORDS


def typed_filters(raw: str) -> tuple[str, list[str]]:
    """The text without the filters typed into it (`venue:icml`, `-year:2019`,
    `author:"Yoshua Bengio"`, `NOT venue:a OR venue:b`), its words one space apart, and
    those runs of filters. In a pasted text they are its one piece of query language: an
    abstract's own quotes, hyphens and parentheses are words."""
    spans = [run.span() for run in _RUN.finditer(raw)]
    cuts = [0, *(at for span in spans for at in span), len(raw)]
    text = " ".join(raw[start:end] for start, end in zip(cuts[::2], cuts[1::2], strict=True))
    return " ".join(text.split()), [raw[start:end] for start, end in spans]


Parse = Callable[[str], Any]  # the query language's parser: a ParsedQuery
Matching = Callable[[Query], np.ndarray]  # a query's documents, as a mask


@dataclass(frozen=True)
class TypedFilters:
    """The runs of filters typed with a text, as the query language reads them."""

    applied: list[str]  # the runs in which it read a filter
    filters: list[str]  # each filter read, as typed
    queries: list[Query]
    notes: list[str]  # what it said of those it could not read

    @classmethod
    def read(cls, runs: list[str], parse: Parse) -> TypedFilters:
        reads = [parse(run) for run in runs]
        return cls([run for run, read in zip(runs, reads, strict=True) if read.query is not None],
                   [typed for read in reads for typed in read.filters],
                   [read.query for read in reads if read.query is not None],
                   [note for read in reads for note in read.notes])

    def passing(self, matching: Matching, documents: int) -> np.ndarray:
        """Which documents pass every filter read."""
        allowed = np.ones(documents, dtype=bool)
        for query in self.queries:
            allowed &= matching(query)
        return allowed


def impassable(filters: list[str], parse: Parse, matching: Matching) -> list[str]:
    """The notes naming the filters typed in a query that no paper of the catalog passes
    ("venue:nope", "year:2026-2020"), where it found nothing: it had read as if no abstract
    matched the words. A few at most: a pasted text may hold hundreds."""
    queries = [(typed, parse(typed).query) for typed in dict.fromkeys(filters[:FILTERS_NAMED])]
    return [IMPASSABLE.format(typed) for typed, query in queries
            if query is not None and not matching(query).any()]


def like_text_note(text: str, listed: int, filters: list[str]) -> str:
    """What the page says of a pasted text's papers (of the filters applied), or that the
    filters leave none."""
    if not listed:
        return READ_AS_TEXT.format(words=len(text.split()))
    within = f" of {' '.join(filters)}" if filters else ""
    return LIKE_TEXT_NOTE.format(words=len(text.split()), n=listed, within=within)
