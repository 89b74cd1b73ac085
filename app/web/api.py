"""JSON twins of the HTML pages."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from app import catalog, series
from app.models import Paper, Venue
from app.search.query import MAX_QUERY_CHARS
from app.search.results import PER_PAGE
from app.topics import load_taxonomy
from app.trends import compute_trends
from app.web.deps import (
    AuthorDep,
    ListFilterDep,
    PageDep,
    PaperDep,
    SearchDep,
    SearchRequestDep,
    SeriesDep,
    SessionDep,
    TopicDep,
    VenueDep,
)
from app.web.results import run_search

router = APIRouter(prefix="/api", tags=["api"])
SUGGESTIONS = 8


def venue_json(request: Request, venue: Venue) -> dict[str, Any]:
    return {
        "slug": venue.slug, "name": venue.name, "year": venue.year, "label": venue.label,
        "paper_count": venue.paper_count,
        "url": str(request.url_for("venue", slug=venue.slug)),
    }


def paper_json(request: Request, paper: Paper, venue: Venue) -> dict[str, Any]:
    return {
        "id": paper.id, "venue": venue.label, "venue_slug": venue.slug,
        "series": venue.series_slug, "year": venue.year, "status": paper.status or None,
        "headline": paper.headline, "abstract": paper.abstract,
        "title": paper.title or None, "authors": paper.author_list,
        "source_url": paper.url or None, "keywords": paper.keyword_list,
        "topic": paper.topic,
        "topics": [{"slug": slug, "score": score} for slug, score in paper.topic_list],
        "keyphrases": paper.keyphrase_list, "code_urls": paper.code_links,
        "source_file": paper.source_file, "source_line": paper.source_line,
        "url": str(request.url_for("paper", paper_id=paper.id)),
    }


@router.get("/venues", name="api_venues")
def venues(request: Request, session: SessionDep) -> dict[str, Any]:
    return {"venues": [venue_json(request, v) for v in catalog.list_venues(session)]}


def series_json(request: Request, found: series.Series) -> dict[str, Any]:
    return {
        "slug": found.slug, "name": found.name, "papers": found.papers,
        "url": str(request.url_for("venue", slug=found.slug)),
        "editions": [{"slug": e.slug, "year": e.year, "papers": e.papers,
                      "url": str(request.url_for("venue", slug=e.slug))}
                     for e in found.editions],
    }


@router.get("/series", name="api_series")
def series_list(request: Request, session: SessionDep) -> dict[str, Any]:
    """Every conference series with its editions (oldest first)."""
    return {"series": [series_json(request, s) for s in series.list_series(session)]}


@router.get("/series/{slug}", name="api_series_detail")
def series_detail(request: Request, found: SeriesDep, session: SessionDep) -> dict[str, Any]:
    """One series: its editions, and per year its papers and their topics."""
    detail = series.series_detail(session, found)
    return {**series_json(request, found),
            "years": [{"year": y.year, "papers": y.papers, "topics": y.topics}
                      for y in detail.years],
            "keyphrases": [{"phrase": phrase, "papers": n} for phrase, n in detail.keyphrases]}


@router.get("/venues/{slug}/papers", name="api_venue_papers")
def venue_papers(
    request: Request, venue: VenueDep, session: SessionDep, page: PageDep = 1
) -> dict[str, Any]:
    listing = catalog.venue_papers(session, venue, page)
    return {
        "venue": venue_json(request, venue), "page": listing.page, "pages": listing.pages,
        "per_page": catalog.VENUE_PAGE_SIZE,
        "papers": [paper_json(request, p, venue) for p in listing.papers],
    }


@router.get("/papers/{paper_id}", name="api_paper")
def paper(request: Request, found: PaperDep, session: SessionDep) -> dict[str, Any]:
    return paper_json(request, found, catalog.paper_venue(session, found))


@router.get("/authors/{slug}", name="api_author")
def author(request: Request, slug: str, found: AuthorDep, session: SessionDep) -> dict[str, Any]:
    venues = catalog.venues_by_slug(session)
    return {"name": found.name, "slug": slug,
            "papers": [paper_json(request, p, venues[p.venue_slug]) for p in found.papers]}


@router.get("/topics", name="api_topics")
def topics(request: Request, session: SessionDep) -> dict[str, Any]:
    counts = catalog.topic_venue_counts(session)
    return {"topics": [
        {"slug": t.slug, "name": t.name, "description": t.description,
         "paper_count": sum(counts.get(t.slug, {}).values()),
         "papers_per_venue": counts.get(t.slug, {}),
         "url": str(request.url_for("topic", slug=t.slug))}
        for t in load_taxonomy().topics
    ]}


@router.get("/topics/{slug}/papers", name="api_topic_papers")
def topic_papers(
    request: Request, topic: TopicDep, session: SessionDep, where: ListFilterDep,
    page: PageDep = 1,
) -> dict[str, Any]:
    listing = catalog.topic_papers(session, topic, page, where)
    venues = catalog.venues_by_slug(session)
    return {
        "topic": {"slug": topic.slug, "name": topic.name}, "venue": where.venue or None,
        "series": where.series or None, "year": where.year, "page": listing.page,
        "pages": listing.pages, "total": listing.total,
        "papers": [paper_json(request, p, venues[p.venue_slug]) for p in listing.papers],
    }


@router.get("/search", name="api_search")
def search(
    request: Request, session: SessionDep, search: SearchDep, query: SearchRequestDep
) -> dict[str, Any]:
    result, papers = run_search(search, session, query)
    venues = catalog.venues_by_slug(session)
    hits = []
    for hit in [*result.hits, *result.partial]:
        paper = papers[hit.id]
        hits.append({**paper_json(request, paper, venues[paper.venue_slug]),
                     "score": round(hit.score, 4), "snippet": hit.snippet,
                     "partial": hit.partial, "missing": hit.missing})
    return {
        "query": result.query, "filters": query.filters(), "sort": query.sort,
        "page": result.page, "pages": result.pages, "per_page": PER_PAGE,
        "total": result.total, "message": result.message,
        "corrected_query": result.corrected, "showing_corrected": result.showing_corrected,
        "partial_hits": len(result.partial),
        "expanded": [{"word": word, "also_matched": meanings}
                     for word, meanings in result.expansions],
        "facets": {name: [{"value": value, "count": count} for value, count in counts]
                   for name, counts in result.facets.items()},
        "hits": hits,
    }


@router.get("/trends", name="api_trends")
def trends(
    session: SessionDep, search: SearchDep,
    q: Annotated[list[str], Query(description="Up to 6 queries")] = [],  # noqa: B006
) -> dict[str, Any]:
    """Papers matching each query per year, and their share of that year's papers."""
    found = compute_trends(search, session, q)
    return {"years": found.years, "totals": found.totals, "notes": found.notes,
            "terms": [{"q": line.q, "counts": line.counts,
                       "shares": [round(share, 6) for share in line.shares],
                       "total": line.total, "note": line.note} for line in found.terms]}


@router.get("/suggest", name="api_suggest")
def suggest(session: SessionDep, search: SearchDep, q: str = "",
            format: Literal["json", "opensearch"] = "json") -> Any:
    """Up to 8 completions for the search box: frequent keyphrases that start with what was
    typed, then words of the index that complete its last word, most frequent first.
    `format=opensearch` answers as browsers ask a search engine: `[query, [completions]]`."""
    q = q[:MAX_QUERY_CHARS]
    phrases = catalog.phrase_table(session).completions(q, SUGGESTIONS // 2)
    words = search.suggest(q, SUGGESTIONS)
    suggestions = list(dict.fromkeys(phrases + words))[:SUGGESTIONS]
    if format == "opensearch":
        return JSONResponse([q, suggestions], media_type="application/x-suggestions+json")
    return {"query": q, "suggestions": suggestions}
