"""The reading list: a list of paper IDs that lives in the reader's browser and reaches the
server only as a query string (`/saved?ids=ID1,ID2`), so a list can be shared by link and
works without JavaScript. The page shows the papers, their exports and the papers most like
them; `/api/recommendations` is its JSON twin for the recommendations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog
from app.exports import bibtex_entry
from app.ids import ID_LIST, MAX_LISTED, parse_paper_ids
from app.models import Edition, Paper
from app.outputs import ERRORS, RANKING_ERRORS
from app.paper_json import RecommendationOut, RecommendationsOut
from app.search.rank.similar import Choice, Recommendation
from app.search.searcher import PaperSearch
from app.web.deps import ChoiceDep, ReadySearchDep, SearchDep, SessionDep
from app.web.formats import answer
from app.web.joined import RECOMMENDED, recommend
from app.web.likeness import LikenessForm
from app.web.render import render
from app.web.urls import paper_url_for
from app.web.views import Answers, Listed, PaperList

router = APIRouter()
api = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)
SavedFormat = Literal["csv", "json", "bib", "ris"]
IdsParam = Annotated[str, Query(description=f"Comma-separated paper IDs, at most {MAX_LISTED}")]


@dataclass
class SavedList:
    ids: list[str]  # the known IDs, in the list's order
    unknown: list[str]  # well-formed IDs the catalog does not hold
    papers: list[Paper]


def saved_list(session: Session, text: str) -> SavedList:
    """The list's papers; ValueError for a malformed list (see `parse_paper_ids`)."""
    ids = parse_paper_ids(text)
    found = catalog.papers_by_id(session, ids)
    return SavedList([pid for pid in ids if pid in found],
                     [pid for pid in ids if pid not in found], [found[pid] for pid in ids
                                                                if pid in found])


def _parsed(session: Session, ids: str) -> SavedList:
    try:
        return saved_list(session, ids)
    except ValueError as error:
        raise HTTPException(400, str(error)) from None


@dataclass(frozen=True)
class SavedView:
    """The reading list's page: its papers, their BibTeX, and the papers most like them (as
    the form chooses)."""

    template: ClassVar[str] = "saved.html"
    listed: SavedList
    venues: dict[str, Edition]
    recommended: list[tuple[Paper, Recommendation]]
    form: LikenessForm
    bibtex: str

    def context(self) -> dict[str, Any]:
        return dict(listed=self.listed, venues=self.venues, recommended=self.recommended,
                    form=self.form, bibtex=self.bibtex)


def saved_view(request: Request, session: Session, search: PaperSearch, listed: SavedList,
               choice: Choice) -> SavedView:
    venues = catalog.venues_by_slug(session)
    url_for = paper_url_for(request)
    return SavedView(
        listed, venues, recommend(search, session, listed.ids, choice),
        LikenessForm.of(session, "/saved", {"ids": ",".join(listed.ids)}, choice),
        "\n".join(bibtex_entry(p, venues[p.edition_slug], url_for(p)) for p in listed.papers))


@router.get("/saved", response_class=HTMLResponse)
@router.get("/saved.{format}", name="saved_download", tags=["downloads"])
def saved_page(request: Request, session: SessionDep, search: SearchDep, choice: ChoiceDep,
               ids: IdsParam = "", format: SavedFormat | None = None) -> Response:
    try:
        listed = saved_list(session, ids)
    except ValueError as error:
        if format:
            raise HTTPException(400, str(error)) from None
        return render(request, "saved.html", status_code=400, error=str(error),
                      listed=SavedList([], [], []))
    return answer(request, Answers(
        lambda: saved_view(request, session, search, listed, choice),
        lambda: PaperList(Listed(listed.ids), "reading-list", "Reading list",
                          str(request.url_for("saved_page")))), format)


@api.get("/recommendations", name="api_recommendations", responses=RANKING_ERRORS)
def recommendations(
    request: Request, session: SessionDep, search: ReadySearchDep,
    ids: Annotated[str, Query(description=f"Comma-separated paper IDs, 1 to {MAX_LISTED}",
                              pattern=ID_LIST, max_length=MAX_LISTED * 17 - 1)],
    choice: ChoiceDep, limit: Annotated[int, Query(ge=1, le=100)] = RECOMMENDED,
) -> RecommendationsOut:
    """The papers most like the listed ones taken together, none of them listed nor marked
    "less like this", best first (or newest first), each with the list's words it shares.
    Unknown IDs are reported and ignored."""
    listed = _parsed(session, ids)
    venues = catalog.venues_by_slug(session)
    url_for = paper_url_for(request)
    return RecommendationsOut(ids=listed.ids, unknown=listed.unknown, papers=[
        RecommendationOut.of(paper, venues[paper.edition_slug], url_for(paper),
                             score=found.score, shares=found.shares)
        for paper, found in recommend(search, session, listed.ids, choice, limit)])
