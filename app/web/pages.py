"""HTML routes: thin functions that fetch from the catalog and render a template."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app import catalog
from app.search.synonyms import SYNONYM_GROUPS
from app.web.deps import PageDep, SearchDep, SearchRequestDep, SessionDep, run_search
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
def venue(request: Request, slug: str, session: SessionDep, page: PageDep = 1) -> HTMLResponse:
    found = catalog.get_venue(session, slug)
    if found is None:
        raise HTTPException(404, f"There is no venue called “{slug}”.")
    return render(request, "venue.html", listing=catalog.venue_papers(session, found, page))


@router.get("/papers/{paper_id}")
def paper(request: Request, paper_id: str, session: SessionDep) -> HTMLResponse:
    found = catalog.get_paper(session, paper_id)
    if found is None:
        raise HTTPException(404, f"There is no paper with the ID “{paper_id}”.")
    return render(request, "paper.html", paper=found,
                  venue=catalog.get_venue(session, found.venue_slug))


@router.get("/search")
def search(
    request: Request, session: SessionDep, search: SearchDep, query: SearchRequestDep
) -> HTMLResponse:
    result = run_search(search, session, query)
    papers = catalog.papers_by_id(session, [hit.id for hit in result.hits])
    return render(request, "search.html", result=result, papers=papers,
                  venues=catalog.venues_by_slug(session), url_with=search_query_string)


@router.get("/help/search")
def search_help(request: Request) -> HTMLResponse:
    return render(request, "search_help.html", synonyms=SYNONYM_GROUPS)
