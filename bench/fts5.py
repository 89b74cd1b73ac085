"""SQLite FTS5 (porter stemming, bm25), the baseline every search benchmark compares with,
built from the same catalog database and asked the same queries."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from app.config import Settings


def build_fts5(settings: Settings, path: Path) -> sqlite3.Connection:
    fts = sqlite3.connect(path)
    fts.execute("CREATE VIRTUAL TABLE papers USING fts5(id UNINDEXED, venue UNINDEXED, "
                "year UNINDEXED, code UNINDEXED, headline, plain, tokenize='porter unicode61')")
    source = sqlite3.connect(settings.database_path)
    rows = source.execute("SELECT paper.id, paper.edition_slug, edition.year, "
                          "paper.code_urls != '', paper.headline, paper.plain "
                          "FROM paper JOIN edition ON edition.slug = paper.edition_slug")
    fts.executemany("INSERT INTO papers VALUES (?, ?, ?, ?, ?, ?)", rows)
    fts.commit()
    return fts


def fts5_query(query: str) -> tuple[str, str, list[object]]:
    """The same query for FTS5: words quoted, phrases and prefixes kept, filters as SQL."""
    where, params, terms = [], [], []
    for match in re.finditer(r'(\w+):(\S+)|"([^"]*)"|(\S+)', query):
        field, value, phrase, word = match.groups()
        if field == "venue":
            where.append("venue LIKE ?")
            params.append(f"{value}%")
        elif field == "year":
            where.append("year = ?")
            params.append(int(value))
        elif field == "has":
            where.append("code = 1")
        elif phrase is not None:
            terms.append(f'"{phrase}"')
        elif word.endswith("*"):
            terms.append(f'"{word[:-1]}"*')
        else:
            terms.append(f'"{word}"')
    return " ".join(terms), "".join(f" AND {w}" for w in where), params


def fts5_page(fts: sqlite3.Connection, query: str, facets: Sequence[str] = ("venue",)) -> None:
    """What a search page asks of FTS5: the first 20 papers by bm25 with a snippet each, and
    the counts of each facet's values (`venue`, `year`) over every match."""
    fts5_match_page(fts, *fts5_query(query), facets)


def fts5_match_page(fts: sqlite3.Connection, match: str, where: str = "",
                    params: Sequence[object] = (), facets: Sequence[str] = ("venue",)) -> None:
    """`fts5_page` for an FTS5 MATCH expression made already (and its SQL conditions)."""
    if not match:
        return
    fts.execute("SELECT id, snippet(papers, 5, '<mark>', '</mark>', '…', 24) "
                f"FROM papers WHERE papers MATCH ?{where} "
                "ORDER BY bm25(papers) LIMIT 20", [match, *params]).fetchall()
    for facet in facets:
        fts.execute(f"SELECT {facet}, count(*) FROM papers WHERE papers MATCH ?{where} "
                    f"GROUP BY {facet}", [match, *params]).fetchall()
