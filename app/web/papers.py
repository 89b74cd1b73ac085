"""A paper's page, its citation (BibTeX, RIS) and its JSON twin (/api/papers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog
from app.exports import CitationFormat, bibtex_entry
from app.models import Edition, Paper
from app.outputs import ERRORS, RANKING_ERRORS
from app.paper_json import PaperDetailOut, RelatedOut
from app.search.rank.similar import Choice
from app.search.searcher import PaperSearch
from app.web.deps import ChoiceDep, PaperDep, ReadySearchDep, SearchDep, SessionDep
from app.web.formats import answer, render_view
from app.web.joined import related_papers
from app.web.likeness import LikenessForm
from app.web.urls import paper_url_for, related_path
from app.web.views import Answers, Citation

router = APIRouter(default_response_class=HTMLResponse)
# Related papers on their own page: the paper's page shows similar.RELATED_PAPERS.
RELATED_MORE = 20
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


@dataclass(frozen=True)
class RelatedView:
    """More papers like one paper than its page shows, of a series and year, newest first."""

    template: ClassVar[str] = "related.html"
    paper: Paper
    venue: Edition
    related: list[tuple[Paper, list[str]]]
    venues: dict[str, Edition]
    form: LikenessForm

    def context(self) -> dict[str, Any]:
        return dict(paper=self.paper, venue=self.venue, related=self.related,
                    venues=self.venues, form=self.form)


def related_view(request: Request, session: Session, search: PaperSearch, paper: Paper,
                 choice: Choice, limit: int = RELATED_MORE) -> RelatedView:
    return RelatedView(paper, catalog.paper_venue(session, paper),
                       related_papers(search, session, paper, choice, limit),
                       catalog.venues_by_slug(session),
                       LikenessForm.of(session, related_path(paper.id), {}, choice))


@router.get("/papers/{paper_id}/related", name="related_page")
def related_page(request: Request, found: PaperDep, session: SessionDep, search: ReadySearchDep,
                 choice: ChoiceDep) -> Response:
    return render_view(request, related_view(request, session, search, found, choice))


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
    return PaperDetailOut.of(found, view.venue, view.url, related=_related_out(request, view),
                             bibtex=view.bibtex)


@api.get("/papers/{paper_id}/related", name="api_related", responses=RANKING_ERRORS)
def related_api(request: Request, found: PaperDep, session: SessionDep, search: ReadySearchDep,
                choice: ChoiceDep,
                limit: Annotated[int, Query(ge=1, le=100)] = RELATED_MORE) -> list[RelatedOut]:
    """The papers most like this one (of a series and year; newest first when asked), each
    with the key terms of this paper it shares."""
    return _related_out(request, related_view(request, session, search, found, choice, limit))


def _related_out(request: Request, view: PaperView | RelatedView) -> list[RelatedOut]:
    """A view's related papers as the JSON lists them, each with the key terms it shares."""
    url_for = paper_url_for(request)
    return [RelatedOut.of(other, view.venues[other.edition_slug], url_for(other), shares=shared)
            for other, shared in view.related]
