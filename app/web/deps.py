"""Request-scoped dependencies shared by the HTML and JSON routes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Annotated, Literal

from fastapi import Depends, Query, Request
from sqlmodel import Session

from app.catalog import ListFilter, papers_by_id
from app.db import get_engine
from app.ids import slugify
from app.models import Paper
from app.search.results import SearchRequest, SearchResult
from app.search.searcher import PaperSearch


def get_session(request: Request) -> Iterator[Session]:
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        yield session


def get_search(request: Request) -> PaperSearch:
    return request.app.state.search


def search_request(
    q: Annotated[str, Query(description="Query text; see /help/search")] = "",
    series: Annotated[str, Query(description="Series slug, e.g. neurips")] = "",
    venue: Annotated[str, Query(description="Edition slug, e.g. neurips-2018")] = "",
    year: Annotated[int | None, Query(ge=1900, le=2100)] = None,
    topic: Annotated[str, Query(description="Topic slug")] = "",
    status: Annotated[str, Query(description="Status slug, e.g. oral, spotlight, poster")] = "",
    has: Annotated[Literal["", "code"], Query(description="'code': only papers with code")] = "",
    sort: Annotated[Literal["relevance", "venue"], Query()] = "relevance",
    page: Annotated[int, Query(ge=1, le=10_000)] = 1,
) -> SearchRequest:
    return SearchRequest(q=q, series=slugify(series), venue=venue, year=year, topic=topic,
                         status=slugify(status), has=has, sort=sort, page=page)


def list_filter(
    venue: Annotated[str, Query(description="Edition slug, e.g. neurips-2018")] = "",
    series: Annotated[str, Query(description="Series slug, e.g. neurips")] = "",
    year: Annotated[int | None, Query(ge=1900, le=2100)] = None,
) -> ListFilter:
    return ListFilter(venue=venue, series=slugify(series), year=year)


SessionDep = Annotated[Session, Depends(get_session)]
ListFilterDep = Annotated[ListFilter, Depends(list_filter)]
SearchDep = Annotated[PaperSearch, Depends(get_search)]
SearchRequestDep = Annotated[SearchRequest, Depends(search_request)]
PageDep = Annotated[int, Query(ge=1, le=100_000, description="1-based page number")]


class PaperLoader:
    """Papers read once per request: the search layer asks for the plain text of the papers
    it highlights or compares, and the page then shows the same papers."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.loaded: dict[str, Paper] = {}

    def papers(self, ids: list[str]) -> dict[str, Paper]:
        missing = [pid for pid in ids if pid not in self.loaded]
        if missing:
            self.loaded.update(papers_by_id(self.session, missing))
        return {pid: self.loaded[pid] for pid in ids if pid in self.loaded}

    def texts(self, ids: list[str]) -> dict[str, str]:
        return {pid: paper.plain for pid, paper in self.papers(ids).items()}


def run_search(search: PaperSearch, session: Session,
               request: SearchRequest) -> tuple[SearchResult, dict[str, Paper]]:
    """The search result and its papers. A hit whose paper the database no longer holds (an
    ingest committed, the index not yet updated) is left out rather than shown broken."""
    loader = PaperLoader(session)
    result = search.search(request, loader.texts)
    papers = loader.papers([hit.id for hit in [*result.hits, *result.partial]])
    shown = [hit for hit in result.hits if hit.id in papers]
    partial = [hit for hit in result.partial if hit.id in papers]
    if len(shown) < len(result.hits) or len(partial) < len(result.partial):
        result = replace(result, hits=shown, partial=partial)
    return result, papers


def related_papers(search: PaperSearch, session: Session,
                   paper: Paper) -> list[tuple[Paper, list[str]]]:
    """The paper's most similar papers with the key terms they share."""
    loader = PaperLoader(session)
    related = search.related(paper.id, paper.plain, loader.texts)
    papers = loader.papers([r.id for r in related])
    return [(papers[r.id], r.shared_terms) for r in related if r.id in papers]
