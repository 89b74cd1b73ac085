"""Request-scoped dependencies shared by the HTML and JSON routes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Query, Request
from sqlmodel import Session

from app.catalog import papers_by_id
from app.config import Settings
from app.db import get_engine
from app.search.searcher import PaperSearch, SearchResult


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        yield session


def get_search(request: Request) -> PaperSearch:
    return request.app.state.search


SessionDep = Annotated[Session, Depends(get_session)]
SearchDep = Annotated[PaperSearch, Depends(get_search)]
PageDep = Annotated[int, Query(ge=1, le=100_000, description="1-based page number")]


def run_search(
    search: PaperSearch, session: Session, q: str, venue: str | None, page: int
) -> SearchResult:
    def texts(ids: list[str]) -> dict[str, str]:
        return {pid: paper.plain for pid, paper in papers_by_id(session, ids).items()}

    return search.search(q, texts, venue=venue or None, page=page)
