"""JSON twins of the HTML pages."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from app import catalog, series
from app.facets import BY_NAME
from app.outputs import (
    ERRORS,
    Expansion,
    FacetValue,
    MatrixColumnOut,
    PaperDetailOut,
    PaperOut,
    PhraseCount,
    ReadingOut,
    RelatedOut,
    SearchHitOut,
    SearchOut,
    SeriesDetailOut,
    SeriesListOut,
    SeriesYearOut,
    SuggestOut,
    TopicOut,
    TopicPapersOut,
    TopicRef,
    TopicSeriesOut,
    TopicsOut,
    TopicYearOut,
    TrendLineOut,
    TrendsOut,
    VenuePapersOut,
    VenuesOut,
    WhatsNewOut,
)
from app.people import rankings
from app.search.query import MAX_QUERY_CHARS
from app.search.results import PER_PAGE
from app.web.deps import (
    ChosenSeriesDep,
    ListFilterDep,
    PageDep,
    PaperDep,
    SearchDep,
    SearchRequestDep,
    SeriesDep,
    SessionDep,
    TopicDep,
    VenueDep,
    YearRangeDep,
    topic_named,
)
from app.web.results import facet_names, related_papers, run_search
from app.web.shapes import (
    edition_out,
    papers_out,
    publishers_out,
    series_out,
    venue_out,
    whats_new_out,
)
from app.web.urls import paper_url_for
from app.web.views import edition_view, paper_view, topic_view, topics_view
from app.whats_new.rising import LIMIT as WHATS_NEW
from app.whats_new.rising import WhatsNew, whats_new
from app.whats_new.trends import compute_trends

MAX_WHATS_NEW = 50

router = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)
SUGGESTIONS = 8


@router.get("/venues", name="api_venues")
def venues(request: Request, session: SessionDep) -> VenuesOut:
    """Every edition, newest first."""
    return VenuesOut(venues=[venue_out(request, v) for v in catalog.list_venues(session)])


@router.get("/series", name="api_series")
def series_list(request: Request, session: SessionDep) -> SeriesListOut:
    """Every conference series with its editions (oldest first)."""
    return SeriesListOut(series=[series_out(request, s) for s in series.list_series(session)])


@router.get("/series/{slug}", name="api_series_detail")
def series_detail(request: Request, found: SeriesDep, session: SessionDep) -> SeriesDetailOut:
    """One series: its editions, and per year its papers and their topics."""
    detail = series.series_detail(session, found)
    return SeriesDetailOut(
        **series_out(request, found).model_dump(),
        years=[SeriesYearOut(year=y.year, papers=y.papers, topics=dict(y.topics))
               for y in detail.years],
        keyphrases=[PhraseCount(phrase=phrase, papers=n) for phrase, n in detail.keyphrases],
        **publishers_out(request, rankings.publishers(session, [e.slug for e in found.editions])))


@router.get("/venues/{slug}/papers", name="api_venue_papers")
def venue_papers(
    request: Request, venue: VenueDep, session: SessionDep, search: SearchDep,
    page: PageDep = 1,
    topic: Annotated[str, Query(description="Only papers of this topic (slug)")] = "",
) -> VenuePapersOut:
    """One page of an edition's papers in list order, optionally of one topic, with what its
    page shows of the whole edition: papers per topic, keyphrases, papers with code, and the
    editions of its series before and after, and what is new there."""
    if topic:
        topic_named(topic)  # a 404 for a topic that does not exist
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


@router.get("/papers/{paper_id}", name="api_paper")
def paper(request: Request, found: PaperDep, session: SessionDep,
          search: SearchDep) -> PaperDetailOut:
    """A paper, its related papers (with the key terms they share) and its BibTeX entry."""
    view = paper_view(request, session, found, related_papers(search, session, found))
    url_for = paper_url_for(request)
    related = [RelatedOut(id=other.id, headline=other.headline,
                          venue=view.venues[other.venue_slug].label, url=url_for(other),
                          shares=shared)
               for other, shared in view.related]
    return PaperDetailOut(**PaperOut.of(found, view.venue, view.url).model_dump(),
                          related=related, bibtex=view.bibtex)


@router.get("/topics", name="api_topics")
def topics(request: Request, session: SessionDep, years: YearRangeDep) -> TopicsOut:
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


@router.get("/topics/{slug}/papers", name="api_topic_papers")
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


@router.get("/search", name="api_search")
def search(
    request: Request, session: SessionDep, search: SearchDep, query: SearchRequestDep
) -> SearchOut:
    """Ranked papers for a query and filters, with facet counts; see /help/search."""
    result, papers = run_search(search, session, query)
    venues = catalog.venues_by_slug(session)
    names = facet_names(session, result, query)
    url_for = paper_url_for(request)
    hits = []
    for hit in [*result.hits, *result.partial]:
        found = papers[hit.id]
        hits.append(SearchHitOut(
            **PaperOut.of(found, venues[found.venue_slug], url_for(found)).model_dump(),
            score=round(hit.score, 4), snippet=hit.snippet, partial=hit.partial,
            missing=hit.missing))
    return SearchOut(
        query=result.query, filters=query.filters(), sort=query.sort, page=result.page,
        pages=result.pages, per_page=PER_PAGE, total=result.total, message=result.message,
        corrected_query=result.corrected, showing_corrected=result.showing_corrected,
        pasted=result.pasted,
        partial_hits=len(result.partial), related_words=result.related_words,
        reading=ReadingOut(**asdict(result.reading), counted=result.reading.counted)
        if result.reading else None,
        expanded=[Expansion(word=word, also_matched=meanings)
                  for word, meanings in result.expansions],
        facets={name: [FacetValue(value=value, count=count,
                                  label=BY_NAME[name].label(value, names.get(name, {})))
                       for value, count in counts]
                for name, counts in result.facets.items()},
        hits=hits)


def _whats_new_found(
    search: SearchDep, chosen: ChosenSeriesDep,
    year: Annotated[int | None, Query(ge=1000, le=9999, description="e.g. 2018")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_WHATS_NEW)] = WHATS_NEW,
) -> WhatsNew:
    """What is new where a request asks; a 404 where there are no papers."""
    found = whats_new(search, series=chosen.slug if chosen else "", year=year, limit=limit)
    if found is None:
        raise HTTPException(404, "No papers there, or the search index is not built yet.")
    return found


@router.get("/whats-new", name="api_whats_new")
def whats_new_api(request: Request,
                  found: Annotated[WhatsNew, Depends(_whats_new_found)]) -> WhatsNewOut:
    """Terms whose share of papers rose most against the previous three editions of a series
    (`series` and `year`: one edition; `series` alone: its latest) or years of the catalog
    (`year` alone; neither: the latest year), and terms seen there for the first time."""
    return whats_new_out(request, found)


@router.get("/trends", name="api_trends")
def trends(
    session: SessionDep, search: SearchDep,
    q: Annotated[list[str], Query(description="Up to 6 queries")] = [],  # noqa: B006
) -> TrendsOut:
    """Papers matching each query per year, and their share of that year's papers."""
    found = compute_trends(search, session, q)
    return TrendsOut(years=found.years, totals=found.totals, notes=found.notes, terms=[
        TrendLineOut(q=line.q, counts=line.counts,
                     shares=[round(share, 6) for share in line.shares], total=line.total,
                     note=line.note) for line in found.terms])


OPENSEARCH_SUGGESTIONS = {200: {"content": {"application/x-suggestions+json": {"schema": {
    "type": "array", "description": "[query, [completions]] (format=opensearch)",
    "minItems": 2, "maxItems": 2, "items": {"anyOf": [
        {"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}}}}}


@router.get("/suggest", name="api_suggest", response_model=SuggestOut,
            responses=OPENSEARCH_SUGGESTIONS)
def suggest(session: SessionDep, search: SearchDep, q: str = "",
            format: Literal["json", "opensearch"] = "json") -> Any:
    """Up to 8 completions for the search box, most used first: phrases of the catalog's
    titles and keywords that complete what was typed, conference series, then words that
    complete its last word; author names after `author:`. `format=opensearch` answers as
    browsers ask a search engine: `[query, [completions]]`."""
    q = q[:MAX_QUERY_CHARS]
    suggestions = search.suggest(q, SUGGESTIONS, [s.name for s in series.list_series(session)])
    if format == "opensearch":
        return JSONResponse([q, suggestions], media_type="application/x-suggestions+json")
    return SuggestOut(query=q, suggestions=suggestions)
