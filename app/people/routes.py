"""JSON twins of the people pages: authors, institutions and countries (app/people/)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlmodel import Session

from app import people
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
from app.web.deps import (
    AuthorDep,
    CountryDep,
    InstitutionDep,
    RankingScopeDep,
    SearchDep,
    SessionDep,
)
from app.web.shapes import named_out, papers_out

router = APIRouter(prefix="/api", tags=["people"], responses=ERRORS)


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


@router.get("/authors", name="api_authors")
def authors(search: SearchDep, session: SessionDep, request: Request,
            q: Annotated[str, Query(max_length=200)] = "") -> AuthorsFoundOut:
    """Authors whose name, or a later part of it (the surname), starts with `q`, most
    papers first."""
    found = people.find_authors(session, q, search.author_names(q, people.FOUND_AUTHORS))
    return AuthorsFoundOut(q=q, authors=[named_out(request, "author", a) for a in found])


@router.get("/authors/{slug}", name="api_author")
def author(request: Request, found: AuthorDep, session: SessionDep) -> ProfileOut:
    """An author's papers per year, series, co-authors, affiliations, topics and papers
    (newest first; `series`, `year` and `page` choose)."""
    return profile_out(request, session, found)


@router.get("/institutions/{slug}", name="api_institution")
def institution(request: Request, found: InstitutionDep, session: SessionDep) -> ProfileOut:
    """An institution's papers per year, series, most frequent authors, topics and papers."""
    return profile_out(request, session, found)


@router.get("/countries/{slug}", name="api_country")
def country(request: Request, found: CountryDep, session: SessionDep) -> ProfileOut:
    """A country's papers per year, series, most frequent authors, topics and papers."""
    return profile_out(request, session, found)


def ranking_out(request: Request, session: Session, kind: people.Kind,
                chosen: rankings.Scope) -> RankingOut:
    found = rankings.ranking(session, kind, chosen)
    return RankingOut(
        kind=kind, series=chosen.series or None, first_year=found.first, last_year=found.last,
        papers=found.papers, known=found.known, before=found.before or None,
        ranked=[RankedOut(**named_out(request, kind, people.Named(r.slug, r.name, r.papers))
                          .model_dump(), share=r.share, previous=r.previous, change=r.change)
                for r in found.rows])


@router.get("/institutions", name="api_institutions")
def institutions(request: Request, session: SessionDep, chosen: RankingScopeDep) -> RankingOut:
    """Institutions by papers in a series (all when empty) and range of years (the latest
    year when none; an open end is the series' first or last year), with their share and
    the change against the editions just before."""
    return ranking_out(request, session, "institution", chosen)


@router.get("/countries", name="api_countries")
def countries(request: Request, session: SessionDep, chosen: RankingScopeDep) -> RankingOut:
    """Countries by papers, as /api/institutions ranks institutions."""
    return ranking_out(request, session, "country", chosen)
