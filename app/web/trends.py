"""Trends: the trend lines of queries, or what is new in a year, and their JSON twins
(/api/trends, /api/whats-new)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import series
from app.catalog import year_totals
from app.facets import OptionalYear
from app.outputs import ERRORS, RANKING_ERRORS, TrendLineOut, TrendsOut, WhatsNewOut
from app.search.searcher import PaperSearch
from app.web import charts
from app.web.deps import ReadySearchDep, SearchDep, SessionDep, WhatsNewDep
from app.web.formats import render_view
from app.web.shapes import whats_new_out
from app.whats_new.found import WhatsNew
from app.whats_new.rising import whats_new
from app.whats_new.trend_lines import MAX_TERMS, Trends, compute_trends

router = APIRouter(default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)
QueriesParam = Annotated[list[str], Query(description="Up to 6 queries")]


@dataclass(frozen=True)
class TrendsView:
    """The trends page: papers per year matching each query; with none, what is new in a year
    (of a series, or all)."""

    template: ClassVar[str] = "trends.html"
    trends: Trends
    news: WhatsNew | None
    news_years: list[int]  # the years what is new can be asked of
    all_series: list[series.Series]
    chosen: series.Series | None  # the series what is new is of

    def context(self) -> dict[str, Any]:
        found, chosen = self.trends, self.chosen
        chart = charts.line_chart("Share of each year's papers matching each query",
                                  found.years, [(line.q, line.shares) for line in found.terms])
        return dict(trends=found, chart=chart,
                    inputs=[line.q for line in found.terms]
                    + [""] * (MAX_TERMS - len(found.terms)),
                    news=self.news, news_years=self.news_years, all_series=self.all_series,
                    news_series=chosen.slug if chosen else "",
                    news_series_name=chosen.name if chosen else "")


def trends_view(session: Session, search: PaperSearch, queries: list[str],
                year: int | None = None, series_slug: str = "") -> TrendsView:
    found = compute_trends(search, session, queries)
    chosen = series.get_series(session, series_slug) if series_slug else None
    news = None if found.terms else whats_new(search, series=chosen.slug if chosen else "",
                                              year=year)
    return TrendsView(found, news, list(year_totals(session)), series.list_series(session),
                      chosen)


@router.get("/trends")
def trends(
    request: Request, session: SessionDep, search: SearchDep,
    q: QueriesParam = [],  # noqa: B006
    year: Annotated[OptionalYear, Query()] = None,
    series_slug: Annotated[str, Query(alias="series", max_length=200)] = "",
) -> Response:
    """Trend lines of queries; with none, what is new in a year (of a series, or all)."""
    return render_view(request, trends_view(session, search, q, year, series_slug))


@api.get("/whats-new", name="api_whats_new")
def whats_new_api(request: Request, found: WhatsNewDep) -> WhatsNewOut:
    """Terms whose share of papers rose most against the previous three editions of a series
    (`series` and `year`: one edition; `series` alone: its latest) or years of the catalog
    (`year` alone; neither: the latest year), and terms seen there for the first time."""
    return whats_new_out(request, found)


@api.get("/trends", name="api_trends", responses=RANKING_ERRORS)
def trends_api(session: SessionDep, search: ReadySearchDep, q: QueriesParam = []  # noqa: B006
               ) -> TrendsOut:
    """Papers matching each query per year, and their share of that year's papers."""
    found = compute_trends(search, session, q)  # the page's trends, without its what's new
    return TrendsOut(years=found.years, totals=found.totals, notes=found.notes, terms=[
        TrendLineOut(q=line.q, counts=line.counts,
                     shares=[round(share, 6) for share in line.shares], total=line.total,
                     note=line.note) for line in found.terms])
