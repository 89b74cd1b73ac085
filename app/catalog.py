"""Read access to the catalog: what pages and the JSON API show, in one place."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.models import Paper, Venue

VENUE_PAGE_SIZE = 50


@dataclass
class PaperPage:
    venue: Venue
    page: int
    papers: list[Paper]

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.venue.paper_count / VENUE_PAGE_SIZE))


def list_venues(session: Session) -> list[Venue]:
    return list(session.exec(select(Venue).order_by(col(Venue.year).desc(), Venue.name)))


def get_venue(session: Session, slug: str) -> Venue | None:
    return session.get(Venue, slug)


def venue_papers(session: Session, venue: Venue, page: int) -> PaperPage:
    """One page of a venue's papers, by ordinal range so deep pages cost what page 1 does."""
    start = (max(page, 1) - 1) * VENUE_PAGE_SIZE
    papers = session.exec(
        select(Paper)
        .where(Paper.venue_slug == venue.slug)
        .where(Paper.ordinal >= start, Paper.ordinal < start + VENUE_PAGE_SIZE)
        .order_by(Paper.ordinal)
    ).all()
    return PaperPage(venue=venue, page=max(page, 1), papers=list(papers))


def get_paper(session: Session, paper_id: str) -> Paper | None:
    return session.get(Paper, paper_id)


def papers_by_id(session: Session, ids: list[str]) -> dict[str, Paper]:
    if not ids:
        return {}
    return {p.id: p for p in session.exec(select(Paper).where(col(Paper.id).in_(ids)))}


def venues_by_slug(session: Session) -> dict[str, Venue]:
    return {venue.slug: venue for venue in list_venues(session)}


def paper_count(session: Session) -> int:
    return session.exec(select(func.count()).select_from(Paper)).one()
