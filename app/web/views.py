"""One view per page: what a page shows, built once, rendered by its HTML route and returned
by its JSON twin, so that the twin carries everything the page does."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from sqlmodel import Session

from app import catalog, series
from app.catalog import Landscape
from app.exports import bibtex_entry
from app.models import Edition, Paper
from app.paging import Page
from app.people import rankings
from app.search.searcher import PaperSearch
from app.topics import Topic, load_taxonomy
from app.web.urls import paper_url_for
from app.whats_new.rising import WhatsNew, whats_new

EDITION_TERMS = 12  # rising terms on an edition's page


@dataclass(frozen=True)
class EditionView:
    """An edition's page: its papers (of one topic, when chosen), the topics, keyphrases,
    code links and publishing institutions and countries of the whole edition, and the
    editions of its series before and after, and what is new there."""

    venue: Edition
    topic: str
    listing: Page[Paper]
    series: series.Series
    previous: series.ListedEdition | None
    following: series.ListedEdition | None
    landscape: Landscape
    publishers: rankings.Publishers
    whats_new: WhatsNew | None  # against the series' previous editions


def edition_view(session: Session, search: PaperSearch, venue: Edition, topic: str,
                 page: int) -> EditionView:
    """The edition's view, of one `topic` (a slug the route has found) or all."""
    listing = (catalog.venue_topic_papers(session, venue, topic, page) if topic
               else catalog.venue_papers(session, venue, page))
    edition_series = series.series_of(session, venue)
    previous, following = edition_series.neighbours(venue.slug)
    return EditionView(venue, topic, listing, edition_series, previous, following,
                       catalog.venue_landscape(session, venue.slug),
                       rankings.publishers(session, [venue.slug]),
                       whats_new(search, edition=venue.slug, limit=EDITION_TERMS))


@dataclass(frozen=True)
class TopicsView:
    """The topics page: every topic, largest first in the range, and the topic × series
    matrix of papers within a range of years."""

    topics: list[Topic]
    matrix: series.TopicMatrix


def topics_view(session: Session, first: int | None, last: int | None) -> TopicsView:
    matrix = series.topic_matrix(session, first, last)
    return TopicsView(sorted(load_taxonomy().topics,
                             key=lambda t: (-matrix.row_total(t.slug), t.name)), matrix)


@dataclass(frozen=True)
class TopicView:
    """A topic's page: its papers (of one edition, series or year, when chosen), its share of
    each year's papers, where its papers come from, and its frequent keyphrases."""

    topic: Topic
    listing: Page[Paper]
    where: catalog.ListFilter
    years: list[tuple[int, int, int]]  # (year, papers on the topic, all papers)
    spread: series.TopicSpread
    keyphrases: list[tuple[str, int]]


def topic_view(session: Session, topic: Topic, where: catalog.ListFilter,
               page: int) -> TopicView:
    return TopicView(topic, catalog.topic_papers(session, topic, page, where), where,
                     catalog.topic_year_counts(session, topic.slug),
                     series.topic_spread(session, topic.slug),
                     catalog.topic_keyphrases(session, topic.slug))


@dataclass(frozen=True)
class PaperView:
    """A paper's page: the paper, its edition, its related papers with the key terms they
    share, and its BibTeX entry naming the page's address."""

    paper: Paper
    venue: Edition
    related: list[tuple[Paper, list[str]]]
    venues: dict[str, Edition]  # every edition by slug, to label the related papers
    url: str
    bibtex: str


def paper_view(request: Request, session: Session, paper: Paper,
               related: list[tuple[Paper, list[str]]]) -> PaperView:
    """The paper's view, with its `related` papers (web/results.related_papers)."""
    venue = catalog.paper_venue(session, paper)
    url = paper_url_for(request)(paper)
    return PaperView(paper, venue, related,
                     catalog.venues_by_slug(session), url, bibtex_entry(paper, venue, url))
