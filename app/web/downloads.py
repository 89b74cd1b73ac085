"""Downloads: any list of papers as CSV, JSON or BibTeX, Atom feeds, and one paper's BibTeX.

Each list has dotted twins (`/venues/icml-2026.csv`) and answers `?format=` on its page.
Rows stream from their own database session, a batch at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from sqlmodel import Session, col, select

from app import catalog
from app.db import batched, get_engine
from app.exports import (
    MEDIA_TYPES,
    STREAMERS,
    PaperRows,
    bibtex_entry,
    ris_record,
    stream_atom,
)
from app.models import Paper, Venue
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.topics import load_taxonomy
from app.web.deps import ListFilterDep, SearchDep, SearchRequestDep, SessionDep
from app.web.urls import search_query_string

router = APIRouter(tags=["downloads"])
ListFormat = Literal["csv", "json", "bib", "ris", "atom"]
FEED_ENTRIES = 50
BATCH = 500


def paper_url_for(request: Request) -> Callable[[Paper], str]:
    base = str(request.url_for("paper", paper_id="x"))[:-1]
    return lambda paper: base + paper.id


def _rows_from_query(request: Request, conditions: list[Any], order: list[Any],
                     limit: int | None = None) -> Iterator[tuple[Paper, Venue]]:
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        venues = catalog.venues_by_slug(session)
        statement = select(Paper).where(*conditions).order_by(*order).limit(limit)
        for paper in session.exec(statement.execution_options(yield_per=BATCH)):
            yield paper, venues[paper.venue_slug]


def rows_from_ids(request: Request, ids: list[str]) -> Iterator[tuple[Paper, Venue]]:
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        venues = catalog.venues_by_slug(session)
        for batch in batched(ids, BATCH):
            papers = catalog.papers_by_id(session, batch)
            for paper_id in batch:
                if paper_id in papers:
                    yield papers[paper_id], venues[papers[paper_id].venue_slug]


def list_response(request: Request, rows: PaperRows, fmt: str, name: str, title: str,
                  page_url: str) -> StreamingResponse:
    url_for = paper_url_for(request)
    if fmt == "atom":
        body = stream_atom(rows, url_for, title, str(request.url), page_url)
    else:
        body = STREAMERS[fmt](rows, url_for)
    disposition = "inline" if fmt in ("json", "atom") else "attachment"
    return StreamingResponse(body, media_type=MEDIA_TYPES[fmt], headers={
        "Content-Disposition": f'{disposition}; filename="{name}.{fmt}"'})


def venue_download(request: Request, session: Session, slug: str, fmt: str,
                   topic: str = "") -> StreamingResponse:
    venue = catalog.get_venue(session, slug)
    if venue is None:
        raise HTTPException(404, f"There is no venue called “{slug}”.")
    conditions = [Paper.venue_slug == slug] + ([Paper.topic == topic] if topic else [])
    if fmt == "atom":
        rows = _rows_from_query(request, conditions, [col(Paper.added_at).desc()], FEED_ENTRIES)
    else:
        rows = _rows_from_query(request, conditions, [Paper.ordinal])
    page_url = str(request.url_for("venue", slug=slug))
    return list_response(request, rows, fmt, slug, f"{venue.label}: new papers", page_url)


def topic_download(request: Request, slug: str, fmt: str,
                   where: catalog.ListFilter) -> StreamingResponse:
    topic = load_taxonomy().by_slug().get(slug)
    if topic is None:
        raise HTTPException(404, f"There is no topic called “{slug}”.")
    conditions = catalog.topic_conditions(topic, where)
    order = ([col(Paper.added_at).desc()] if fmt == "atom"
             else [Paper.venue_slug, Paper.ordinal])
    rows = _rows_from_query(request, conditions, order, FEED_ENTRIES if fmt == "atom" else None)
    page_url = str(request.url_for("topic", slug=slug))
    return list_response(request, rows, fmt, slug, f"{topic.name}: new papers", page_url)


def search_download(request: Request, search: PaperSearch, query: SearchRequest,
                    fmt: str) -> StreamingResponse:
    newest = fmt == "atom"
    ids = search.ranked_ids(query, limit=FEED_ENTRIES if newest else None, newest_first=newest)
    page_url = f"{request.url_for('search')}?{search_query_string(query, page=1)}"
    title = f"Search: {query.q}" if query.q else "Search"
    return list_response(request, rows_from_ids(request, ids), fmt, "search", title, page_url)


@router.get("/papers/{paper_id}.{fmt}", name="paper_citation")
def paper_citation(request: Request, paper_id: str, fmt: Literal["bib", "ris"],
                   session: SessionDep) -> Response:
    """One paper's BibTeX entry or RIS record."""
    paper = catalog.get_paper(session, paper_id)
    if paper is None:
        raise HTTPException(404, f"There is no paper with the ID “{paper_id}”.")
    venue = catalog.get_venue(session, paper.venue_slug)
    assert venue is not None  # foreign key
    cite = bibtex_entry if fmt == "bib" else ris_record
    return Response(cite(paper, venue, paper_url_for(request)(paper)), media_type=MEDIA_TYPES[fmt])


@router.get("/venues/{slug}.{fmt}", name="venue_download")
def venue_twin(request: Request, slug: str, fmt: ListFormat, session: SessionDep,
               topic: str = "") -> StreamingResponse:
    return venue_download(request, session, slug, fmt, topic)


@router.get("/topics/{slug}.{fmt}", name="topic_download")
def topic_twin(request: Request, slug: str, fmt: ListFormat,
               where: ListFilterDep) -> StreamingResponse:
    return topic_download(request, slug, fmt, where)


@router.get("/search.{fmt}", name="search_download")
def search_twin(request: Request, fmt: ListFormat, search: SearchDep,
                query: SearchRequestDep) -> StreamingResponse:
    return search_download(request, search, query, fmt)
