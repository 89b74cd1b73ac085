"""The JSON twins' parts (app/outputs.py) made from the catalog's objects, with this request's
addresses: what the JSON twins of several resources build their answers from."""

from __future__ import annotations

from fastapi import Request
from sqlmodel import Session

from app import catalog, people, series
from app.models import Edition, Paper
from app.outputs import EditionOut, NamedOut, NewTermOut, SeriesOut, VenueOut, WhatsNewOut
from app.paper_json import PaperOut
from app.people import rankings
from app.web.urls import paper_url_for, profile_path, search_path, trends_path
from app.whats_new.found import NewTerm, WhatsNew


def named_out(request: Request, kind: str, named: people.Named) -> NamedOut:
    """An author, institution or country with its papers, and the address of its page."""
    return NamedOut(slug=named.slug, name=named.name, papers=named.papers,
                    url=str(request.base_url).rstrip("/") + profile_path(kind, named.slug))


def publishers_out(request: Request, found: rankings.Publishers) -> dict[str, list[NamedOut]]:
    return {"institutions": [named_out(request, "institution", n) for n in found.institutions],
            "countries": [named_out(request, "country", n) for n in found.countries]}


def whats_new_out(request: Request, found: WhatsNew) -> WhatsNewOut:
    base = str(request.base_url).rstrip("/")

    def term_out(term: NewTerm) -> NewTermOut:
        return NewTermOut(term=term.shown, meaning=term.meaning, papers=term.papers,
                          share=round(term.share, 6),
                          before=term.before, before_share=round(term.before_share, 6),
                          score=term.score,
                          search_url=base + search_path(term.query, **found.filters),
                          trend_url=base + trends_path(term.query))

    return WhatsNewOut(editions=found.editions, years=found.years, papers=found.papers,
                       before_editions=found.before_editions, before_years=found.before_years,
                       before_papers=found.before_papers,
                       rising=[term_out(t) for t in found.rising],
                       first_seen=[term_out(t) for t in found.first_seen])


def venue_out(request: Request, venue: Edition) -> VenueOut:
    return VenueOut(slug=venue.slug, name=venue.name, year=venue.year, label=venue.label,
                    paper_count=venue.paper_count,
                    url=str(request.url_for("venue", slug=venue.slug)))


def papers_out(request: Request, session: Session, papers: list[Paper]) -> list[PaperOut]:
    venues = catalog.venues_by_slug(session)
    url_for = paper_url_for(request)
    return [PaperOut.of(p, venues[p.edition_slug], url_for(p)) for p in papers]


def edition_out(request: Request, edition: series.Edition) -> EditionOut:
    return EditionOut(slug=edition.slug, year=edition.year, papers=edition.papers,
                      url=str(request.url_for("venue", slug=edition.slug)))


def series_out(request: Request, found: series.Series) -> SeriesOut:
    return SeriesOut(
        slug=found.slug, name=found.name, papers=found.papers,
        url=str(request.url_for("venue", slug=found.slug)),
        editions=[edition_out(request, e) for e in found.editions])
