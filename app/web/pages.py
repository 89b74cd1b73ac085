"""HTML routes: thin functions that fetch from the catalog and render a template."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from app import catalog
from app.exports import bibtex_entry
from app.search.synonyms import SYNONYM_GROUPS
from app.topics import load_taxonomy
from app.web import downloads
from app.web.deps import (
    PageDep,
    SearchDep,
    SearchRequestDep,
    SessionDep,
    related_papers,
    run_search,
)
from app.web.downloads import ListFormat
from app.web.render import render
from app.web.urls import search_query_string

router = APIRouter(default_response_class=HTMLResponse)


@router.get("/")
def home(request: Request, session: SessionDep) -> HTMLResponse:
    venues = catalog.list_venues(session)
    return render(request, "index.html", venues=venues,
                  total=sum(v.paper_count for v in venues))


@router.get("/venues")
def venues(request: Request, session: SessionDep) -> HTMLResponse:
    return render(request, "venues.html", venues=catalog.list_venues(session))


@router.get("/venues/{slug}")
def venue(
    request: Request, slug: str, session: SessionDep, page: PageDep = 1, topic: str = "",
    format: ListFormat | None = None,
) -> Response:
    if format:
        return downloads.venue_download(request, session, slug, format, topic)
    found = catalog.get_venue(session, slug)
    if found is None:
        raise HTTPException(404, f"There is no venue called “{slug}”.")
    topics = load_taxonomy().by_slug()
    if topic and topic not in topics:
        raise HTTPException(404, f"There is no topic called “{topic}”.")
    landscape = catalog.venue_landscape(session, slug)
    listing = (catalog.venue_topic_papers(session, found, topic, page) if topic
               else catalog.venue_papers(session, found, page))
    return render(
        request, "venue.html", listing=listing, topics=topics, topic=topic,
        topic_counts=landscape.topic_counts,
        filtered_total=dict(landscape.topic_counts).get(topic, 0),
        keyphrases=landscape.keyphrases, with_code=landscape.with_code,
    )


@router.get("/authors/{slug}")
def author(request: Request, slug: str, session: SessionDep) -> HTMLResponse:
    name, papers = catalog.author_papers(session, slug)
    if not papers:
        raise HTTPException(404, f"There is no author called “{slug}”.")
    return render(request, "author.html", author=name, papers=papers,
                  venues=catalog.venues_by_slug(session))


@router.get("/topics")
def topics(request: Request, session: SessionDep) -> HTMLResponse:
    venues = catalog.list_venues(session)
    counts = catalog.topic_venue_counts(session)
    taxonomy = sorted(load_taxonomy().topics,
                      key=lambda t: (-sum(counts.get(t.slug, {}).values()), t.name))
    return render(request, "topics.html", topics=taxonomy, counts=counts, venues=venues)


@router.get("/topics/{slug}")
def topic(
    request: Request, slug: str, session: SessionDep, page: PageDep = 1, venue: str = "",
    year: Annotated[int | None, Query(ge=1900, le=2100)] = None,
    format: ListFormat | None = None,
) -> Response:
    if format:
        return downloads.topic_download(request, slug, format, venue, year)
    found = load_taxonomy().by_slug().get(slug)
    if found is None:
        raise HTTPException(404, f"There is no topic called “{slug}”.")
    return render(
        request, "topic.html", listing=catalog.topic_papers(session, found, page, venue, year),
        venue=venue, year=year, venues=catalog.venues_by_slug(session),
        venue_counts=catalog.topic_venue_counts(session).get(slug, {}),
        keyphrases=catalog.topic_keyphrases(session, slug),
        years=catalog.topic_year_counts(session, slug),
    )


@router.get("/papers/{paper_id}")
def paper(
    request: Request, paper_id: str, session: SessionDep, search: SearchDep
) -> HTMLResponse:
    found = catalog.get_paper(session, paper_id)
    if found is None:
        raise HTTPException(404, f"There is no paper with the ID “{paper_id}”.")
    venue = catalog.get_venue(session, found.venue_slug)
    assert venue is not None  # foreign key
    related = related_papers(search, session, found)
    return render(request, "paper.html", paper=found, venue=venue, related=related,
                  venues=catalog.venues_by_slug(session),
                  bibtex=bibtex_entry(found, venue, downloads.paper_url_for(request)(found)))


@router.get("/search")
def search(
    request: Request, session: SessionDep, search: SearchDep, query: SearchRequestDep,
    format: ListFormat | None = None,
) -> Response:
    if format:
        return downloads.search_download(request, search, query, format)
    result, papers = run_search(search, session, query)
    return render(request, "search.html", result=result, papers=papers,
                  venues=catalog.venues_by_slug(session), url_with=search_query_string)


@router.get("/help/search")
def search_help(request: Request) -> HTMLResponse:
    return render(request, "search_help.html", synonyms=SYNONYM_GROUPS)
