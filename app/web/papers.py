"""A paper's page, its citation (BibTeX, RIS) and its JSON twin (/api/papers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog
from app.exports import CitationFormat, bibtex_entry
from app.models import Edition, Paper
from app.outputs import ERRORS, PaperDetailOut, PaperOut, RelatedOut
from app.search.searcher import PaperSearch
from app.web.deps import PaperDep, SearchDep, SessionDep
from app.web.formats import answer
from app.web.results import related_papers
from app.web.urls import paper_url_for
from app.web.views import Answers, Citation

router = APIRouter(default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)


@dataclass(frozen=True)
class PaperView:
    """A paper's page: the paper, its edition, its related papers with the key terms they
    share, and its BibTeX entry naming the page's address."""

    template: ClassVar[str] = "paper.html"
    paper: Paper
    venue: Edition
    related: list[tuple[Paper, list[str]]]
    venues: dict[str, Edition]  # every edition by slug, to label the related papers
    url: str
    bibtex: str

    def context(self) -> dict[str, Any]:
        return dict(paper=self.paper, venue=self.venue, related=self.related,
                    venues=self.venues, page_url=self.url, bibtex=self.bibtex)


def paper_view(request: Request, session: Session, search: PaperSearch,
               paper: Paper) -> PaperView:
    venue = catalog.paper_venue(session, paper)
    url = paper_url_for(request)(paper)
    return PaperView(paper, venue, related_papers(search, session, paper),
                     catalog.venues_by_slug(session), url, bibtex_entry(paper, venue, url))


@router.get("/papers/{paper_id}")
@router.get("/papers/{paper_id}.{format}", name="paper_citation", tags=["downloads"])
def paper(request: Request, found: PaperDep, session: SessionDep, search: SearchDep,
          format: CitationFormat | None = None) -> Response:
    return answer(request, Answers(
        lambda: paper_view(request, session, search, found),
        lambda: Citation(found, catalog.paper_venue(session, found),
                         paper_url_for(request)(found))), format)


@api.get("/papers/{paper_id}", name="api_paper")
def paper_api(request: Request, found: PaperDep, session: SessionDep,
              search: SearchDep) -> PaperDetailOut:
    """A paper, its related papers (with the key terms they share) and its BibTeX entry."""
    view = paper_view(request, session, search, found)
    url_for = paper_url_for(request)
    related = [RelatedOut(id=other.id, headline=other.headline,
                          venue=view.venues[other.edition_slug].label, url=url_for(other),
                          shares=shared)
               for other, shared in view.related]
    return PaperDetailOut(**PaperOut.of(found, view.venue, view.url).model_dump(),
                          related=related, bibtex=view.bibtex)
