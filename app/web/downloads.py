"""Downloads: any list of papers as CSV, JSON, BibTeX or RIS, Atom feeds, and one paper's
BibTeX or RIS, each format written as `exports.WRITERS` says.

A page's route answers its downloads, by suffix (`/venues/icml-2026.csv`, a second path of
the same route) or `?format=`; the functions here build them.
Rows stream from their own database session, a batch at a time. A long list comes in parts
of DOWNLOAD_PAPERS (`?part=2`), each naming the next in a `Link: <...>; rel="next"` header.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from sqlmodel import Session, col

from app import catalog, people
from app.catalog import PaperRows
from app.db import get_engine
from app.exports import WRITERS, CitationFormat, Feed, bibtex_entry, ris_record
from app.models import Edition, Paper
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.topics import Topic
from app.web.urls import paper_url_for, profile_path, search_query_string

FEED_ENTRIES = 50
# Papers in one download: the whole catalog's 88,000 in one took 17 s of a CPU and 50 MB for
# a request of 20 bytes; 5,000 took 1.0 s as JSON (bench/hostile.py). 2,000 hold the largest
# edition (1,645 papers) whole.
DOWNLOAD_PAPERS = 2_000
ROWS_PER_TURN = 200  # rows written per turn in a searching slot: about 40 ms at L


def _streamed(request: Request, rows: Callable[[Session], PaperRows]) -> PaperRows:
    """Rows read from a database session of their own: a download streams on after the
    request's session has closed."""
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        yield from rows(session)


def rows_from_ids(request: Request, ids: list[str]) -> PaperRows:
    return _streamed(request, lambda session: catalog.stream_papers_by_id(session, ids))


def download_part(request: Request) -> int:
    """The part of a list a download asks for (`?part=`, from 1)."""
    asked = request.query_params.get("part", "1")
    if not re.fullmatch(r"[0-9]{1,6}", asked) or asked.strip("0") == "":
        raise HTTPException(400, "part must be a whole number from 1 (the first part)")
    return int(asked)


def list_response(request: Request, rows: PaperRows, fmt: str, name: str, title: str,
                  page_url: str, more: bool = False) -> StreamingResponse:
    """The rows as a download; `more`: a further part of the list follows this one."""
    writer = WRITERS[fmt]
    body = _in_turns(writer.write(rows, paper_url_for(request), Feed(title, str(request.url),
                                                                       page_url)),
                     request.app.state.search)
    disposition = "inline" if fmt in ("json", "atom") else "attachment"
    headers = {"Content-Disposition": f'{disposition}; filename="{name}.{fmt}"'}
    if more:
        following = request.url.include_query_params(part=download_part(request) + 1)
        headers["Link"] = f'<{following.path}?{following.query}>; rel="next"'
    return StreamingResponse(body, media_type=writer.media_type, headers=headers)


def _in_turns(body: Iterator[str], search: PaperSearch) -> Iterator[str]:
    """The download written a few hundred rows at a time, each turn in a searching slot: as
    CPU-bound as a search, six downloads at once held the interpreter lock from /healthz
    (p95 136 ms at L, bench/hostile.py)."""
    while piece := search.gated(lambda: "".join(islice(body, ROWS_PER_TURN))):
        yield piece


def listed_download(request: Request, conditions: list[Any], order: list[Any], fmt: str,
                    name: str, title: str, page_url: str) -> StreamingResponse:
    """The papers that meet the conditions: a feed of the newest, or a part of the list."""
    if fmt == "atom":
        rows = _streamed(request, lambda session: catalog.stream_papers(
            session, conditions, [col(Paper.added_at).desc()], FEED_ENTRIES))
        return list_response(request, rows, fmt, name, title, page_url)
    part = download_part(request)
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        total = catalog.count_papers(session, conditions)
    rows = _streamed(request, lambda session: catalog.stream_papers(
        session, conditions, order, DOWNLOAD_PAPERS, (part - 1) * DOWNLOAD_PAPERS))
    return list_response(request, rows, fmt, name, title, page_url,
                         more=total > part * DOWNLOAD_PAPERS)


def venue_download(request: Request, venue: Edition, fmt: str,
                   topic: str = "") -> StreamingResponse:
    conditions = [Paper.venue_slug == venue.slug] + ([Paper.topic == topic] if topic else [])
    return listed_download(request, conditions, [Paper.ordinal], fmt, venue.slug,
                           f"{venue.label}: new papers",
                           str(request.url_for("venue", slug=venue.slug)))


def topic_download(request: Request, topic: Topic, fmt: str,
                   where: catalog.ListFilter) -> StreamingResponse:
    return listed_download(request, catalog.topic_conditions(topic, where),
                           [Paper.venue_slug, Paper.ordinal], fmt, topic.slug,
                           f"{topic.name}: new papers",
                           str(request.url_for("topic", slug=topic.slug)))


def profile_download(request: Request, found: people.Profile, fmt: str) -> StreamingResponse:
    """The papers of an author, institution or country (of the chosen series or year)."""
    return listed_download(request, people.listing_conditions(found.kind, found.slug,
                                                              found.where),
                           people.newest_first(), fmt, found.slug,
                           f"{found.summary.name}: new papers",
                           str(request.base_url).rstrip("/")
                           + profile_path(found.kind, found.slug))


def search_download(request: Request, search: PaperSearch, query: SearchRequest,
                    fmt: str) -> StreamingResponse:
    page_url = f"{request.url_for('search')}?{search_query_string(query, page=1)}"
    title = f"Search: {query.q}" if query.q else "Search"
    if fmt == "atom":
        ids = search.ranked_ids(query, limit=FEED_ENTRIES, newest_first=True)
        return list_response(request, rows_from_ids(request, ids), fmt, "search", title,
                             page_url)
    end = download_part(request) * DOWNLOAD_PAPERS
    ranked = search.ranked_ids(query, limit=end + 1)
    return list_response(request, rows_from_ids(request, ranked[end - DOWNLOAD_PAPERS:end]),
                         fmt, "search", title, page_url, more=len(ranked) > end)


def paper_citation(request: Request, session: Session, paper: Paper,
                   fmt: CitationFormat) -> Response:
    """One paper's BibTeX entry or RIS record."""
    venue = catalog.paper_venue(session, paper)
    cite = bibtex_entry if fmt == "bib" else ris_record
    return Response(cite(paper, venue, paper_url_for(request)(paper)),
                    media_type=WRITERS[fmt].media_type)
