"""Topics: the topic × series matrix, a topic's page and its downloads, and their JSON twins
(/api/topics)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog, series
from app.exports import ListFormat
from app.models import Edition, Paper
from app.outputs import (
    ERRORS,
    MatrixColumnOut,
    PhraseCount,
    TopicOut,
    TopicPapersOut,
    TopicRef,
    TopicSeriesOut,
    TopicsOut,
    TopicYearOut,
)
from app.paging import Page, within_pages
from app.topics import Topic, load_taxonomy
from app.web import charts
from app.web.deps import ListFilterDep, PageDep, SessionDep, TopicDep, YearRangeDep
from app.web.formats import answer, render_view
from app.web.shapes import papers_out
from app.web.views import Answers, PaperList, Queried

router = APIRouter(default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)


@dataclass(frozen=True)
class TopicsView:
    """The topics page: every topic, largest first in the range, and the topic × series
    matrix of papers within a range of years."""

    template: ClassVar[str] = "topics.html"
    topics: list[Topic]
    matrix: series.TopicMatrix

    def context(self) -> dict[str, Any]:
        return dict(topics=self.topics, matrix=self.matrix)


def topics_view(session: Session, first: int | None, last: int | None) -> TopicsView:
    matrix = series.topic_matrix(session, first, last)
    return TopicsView(sorted(load_taxonomy().topics,
                             key=lambda t: (-matrix.row_total(t.slug), t.name)), matrix)


@dataclass(frozen=True)
class TopicView:
    """A topic's page: its papers (of one edition, series or year, when chosen), its share of
    each year's papers, where its papers come from, and its frequent keyphrases."""

    template: ClassVar[str] = "topic.html"
    topic: Topic
    listing: Page[Paper]
    where: catalog.ListFilter
    years: list[tuple[int, int, int]]  # (year, papers on the topic, all papers)
    spread: series.TopicSpread
    keyphrases: list[tuple[str, int]]
    venues: dict[str, Edition]  # every edition by slug, to label the papers
    series_names: dict[str, str]

    def context(self) -> dict[str, Any]:
        name = self.topic.name
        share_chart = charts.line_chart(
            f"{name}: share of each year's papers", [year for year, _, _ in self.years],
            [(name, [n / total if total else 0 for _, n, total in self.years])])
        return dict(topic=self.topic, listing=self.listing, where=self.where,
                    venues=self.venues, series_names=self.series_names, spread=self.spread,
                    keyphrases=self.keyphrases, years=self.years, share_chart=share_chart)


def topic_paper_list(request: Request, topic: Topic, where: catalog.ListFilter) -> PaperList:
    """The topic's papers (of the chosen edition, series or year), whole: its downloads."""
    return PaperList(Queried(catalog.topic_conditions(topic, where),
                             [Paper.edition_slug, Paper.ordinal]),
                     topic.slug, f"{topic.name}: new papers",
                     str(request.url_for("topic", slug=topic.slug)))


def topic_view(session: Session, topic: Topic, where: catalog.ListFilter,
               page: int) -> TopicView:
    return TopicView(topic, within_pages(catalog.topic_papers(session, topic, page, where)), where,
                     catalog.topic_year_counts(session, topic.slug),
                     series.topic_spread(session, topic.slug),
                     catalog.topic_keyphrases(session, topic.slug),
                     catalog.venues_by_slug(session),
                     {s.slug: s.name for s in series.list_series(session)})


@router.get("/topics")
def topics(request: Request, session: SessionDep, years: YearRangeDep) -> Response:
    return render_view(request, topics_view(session, *years))


@router.get("/topics/{slug}")
@router.get("/topics/{slug}.{format}", name="topic_download", tags=["downloads"])
def topic(
    request: Request, found: TopicDep, session: SessionDep, where: ListFilterDep,
    page: PageDep = 1, format: ListFormat | None = None,
) -> Response:
    return answer(request, Answers(lambda: topic_view(session, found, where, page),
                                   lambda: topic_paper_list(request, found, where)), format)


@api.get("/topics", name="api_topics")
def topics_api(request: Request, session: SessionDep, years: YearRangeDep) -> TopicsOut:
    """Every topic with its papers per edition and per series (the /topics page's matrix),
    within a range of years when given; series beyond the largest are summed as "other"."""
    view = topics_view(session, *years)
    first, last = years
    in_range = {v.slug for v in catalog.list_venues(session)
                if series.in_years(v.year, first, last)}
    counts = catalog.topic_venue_counts(session)
    return TopicsOut(
        first_year=first, last_year=last,
        series=[MatrixColumnOut(slug=slug, name=name, papers=n)
                for slug, name, n in view.matrix.columns],
        topics=[TopicOut(slug=t.slug, name=t.name, description=t.description,
                         paper_count=view.matrix.row_total(t.slug),
                         share=view.matrix.share(t.slug),
                         typical_series_share=view.matrix.typical.get(t.slug, 0.0),
                         papers_per_series=view.matrix.cells.get(t.slug, {}),
                         papers_per_venue={slug: n for slug, n in counts.get(t.slug, {}).items()
                                           if slug in in_range},
                         url=str(request.url_for("topic", slug=t.slug)))
                for t in view.topics])


@api.get("/topics/{slug}/papers", name="api_topic_papers")
def topic_papers(
    request: Request, topic: TopicDep, session: SessionDep, where: ListFilterDep,
    page: PageDep = 1,
) -> TopicPapersOut:
    """One page of a topic's papers, optionally of one edition, series or year, with what its
    page shows of the whole topic: its share per year, per series and of the catalog, and
    its frequent keyphrases."""
    view = topic_view(session, topic, where, page)
    listing, spread = view.listing, view.spread
    return TopicPapersOut(
        topic=TopicRef(slug=topic.slug, name=topic.name), venue=where.venue or None,
        series=where.series or None, year=where.year, page=listing.number,
        pages=listing.pages, total=listing.total,
        papers=papers_out(request, session, listing.items),
        paper_count=spread.papers, share=spread.share, typical_series_share=spread.typical,
        years=[TopicYearOut(year=y, papers=n, all_papers=total) for y, n, total in view.years],
        per_series=[TopicSeriesOut(slug=s.series.slug, name=s.series.name, papers=s.papers,
                                   share=s.share, of_topic=s.of_topic,
                                   of_catalog=s.of_catalog) for s in spread.series],
        keyphrases=[PhraseCount(phrase=p, papers=n) for p, n in view.keyphrases])
