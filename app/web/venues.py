"""Venues: the home page and the list of series and editions, a series' page, an edition's
page and its downloads, and their JSON twins (/api/venues, /api/series)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog, series
from app.catalog import Landscape
from app.exports import ListFormat
from app.models import Edition, Paper
from app.outputs import (
    ERRORS,
    PhraseCount,
    SeriesDetailOut,
    SeriesListOut,
    SeriesYearOut,
    VenuePapersOut,
    VenuesOut,
)
from app.paging import Page, within_pages
from app.people import rankings
from app.search.searcher import PaperSearch
from app.topics import load_taxonomy
from app.web import charts
from app.web.deps import (
    EditionOrSeriesDep,
    EditionTopicDep,
    PageDep,
    SearchDep,
    SeriesDep,
    SessionDep,
    TopicFilterDep,
    VenueDep,
)
from app.web.formats import answer, render_view
from app.web.render import compile_templates, topic_name
from app.web.shapes import (
    edition_out,
    papers_out,
    publishers_out,
    series_out,
    venue_out,
    whats_new_out,
)
from app.web.urls import topic_path, venue_path
from app.web.views import Answers, PaperList, Queried
from app.whats_new.found import WhatsNew
from app.whats_new.rising import whats_new

router = APIRouter(default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)

HOME_TERMS = 10  # rising terms on the home page
EDITION_TERMS = 12  # rising terms on an edition's page
SERIES_EDITIONS, SERIES_EDITION_TERMS = 4, 8  # the latest editions' rising terms on a series'
EXAMPLE_SEARCHES = ("diffusion model", '"graph neural network"', "reinforcement learning robot",
                    "transformer -vision", "optim*", "lora has:code")


def warm(session: Session, search: PaperSearch) -> None:
    """What the first pages after a start would wait for: compiled templates, the
    catalog-wide counts the home, series, topic and people pages share (the first / took
    535 ms) and the home page's own view, what's new included (0.9-1.2 s at 13k)."""
    compile_templates()
    series.topic_matrix(session)
    for kind in rankings.ORIGIN_KINDS:  # rankings and "who publishes here" (0.3 s at L)
        rankings.origin_table(session, kind)
    home_view(session, search)


@dataclass(frozen=True)
class EditionView:
    """An edition's page: its papers (of one topic, when chosen), the topics, keyphrases,
    code links and publishing institutions and countries of the whole edition, and the
    editions of its series before and after, and what is new there."""

    template: ClassVar[str] = "venue.html"
    venue: Edition
    topic: str
    listing: Page[Paper]
    series: series.Series
    previous: series.ListedEdition | None
    following: series.ListedEdition | None
    landscape: Landscape
    publishers: rankings.Publishers
    whats_new: WhatsNew | None  # against the series' previous editions

    def context(self) -> dict[str, Any]:
        return dict(venue=self.venue, listing=self.listing, topics=load_taxonomy().by_slug(),
                    topic=self.topic, series=self.series,
                    neighbours=(self.previous, self.following),
                    topic_counts=self.landscape.topic_counts,
                    keyphrases=self.landscape.keyphrases, with_code=self.landscape.with_code,
                    publishers=self.publishers, whats_new=self.whats_new)


def edition_paper_list(request: Request, venue: Edition, topic: str) -> PaperList:
    """The edition's papers (of one `topic`, or all), whole: its downloads."""
    return PaperList(
        Queried([Paper.edition_slug == venue.slug] + ([Paper.topic == topic] if topic else []),
                [Paper.ordinal]),
        venue.slug, f"{venue.label}: new papers", str(request.url_for("venue", slug=venue.slug)))


def edition_view(session: Session, search: PaperSearch, venue: Edition, topic: str,
                 page: int) -> EditionView:
    """The edition's view, of one `topic` (a slug the route has found) or all."""
    listing = within_pages(catalog.venue_topic_papers(session, venue, topic, page) if topic
                           else catalog.venue_papers(session, venue, page))
    edition_series = series.series_of(session, venue)
    previous, following = edition_series.neighbours(venue.slug)
    return EditionView(venue, topic, listing, edition_series, previous, following,
                       catalog.venue_landscape(session, venue.slug),
                       rankings.publishers(session, [venue.slug]),
                       whats_new(search, edition=venue.slug, limit=EDITION_TERMS))


@dataclass(frozen=True)
class SeriesView:
    """A series' page: its editions, its papers and topics per year, what is new at its
    latest editions, and the institutions and countries that publish there."""

    template: ClassVar[str] = "series.html"
    series: series.Series
    detail: series.SeriesDetail
    news: list[tuple[str, str, WhatsNew]]  # (edition slug, label, what is new there)
    publishers: rankings.Publishers

    def context(self) -> dict[str, Any]:
        found, detail = self.series, self.detail
        papers_chart = charts.column_chart(
            f"Papers per year at {found.name}",
            [(e.year, e.papers, venue_path(e.slug)) for e in found.editions])
        topic_chart = charts.heatmap(
            f"Topics of {found.name} by year, as a share of each year's papers", found.years,
            [(topic_name(topic), topic_path(topic, series=found.slug) + "#papers",
              [y.topics.get(topic, 0) / y.papers if y.papers else 0 for y in detail.years],
              [y.topics.get(topic, 0) for y in detail.years])
             for topic, _ in detail.topic_totals])
        return dict(detail=detail, series=found, papers_chart=papers_chart,
                    topic_chart=topic_chart, news=self.news, publishers=self.publishers)


