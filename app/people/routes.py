"""The people pages: authors found by name, an author's, institution's or country's profile
and its downloads, institutions and countries ranked, and their JSON twins (app/people/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app import catalog, people, series
from app.exports import ListFormat
from app.models import Edition
from app.outputs import (
    ERRORS,
    AuthorsFoundOut,
    EditionCountOut,
    PhraseCount,
    ProfileOut,
    RankedOut,
    RankingOut,
    SeriesCountOut,
    YearCount,
)
from app.people import rankings
from app.search.searcher import PaperSearch
from app.web import charts
from app.web.deps import (
    AuthorDep,
    CountryDep,
    InstitutionDep,
    RankingScopeDep,
    SearchDep,
    SessionDep,
)
from app.web.formats import answer, render_view
from app.web.shapes import named_out, papers_out
from app.web.urls import profile_path
from app.web.views import Answers, PaperList, Queried

router = APIRouter(default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["people"], responses=ERRORS)
NameParam = Annotated[str, Query(max_length=200)]


@dataclass(frozen=True)
class ProfileView:
    """An author's, institution's or country's page: its profile (of the chosen series or
    year), its papers whole, and the names of the editions and series it lists."""

    template: ClassVar[str] = "profile.html"
    profile: people.Profile
    venues: dict[str, Edition]

    def context(self) -> dict[str, Any]:
        found, summary = self.profile, self.profile.summary
        chart = charts.column_chart(
            f"Papers per year of {summary.name}",
            [(year, n, profile_path(found.kind, found.slug, year=year) + "#papers")
             for year, n in summary.years])
        return dict(profile=found, summary=summary,
                    chart=chart if len(summary.years) > 1 else None, venues=self.venues,
                    series_names={s.slug: s.name for s in summary.series})


def _profile(request: Request, session: Session, found: people.Profile) -> Answers:
    """The profile's page, or its papers (of the chosen series or year), whole: its
    downloads."""
    return Answers(lambda: ProfileView(found, catalog.venues_by_slug(session)), lambda: PaperList(
        Queried(people.listing_conditions(found.kind, found.slug, found.where),
                people.newest_first()), found.slug, f"{found.summary.name}: new papers",
        str(request.base_url).rstrip("/") + profile_path(found.kind, found.slug)))


@dataclass(frozen=True)
class AuthorsView:
    """Authors whose name, or a later part of it (the surname), starts with what was asked."""

    template: ClassVar[str] = "authors.html"
    q: str
    found: list[people.Named]

    def context(self) -> dict[str, Any]:
        return dict(q=self.q, found=self.found)


def authors_view(session: Session, search: PaperSearch, q: str) -> AuthorsView:
    return AuthorsView(q, people.find_authors(session, q,
                                              search.author_names(q, people.FOUND_AUTHORS)))


@router.get("/authors")
def authors(request: Request, session: SessionDep, search: SearchDep,
            q: NameParam = "") -> Response:
    return render_view(request, authors_view(session, search, q))


@router.get("/authors/{slug}")
@router.get("/authors/{slug}.{format}", name="author_download", tags=["downloads"])
def author(request: Request, found: AuthorDep, session: SessionDep,
           format: ListFormat | None = None) -> Response:
    return answer(request, _profile(request, session, found), format)


@router.get("/institutions/{slug}")
@router.get("/institutions/{slug}.{format}", name="institution_download", tags=["downloads"])
def institution(request: Request, found: InstitutionDep, session: SessionDep,
                format: ListFormat | None = None) -> Response:
    return answer(request, _profile(request, session, found), format)


@router.get("/countries/{slug}")
@router.get("/countries/{slug}.{format}", name="country_download", tags=["downloads"])
def country(request: Request, found: CountryDep, session: SessionDep,
            format: ListFormat | None = None) -> Response:
    return answer(request, _profile(request, session, found), format)


@dataclass(frozen=True)
class RankingView:
    """The institutions' or countries' ranking in a series and range of years, and the
    series and years it can be asked of."""

    template: ClassVar[str] = "ranking.html"
    ranking: rankings.Ranking
    all_series: list[series.Series]
    all_years: list[int]

    def context(self) -> dict[str, Any]:
        return dict(ranking=self.ranking, all_series=self.all_series, all_years=self.all_years)


def ranking_view(session: Session, kind: people.Kind, chosen: rankings.Scope) -> RankingView:
    return RankingView(rankings.ranking(session, kind, chosen), series.list_series(session),
                       sorted({v.year for v in catalog.list_venues(session)}))


@router.get("/institutions")
def institutions(request: Request, session: SessionDep, chosen: RankingScopeDep) -> Response:
    return render_view(request, ranking_view(session, "institution", chosen))


@router.get("/countries")
def countries(request: Request, session: SessionDep, chosen: RankingScopeDep) -> Response:
    return render_view(request, ranking_view(session, "country", chosen))


def profile_out(request: Request, session: Session, found: people.Profile) -> ProfileOut:
    summary = found.summary
    return ProfileOut(
        kind=found.kind, slug=found.slug, name=summary.name, paper_count=summary.papers,
        years=[YearCount(year=year, papers=n) for year, n in summary.years],
        series=[SeriesCountOut(slug=s.slug, name=s.name, papers=s.papers, editions=[
            EditionCountOut(slug=e.slug, label=e.name, papers=e.papers) for e in s.editions])
            for s in summary.series],
        topics=dict(summary.topics),
        keyphrases=[PhraseCount(phrase=k, papers=n) for k, n in summary.keyphrases],
        people=[named_out(request, "author", named) for named in summary.people],
        affiliations=[PhraseCount(phrase=a, papers=n) for a, n in summary.affiliations],
        series_filter=found.where.series or None, year_filter=found.where.year,
        page=found.listing.number, pages=found.listing.pages,
        papers=papers_out(request, session, found.listing.items))


@api.get("/authors", name="api_authors")
def authors_api(search: SearchDep, session: SessionDep, request: Request,
                q: NameParam = "") -> AuthorsFoundOut:
    """Authors whose name, or a later part of it (the surname), starts with `q`, most
    papers first."""
    found = authors_view(session, search, q).found
    return AuthorsFoundOut(q=q, authors=[named_out(request, "author", a) for a in found])


@api.get("/authors/{slug}", name="api_author")
def author_api(request: Request, found: AuthorDep, session: SessionDep) -> ProfileOut:
    """An author's papers per year, series, co-authors, affiliations, topics and papers
    (newest first; `series`, `year` and `page` choose)."""
    return profile_out(request, session, found)


@api.get("/institutions/{slug}", name="api_institution")
def institution_api(request: Request, found: InstitutionDep,
                    session: SessionDep) -> ProfileOut:
    """An institution's papers per year, series, most frequent authors, topics and papers."""
    return profile_out(request, session, found)


