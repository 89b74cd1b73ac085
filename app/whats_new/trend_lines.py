"""Trends: how many papers match each of a few queries, year by year, and their share of
that year's papers. A year's count is exactly the year facet of a search for the query."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from app.catalog import year_totals
from app.search.query.language import MAX_QUERY_CHARS
from app.search.results import SearchRequest
from app.search.service import SearchService

MAX_TERMS = 6


@dataclass(frozen=True)
class TrendLine:
    q: str
    counts: list[int]  # per year of `Trends.years`
    shares: list[float]  # of that year's papers
    note: str | None  # what the search said about the query (dropped words, fallbacks)

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class Trends:
    years: list[int]
    totals: list[int]  # papers per year in the whole catalog
    terms: list[TrendLine]
    notes: list[str]


def clean_queries(queries: list[str]) -> tuple[list[str], list[str]]:
    """The distinct non-empty queries, at most MAX_TERMS, and what was left out."""
    cleaned = list(dict.fromkeys(" ".join(q.split())[:MAX_QUERY_CHARS] for q in queries))
    cleaned = [q for q in cleaned if q]
    notes = []
    if len(cleaned) > MAX_TERMS:
        notes.append(f"At most {MAX_TERMS} queries are compared; "
                     f"{', '.join(cleaned[MAX_TERMS:])} left out.")
    return cleaned[:MAX_TERMS], notes


def compute_trends(search: SearchService, session: Session, queries: list[str]) -> Trends:
    totals = year_totals(session)
    years = list(totals)
    cleaned, notes = clean_queries(queries)
    lines = []
    for q in cleaned:
        result = search.counts(SearchRequest(q=q))
        by_year = dict(result.facets.get("year", []))
        counts = [int(by_year.get(year, 0)) for year in years]  # type: ignore[call-overload]
        note = " ".join(filter(None, [
            result.message,
            f"Nothing matched; counted “{result.corrected}” instead."
            if result.showing_corrected else None])) or None
        lines.append(TrendLine(q, counts, [n / totals[y] if totals[y] else 0.0
                                           for n, y in zip(counts, years, strict=True)], note))
    return Trends(years, [totals[y] for y in years], lines, notes)
