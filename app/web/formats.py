"""A page in each of its formats: the URL's suffix (`/venues/icml-2026.csv`, a second path of
the page's route) or `?format=` picks the renderer from one table, RENDERERS. HTML renders
the view's template; every other format writes the page's papers as `exports.WRITERS` says
(CSV, JSON, BibTeX, RIS, Atom), or, on a paper's page, cites the paper. Each renderer makes
only what it needs of the page's `views.Answers`: a download never builds the view.

Rows stream from their own database session, a batch at a time. A long list comes in parts
of DOWNLOAD_PAPERS (`?part=2`), each naming the next in a `Link: <...>; rel="next"` header; a
feed holds the newest FEED_ENTRIES.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import islice

from fastapi import HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from sqlmodel import Session, col

from app import catalog
from app.catalog import PaperRows
from app.db import get_engine
from app.exports import WRITERS, Feed, bibtex_entry, ris_record
from app.models import Paper
from app.paging import Page, within_pages
from app.search.service import SearchService, Texts
from app.web.render import render
from app.web.urls import paper_url_for
from app.web.views import Answers, Citation, Listed, PageView, PaperList, Queried, Searched

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


def _texts(request: Request) -> Texts:
    """The papers' plain texts that the search layer reads as it ranks (those a description's
    closest papers share: a download lists its papers in the order of the pages)."""

    def texts(ids: list[str]) -> dict[str, str]:
        with Session(get_engine(request.app.state.settings.database_url)) as session:
            return catalog.plain_texts(session, ids)

    return texts


def _by_id(request: Request, ids: list[str]) -> PaperRows:
    return _streamed(request, lambda session: catalog.stream_papers_by_id(session, ids))


def download_part(request: Request) -> int:
    """The part of a list a download asks for (`?part=`, from 1)."""
    asked = request.query_params.get("part", "1")
    if not re.fullmatch(r"[0-9]{1,6}", asked) or asked.strip("0") == "":
        raise HTTPException(400, "part must be a whole number from 1 (the first part) to "
                                 "999999")
    return int(asked)


def _in_turns(body: Iterator[str], search: SearchService) -> Iterator[str]:
    """The download written a few hundred rows at a time, each turn in a searching slot: as
    CPU-bound as a search, six downloads at once held the interpreter lock from /healthz
    (p95 136 ms at L, bench/hostile.py)."""
    while piece := search.gated(lambda: "".join(islice(body, ROWS_PER_TURN))):
        yield piece


def _queried(request: Request, found: Queried, fmt: str) -> tuple[PaperRows, bool]:
    if fmt == "atom":
        return _streamed(request, lambda session: catalog.stream_papers(
            session, found.conditions, [col(Paper.added_at).desc()], FEED_ENTRIES)), False
    part = download_part(request)
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        total = catalog.count_papers(session, found.conditions)
    within_pages(Page([], part, total, DOWNLOAD_PAPERS), "part")
    return _streamed(request, lambda session: catalog.stream_papers(
        session, found.conditions, found.order, DOWNLOAD_PAPERS,
        (part - 1) * DOWNLOAD_PAPERS)), total > part * DOWNLOAD_PAPERS


def _ranked(request: Request, found: Searched, fmt: str) -> tuple[PaperRows, bool]:
    search: SearchService = request.app.state.search
    if fmt == "atom":
        ids = search.ranked_ids(found.query, _texts(request), limit=FEED_ENTRIES,
                                newest_first=True)
        return _by_id(request, ids), False
    part = download_part(request)
    # From the count (kept with the search): ranking a whole list to find a part past its end
    # cost a broad query's 88,000 papers at L. A first part is never past it: not counted.
    if part > 1:
        within_pages(Page([], part, search.counts(found.query).total, DOWNLOAD_PAPERS), "part")
    end = part * DOWNLOAD_PAPERS
    ranked = search.ranked_ids(found.query, _texts(request), limit=end + 1)
    return _by_id(request, ranked[end - DOWNLOAD_PAPERS:end]), len(ranked) > end


def _download(request: Request, papers: PaperList, fmt: str) -> StreamingResponse:
    """The papers as a download: a feed of the newest, or a part of the list."""
    match papers.found:
        case Queried() as found:
            rows, more = _queried(request, found, fmt)
        case Searched() as found:
            rows, more = _ranked(request, found, fmt)
        case Listed() as found:  # a reading list (at most MAX_LISTED papers) in one part
            rows, more = _by_id(request, found.ids), False
    writer = WRITERS[fmt]
    feed = Feed(papers.title, str(request.url), papers.page_url)
    body = _in_turns(writer.write(rows, paper_url_for(request), feed), request.app.state.search)
    disposition = "inline" if fmt in ("json", "atom") else "attachment"
    headers = {"Content-Disposition": f'{disposition}; filename="{papers.name}.{fmt}"'}
    if more:
        following = request.url.include_query_params(part=download_part(request) + 1)
        headers["Link"] = f'<{following.path}?{following.query}>; rel="next"'
    return StreamingResponse(body, media_type=writer.media_type, headers=headers)


def _cited(cited: Citation, fmt: str) -> Response:
    cite = bibtex_entry if fmt == "bib" else ris_record
    return Response(cite(cited.paper, cited.venue, cited.url), media_type=WRITERS[fmt].media_type)


def render_view(request: Request, view: PageView) -> Response:
    """The view's page: its template with its context."""
    return render(request, view.template, **view.context())


def _papers(request: Request, answers: Answers, fmt: str) -> Response:
    papers = answers.papers()
    if isinstance(papers, Citation):
        return _cited(papers, fmt)
    return _download(request, papers, fmt)


# Every format a page is answered in: its template, or its papers in a download format.
RENDERERS: dict[str, Callable[[Request, Answers, str], Response]] = {
    "html": lambda request, answers, _: render_view(request, answers.view()),
    **dict.fromkeys(WRITERS, _papers),
}


def answer(request: Request, answers: Answers, fmt: str | None) -> Response:
    """The page in the format the address asks for (None: the page itself)."""
    return RENDERERS[fmt or "html"](request, answers, fmt or "html")
