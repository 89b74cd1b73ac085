"""HTML routes: thin functions that fetch from the catalog and render a template."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog, people, series
from app.catalog import year_totals
from app.exports import CitationFormat, ListFormat
from app.people import rankings
from app.search.query import PASTED_TEXT_WORDS, replace_word
from app.search.results import SearchResult
from app.search.searcher import PaperSearch
from app.search.synonyms import SYNONYM_GROUPS
from app.topics import load_taxonomy
from app.web import charts, downloads, sidebar
from app.web.deps import (
    AuthorDep,
    CountryDep,
    EditionOrSeriesDep,
    InstitutionDep,
    ListFilterDep,
    PageDep,
    PaperDep,
    RankingScopeDep,
    SearchDep,
    SearchRequestDep,
    SessionDep,
    TopicDep,
    YearRangeDep,
    topic_named,
)
from app.web.render import compile_templates, render, topic_name
from app.web.results import facet_names, related_papers, run_search
from app.web.urls import profile_path, search_query_string, topic_path, venue_path
from app.web.views import edition_view, paper_view, topic_view, topics_view
from app.whats_new.rising import whats_new
from app.whats_new.trends import MAX_TERMS, compute_trends

router = APIRouter(default_response_class=HTMLResponse)


HOME_TERMS = 10  # rising terms on the home page
SERIES_EDITIONS, SERIES_EDITION_TERMS = 4, 8  # the latest editions' rising terms on a series'
EXAMPLE_SEARCHES = ("diffusion model", '"graph neural network"', "reinforcement learning robot",
                    "transformer -vision", "optim*", "lora has:code")


def warm(session: Session) -> None:
    """What the first pages after a start would wait for: compiled templates and the
    catalog-wide counts the home, series, topic and people pages share (the first / took
    535 ms)."""
    compile_templates()
    series.topic_matrix(session)
    for kind in rankings.ORIGIN_KINDS:  # rankings and "who publishes here" (0.3 s at L)
        rankings.origin_table(session, kind)


@router.get("/")
def home(request: Request, session: SessionDep, search: SearchDep) -> HTMLResponse:
    all_series = series.list_series(session)
    matrix = series.topic_matrix(session)
    topic_totals = sorted(((t.slug, matrix.row_total(t.slug)) for t in load_taxonomy().topics),
                          key=lambda kv: -kv[1])
    return render(request, "index.html", grid=series.series_grid(all_series),
                  total=sum(s.papers for s in all_series),
                  editions=sum(len(s.editions) for s in all_series),
                  examples=EXAMPLE_SEARCHES, topic_totals=[t for t in topic_totals if t[1]],
                  rising=whats_new(search, limit=HOME_TERMS))


@router.get("/venues")
def venues(request: Request, session: SessionDep) -> HTMLResponse:
    all_series = series.list_series(session)
    return render(request, "venues.html", grid=series.series_grid(all_series),
                  all_series=all_series)


# A page's downloads are a second path of its route, by suffix, registered first:
# /venues/x.csv before /venues/{slug}.
@router.get("/venues/{slug}")
@router.get("/venues/{slug}.{format}", name="venue_download", tags=["downloads"])
def venue(
    request: Request, found: EditionOrSeriesDep, session: SessionDep, search: SearchDep,
    page: PageDep = 1, topic: str = "", format: ListFormat | None = None,
) -> Response:
    if isinstance(found, series.Series):
        return _series_page(request, session, search, found)
    if topic:
        topic_named(topic)  # a 404 for a topic that does not exist
    if format:
        return downloads.venue_download(request, found, format, topic)
    view = edition_view(session, search, found, topic, page)
    return render(
        request, "venue.html", venue=found, listing=view.listing,
        topics=load_taxonomy().by_slug(), topic=topic, series=view.series,
        neighbours=(view.previous, view.following), topic_counts=view.landscape.topic_counts,
        keyphrases=view.landscape.keyphrases, with_code=view.landscape.with_code,
        publishers=view.publishers, whats_new=view.whats_new,
    )


def _series_page(request: Request, session: Session, search: PaperSearch,
                 found: series.Series) -> HTMLResponse:
    detail = series.series_detail(session, found)
    years = found.years
    papers_chart = charts.column_chart(
        f"Papers per year at {found.name}",
        [(e.year, e.papers, venue_path(e.slug)) for e in found.editions])
    topics = [slug for slug, _ in detail.topic_totals]
    topic_chart = charts.heatmap(
        f"Topics of {found.name} by year, as a share of each year's papers", years,
        [(topic_name(topic), topic_path(topic, series=found.slug) + "#papers",
          [y.topics.get(topic, 0) / y.papers if y.papers else 0 for y in detail.years],
          [y.topics.get(topic, 0) for y in detail.years]) for topic in topics])
    news = [(e.slug, f"{found.name} {e.year}",
             whats_new(search, edition=e.slug, limit=SERIES_EDITION_TERMS))
            for e in found.editions[::-1][:SERIES_EDITIONS]]
    return render(request, "series.html", detail=detail, series=found,
                  papers_chart=papers_chart, topic_chart=topic_chart,
                  news=[(slug, label, n) for slug, label, n in news if n and n.rising],
                  publishers=rankings.publishers(session, [e.slug for e in found.editions]))


@router.get("/authors")
def authors(request: Request, session: SessionDep, search: SearchDep,
            q: Annotated[str, Query(max_length=200)] = "") -> HTMLResponse:
    found = people.find_authors(session, q, search.author_names(q, people.FOUND_AUTHORS))
    return render(request, "authors.html", q=q, found=found)


@router.get("/authors/{slug}")
@router.get("/authors/{slug}.{format}", name="author_download", tags=["downloads"])
def author(request: Request, found: AuthorDep, session: SessionDep,
           format: ListFormat | None = None) -> Response:
    return _profile_page(request, session, found, format)


@router.get("/institutions/{slug}")
@router.get("/institutions/{slug}.{format}", name="institution_download", tags=["downloads"])
def institution(request: Request, found: InstitutionDep, session: SessionDep,
                format: ListFormat | None = None) -> Response:
    return _profile_page(request, session, found, format)


@router.get("/countries/{slug}")
@router.get("/countries/{slug}.{format}", name="country_download", tags=["downloads"])
def country(request: Request, found: CountryDep, session: SessionDep,
            format: ListFormat | None = None) -> Response:
    return _profile_page(request, session, found, format)


def _profile_page(request: Request, session: Session, found: people.Profile,
                  fmt: str | None) -> Response:
    if fmt:
        return downloads.profile_download(request, found, fmt)
    chart = charts.column_chart(
        f"Papers per year of {found.summary.name}",
        [(year, n, profile_path(found.kind, found.slug, year=year) + "#papers")
         for year, n in found.summary.years])
    return render(request, "profile.html", profile=found, summary=found.summary,
                  chart=chart if len(found.summary.years) > 1 else None,
                  venues=catalog.venues_by_slug(session),
                  series_names={s.slug: s.name for s in found.summary.series})


@router.get("/institutions")
def institutions(request: Request, session: SessionDep,
                 chosen: RankingScopeDep) -> HTMLResponse:
    return _ranking_page(request, session, "institution", chosen)


@router.get("/countries")
def countries(request: Request, session: SessionDep, chosen: RankingScopeDep) -> HTMLResponse:
    return _ranking_page(request, session, "country", chosen)


def _ranking_page(request: Request, session: Session, kind: people.Kind,
                  chosen: rankings.Scope) -> HTMLResponse:
    ranked = rankings.ranking(session, kind, chosen)
    return render(request, "ranking.html", ranking=ranked,
                  all_series=series.list_series(session),
                  all_years=sorted({v.year for v in catalog.list_venues(session)}))


@router.get("/topics")
def topics(request: Request, session: SessionDep, years: YearRangeDep) -> HTMLResponse:
    view = topics_view(session, *years)
    return render(request, "topics.html", topics=view.topics, matrix=view.matrix)


@router.get("/topics/{slug}")
@router.get("/topics/{slug}.{format}", name="topic_download", tags=["downloads"])
def topic(
    request: Request, found: TopicDep, session: SessionDep, where: ListFilterDep,
    page: PageDep = 1, format: ListFormat | None = None,
) -> Response:
    if format:
        return downloads.topic_download(request, found, format, where)
    view = topic_view(session, found, where, page)
    share_chart = charts.line_chart(
        f"{found.name}: share of each year's papers", [year for year, _, _ in view.years],
        [(found.name, [n / total if total else 0 for _, n, total in view.years])])
    return render(
        request, "topic.html", topic=found, listing=view.listing,
        where=where, venues=catalog.venues_by_slug(session),
        series_names={s.slug: s.name for s in series.list_series(session)},
        spread=view.spread, keyphrases=view.keyphrases,
        years=view.years, share_chart=share_chart,
    )


@router.get("/papers/{paper_id}")
@router.get("/papers/{paper_id}.{format}", name="paper_citation", tags=["downloads"])
def paper(request: Request, found: PaperDep, session: SessionDep, search: SearchDep,
          format: CitationFormat | None = None) -> Response:
    if format:
        return downloads.paper_citation(request, session, found, format)
    view = paper_view(request, session, found, related_papers(search, session, found))
    return render(request, "paper.html", paper=found, venue=view.venue, related=view.related,
                  venues=view.venues, page_url=view.url, bibtex=view.bibtex)


@router.get("/search")
@router.get("/search.{format}", name="search_download", tags=["downloads"])
def search(
    request: Request, session: SessionDep, search: SearchDep, query: SearchRequestDep,
    format: ListFormat | None = None,
) -> Response:
    if format:
        return downloads.search_download(request, search, query, format)
    result, papers = run_search(search, session, query)
    venues = catalog.venues_by_slug(session)
    names = facet_names(session, result, query)
    return render(request, "search.html", result=result, papers=papers,
                  venues=venues, url_with=search_query_string,
                  chips=sidebar.chips(query, names), sidebar=sidebar.sidebar(result, names),
                  alone=lambda text, word: replace_word(text, word, f'"{word}"'),
                  years=sidebar.year_histogram(result),
                  year_chart=_year_share_chart(session, result))


def _year_share_chart(session: Session, result: SearchResult) -> charts.ColumnChart | None:
    """The matches' share of each year's papers, when they span several years."""
    counts = dict(result.facets.get("year", []))
    if not result.query or len(counts) < 2:
        return None
    totals = catalog.year_totals(session)
    return charts.column_chart(
        f"Share of each year's papers matching “{result.query}”",
        [(year, counts.get(year, 0) / total, "?" + search_query_string(result.request, year=year))
         for year, total in totals.items() if total], height=110, as_share=True)


@router.get("/trends")
def trends(
    request: Request, session: SessionDep, search: SearchDep,
    q: Annotated[list[str], Query(description="Up to 6 queries")] = [],  # noqa: B006
    year: Annotated[int | None, Query(ge=1000, le=9999)] = None,
    series_slug: Annotated[str, Query(alias="series", max_length=200)] = "",
) -> HTMLResponse:
    """Trend lines of queries; with none, what is new in a year (of a series, or all)."""
    found = compute_trends(search, session, q)
    chart = charts.line_chart("Share of each year's papers matching each query", found.years,
                              [(line.q, line.shares) for line in found.terms])
    chosen = series.get_series(session, series_slug) if series_slug else None
    news = None if found.terms else whats_new(search, series=chosen.slug if chosen else "",
                                              year=year)
    return render(request, "trends.html", trends=found, chart=chart,
                  inputs=[line.q for line in found.terms] + [""] * (MAX_TERMS - len(found.terms)),
                  news=news, news_years=list(year_totals(session)),
                  all_series=series.list_series(session),
                  news_series=chosen.slug if chosen else "",
                  news_series_name=chosen.name if chosen else "")


@router.get("/help/search")
def search_help(request: Request, search: SearchDep) -> HTMLResponse:
    return render(request, "search_help.html", synonyms=SYNONYM_GROUPS,
                  learned=search.learned_acronyms(), pasted_words=PASTED_TEXT_WORDS)
