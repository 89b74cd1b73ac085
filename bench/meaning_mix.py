"""The query mix of bench/datasette.py with search by meaning on: one query in ten a TL;DR of
the corpus (a description, which the catalog fuses with the papers' sentence vectors), and
FTS5's answer to it, the OR of its words (ANDed, a sentence's words find nothing, cheaply)."""

from __future__ import annotations

import random
import sqlite3

from bench.descriptions import tldr_rows
from bench.fts5 import fts5_match_page, fts5_page
from bench.questions import fts5_match

DESCRIPTION_EVERY = 10  # with meaning on, one query in this many is a TL;DR


def corpus_tldrs() -> list[str]:
    """The corpus's TL;DRs (bench.descriptions.tldr_rows), shuffled by a fixed seed."""
    tldrs = [" ".join(row["tldr"].split()) for row in tldr_rows()]
    random.Random(59).shuffle(tldrs)
    return tldrs


def with_descriptions(phrases: list[str], tldrs: list[str]) -> list[str]:
    """Every `DESCRIPTION_EVERY`th phrase replaced by the next TL;DR, so that search by
    meaning is asked too."""
    mixed = list(phrases)
    for at, tldr in zip(range(DESCRIPTION_EVERY - 1, len(mixed), DESCRIPTION_EVERY), tldrs,
                        strict=False):
        mixed[at] = tldr
    return mixed


def fts5_answer(fts: sqlite3.Connection, query: str, described: set[str]) -> None:
    """FTS5's page for a query: a description's words OR'ed (AND finds nothing), else the
    phrase's (bench.fts5)."""
    if query in described:
        fts5_match_page(fts, fts5_match(query), facets=("venue", "year"))
    else:
        fts5_page(fts, query, ("venue", "year"))