@api.get("/countries/{slug}", name="api_country")
def country_api(request: Request, found: CountryDep, session: SessionDep) -> ProfileOut:
    """A country's papers per year, series, most frequent authors, topics and papers."""
    return profile_out(request, session, found)


def ranking_out(request: Request, session: Session, kind: people.Kind,
                chosen: rankings.Scope) -> RankingOut:
    found = ranking_view(session, kind, chosen).ranking
    return RankingOut(
        kind=kind, series=chosen.series or None, first_year=found.first, last_year=found.last,
        papers=found.papers, known=found.known, before=found.before or None,
        ranked=[RankedOut(**named_out(request, kind, people.Named(r.slug, r.name, r.papers))
                          .model_dump(), share=r.share, previous=r.previous, change=r.change)
                for r in found.rows])


@api.get("/institutions", name="api_institutions")
def institutions_api(request: Request, session: SessionDep,
                     chosen: RankingScopeDep) -> RankingOut:
    """Institutions by papers in a series (all when empty) and range of years (the latest
    year when none; an open end is the series' first or last year), with their share and
    the change against the editions just before."""
    return ranking_out(request, session, "institution", chosen)


@api.get("/countries", name="api_countries")
def countries_api(request: Request, session: SessionDep,
                  chosen: RankingScopeDep) -> RankingOut:
    """Countries by papers, as /api/institutions ranks institutions."""
    return ranking_out(request, session, "country", chosen)