def series_view(session: Session, search: PaperSearch, found: series.Series) -> SeriesView:
    news = [(e.slug, f"{found.name} {e.year}",
             whats_new(search, edition=e.slug, limit=SERIES_EDITION_TERMS))
            for e in found.editions[::-1][:SERIES_EDITIONS]]
    return SeriesView(found, series.series_detail(session, found),
                      [(slug, label, n) for slug, label, n in news if n and n.rising],
                      series_publishers(session, found))


def series_publishers(session: Session, found: series.Series) -> rankings.Publishers:
    return rankings.publishers(session, [e.slug for e in found.editions])


@dataclass(frozen=True)
class HomeView:
    """The home page: the series and their editions, the topics by papers, example searches
    and what rose in the catalog's latest year."""

    template: ClassVar[str] = "index.html"
    all_series: list[series.Series]
    topic_totals: list[tuple[str, int]]  # (topic slug, papers), largest first, none empty
    rising: WhatsNew | None

    def context(self) -> dict[str, Any]:
        return dict(grid=series.series_grid(self.all_series),
                    total=sum(s.papers for s in self.all_series),
                    editions=sum(len(s.editions) for s in self.all_series),
                    examples=EXAMPLE_SEARCHES, topic_totals=self.topic_totals,
                    rising=self.rising)


def home_view(session: Session, search: PaperSearch) -> HomeView:
    matrix = series.topic_matrix(session)
    topic_totals = sorted(((t.slug, matrix.row_total(t.slug)) for t in load_taxonomy().topics),
                          key=lambda kv: -kv[1])
    return HomeView(series.list_series(session), [t for t in topic_totals if t[1]],
                    whats_new(search, limit=HOME_TERMS))


@dataclass(frozen=True)
class VenuesView:
    """The list of venues: every series with its editions."""

    template: ClassVar[str] = "venues.html"
    all_series: list[series.Series]

    def context(self) -> dict[str, Any]:
        return dict(grid=series.series_grid(self.all_series), all_series=self.all_series)


@router.get("/")
def home(request: Request, session: SessionDep, search: SearchDep) -> Response:
    return render_view(request, home_view(session, search))


@router.get("/venues")
def venues(request: Request, session: SessionDep) -> Response:
    return render_view(request, VenuesView(series.list_series(session)))


# A page's downloads are a second path of its route, by suffix, registered first:
# /venues/x.csv before /venues/{slug}.
@router.get("/venues/{slug}")
@router.get("/venues/{slug}.{format}", name="venue_download", tags=["downloads"])
def venue(
    request: Request, found: EditionOrSeriesDep, session: SessionDep, search: SearchDep,
    topic: EditionTopicDep, page: PageDep = 1, format: ListFormat | None = None,
) -> Response:
    if isinstance(found, series.Series):
        return render_view(request, series_view(session, search, found))
    return answer(request, Answers(lambda: edition_view(session, search, found, topic, page),
                                   lambda: edition_paper_list(request, found, topic)), format)


@api.get("/venues", name="api_venues")
def venues_list(request: Request, session: SessionDep) -> VenuesOut:
    """Every edition, newest first."""
    return VenuesOut(venues=[venue_out(request, v) for v in catalog.list_venues(session)])


@api.get("/series", name="api_series")
def series_list(request: Request, session: SessionDep) -> SeriesListOut:
    """Every conference series with its editions (oldest first)."""
    return SeriesListOut(series=[series_out(request, s) for s in series.list_series(session)])


@api.get("/series/{slug}", name="api_series_detail")
def series_detail(request: Request, found: SeriesDep, session: SessionDep) -> SeriesDetailOut:
    """One series: its editions, and per year its papers and their topics."""
    # The series page's parts that this answer holds, without the page's what's new.
    detail = series.series_detail(session, found)
    return SeriesDetailOut(
        **series_out(request, found).model_dump(),
        years=[SeriesYearOut(year=y.year, papers=y.papers, topics=dict(y.topics))
               for y in detail.years],
        keyphrases=[PhraseCount(phrase=phrase, papers=n) for phrase, n in detail.keyphrases],
        **publishers_out(request, series_publishers(session, found)))


@api.get("/venues/{slug}/papers", name="api_venue_papers")
def venue_papers(
    request: Request, venue: VenueDep, session: SessionDep, search: SearchDep,
    topic: TopicFilterDep, page: PageDep = 1,
) -> VenuePapersOut:
    """One page of an edition's papers in list order, optionally of one topic, with what its
    page shows of the whole edition: papers per topic, keyphrases, papers with code, and the
    editions of its series before and after, and what is new there."""
    view = edition_view(session, search, venue, topic, page)
    listing = view.listing
    return VenuePapersOut(
        venue=venue_out(request, venue), topic=topic or None, page=listing.number,
        pages=listing.pages, per_page=listing.per_page, total=listing.total,
        papers=papers_out(request, session, listing.items),
        topics=dict(view.landscape.topic_counts),
        keyphrases=[PhraseCount(phrase=p, papers=n) for p, n in view.landscape.keyphrases],
        with_code=view.landscape.with_code,
        previous=edition_out(request, view.previous) if view.previous else None,
        next=edition_out(request, view.following) if view.following else None,
        whats_new=whats_new_out(request, view.whats_new) if view.whats_new else None,
        **publishers_out(request, view.publishers))
