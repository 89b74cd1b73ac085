"""Read access to the catalog: what pages and the JSON API show, in one place."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.db import batched, catalog_version
from app.models import Edition, Paper
from app.paging import Page
from app.topics import Topic

T = TypeVar("T")
VENUE_PAGE_SIZE = 50
_MEMO_LIMIT = 2048
_memo: dict[tuple[Any, ...], Any] = {}


def memoized(session: Session, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """compute(), remembered until an ingest changes the catalog version of this database.

    For aggregates over many papers (a venue's topic chart, a topic's keyphrases) that every
    view of a page would otherwise recompute."""
    full_key = (*version_key(session), *key)
    if full_key not in _memo:
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        _memo[full_key] = compute()
    return _memo[full_key]


def version_key(session: Session) -> tuple[str, int]:
    """The database and its catalog version: what keys anything computed from the catalog."""
    # The version is read once per session (a request): a page asks for several aggregates.
    version = session.info.get("catalog_version")
    if version is None:
        version = session.info["catalog_version"] = catalog_version(session)
    return str(session.get_bind().url), version


def list_venues(session: Session) -> list[Edition]:
    """Every edition, newest first; read once per catalog version (every page asks)."""
    def load() -> list[Edition]:
        venues = list(session.exec(
            select(Edition).order_by(col(Edition.year).desc(), Edition.name)))
        for venue in venues:  # kept beyond this session: detached, attributes loaded
            session.expunge(venue)
        return venues

    return memoized(session, ("venues",), load)


def get_venue(session: Session, slug: str) -> Edition | None:
    return session.get(Edition, slug)


def venue_papers(session: Session, venue: Edition, page: int) -> Page[Paper]:
    """One page of a venue's papers, by ordinal range so deep pages cost what page 1 does."""
    start = (max(page, 1) - 1) * VENUE_PAGE_SIZE
    papers = session.exec(
        select(Paper)
        .where(Paper.edition_slug == venue.slug)
        .where(Paper.ordinal >= start, Paper.ordinal < start + VENUE_PAGE_SIZE)
        .order_by(Paper.ordinal)
    ).all()
    return Page(list(papers), max(page, 1), venue.paper_count, VENUE_PAGE_SIZE)


def get_paper(session: Session, paper_id: str) -> Paper | None:
    return session.get(Paper, paper_id)


def paper_venue(session: Session, paper: Paper) -> Edition:
    venue = session.get(Edition, paper.edition_slug)
    assert venue is not None  # a paper always belongs to a stored venue (foreign key)
    return venue


def papers_by_id(session: Session, ids: list[str]) -> dict[str, Paper]:
    if not ids:
        return {}
    return {p.id: p for p in session.exec(select(Paper).where(col(Paper.id).in_(ids)))}


def plain_texts(session: Session, ids: list[str]) -> dict[str, str]:
    """The plain text of each of the papers the catalog holds: what the search layer reads of
    them (app/search/service.py's `Texts`)."""
    if not ids:
        return {}
    return dict(session.exec(select(Paper.id, Paper.plain).where(col(Paper.id).in_(ids))).all())


PaperRows = Iterator[tuple[Paper, Edition]]
EXPORT_BATCH = 500  # rows read at a time by an export: a 50,000-paper venue is never held


def stream_papers(session: Session, conditions: list[Any], order: list[Any],
                  limit: int | None = None, offset: int = 0) -> PaperRows:
    """The papers that meet the conditions, in order, with their venues, a batch at a time."""
    venues = venues_by_slug(session)
    statement = select(Paper).where(*conditions).order_by(*order).offset(offset).limit(limit)
    for paper in session.exec(statement.execution_options(yield_per=EXPORT_BATCH)):
        yield paper, venues[paper.edition_slug]


def count_papers(session: Session, conditions: list[Any]) -> int:
    return session.exec(select(func.count()).select_from(Paper).where(*conditions)).one()


def stream_papers_by_id(session: Session, ids: list[str]) -> PaperRows:
    """The papers of `ids` the catalog holds, in that order, with their venues."""
    venues = venues_by_slug(session)
    for batch in batched(ids, EXPORT_BATCH):
        papers = papers_by_id(session, list(batch))
        for paper_id in batch:
            if paper_id in papers:
                yield papers[paper_id], venues[papers[paper_id].edition_slug]


def venues_by_slug(session: Session) -> dict[str, Edition]:
    return {venue.slug: venue for venue in list_venues(session)}


# --- topics ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Landscape:
    """What a venue's header shows: topics, keyphrases and how many papers link code."""

    topic_counts: list[tuple[str, int]]
    keyphrases: list[tuple[str, int]]
    with_code: int


def venue_landscape(session: Session, slug: str) -> Landscape:
    return memoized(session, ("venue-landscape", slug), lambda: Landscape(
        venue_topic_counts(session, slug),
        top_keyphrases(session, Paper.edition_slug == slug),
        code_count(session, slug),
    ))


def edition_topic_counts(session: Session) -> dict[str, Counter[str]]:
    """Papers per edition and topic, {edition slug: {topic slug: count}}: one grouped query
    per catalog version, from which topic, series and year counts are summed."""
    def count() -> dict[str, Counter[str]]:
        counts: dict[str, Counter[str]] = {}
        rows = session.exec(select(Paper.edition_slug, Paper.topic, func.count())
                            .group_by(Paper.edition_slug, Paper.topic))
        for venue, topic, n in rows:
            counts.setdefault(venue, Counter())[topic] = n
        return counts

    return memoized(session, ("edition-topic-counts",), count)


def topic_venue_counts(session: Session) -> dict[str, dict[str, int]]:
    """Papers per topic and edition: {topic slug: {edition slug: count}}."""
    counts: dict[str, dict[str, int]] = {}
    for venue, topics in edition_topic_counts(session).items():
        for topic, n in topics.items():
            counts.setdefault(topic, {})[venue] = n
    return counts


def venue_topic_counts(session: Session, edition_slug: str) -> list[tuple[str, int]]:
    counts = edition_topic_counts(session).get(edition_slug, Counter())
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def code_count(session: Session, edition_slug: str) -> int:
    return session.exec(select(func.count()).select_from(Paper).where(
        Paper.edition_slug == edition_slug, Paper.code_urls != "")).one()


def top_keyphrases(
    session: Session, *conditions: Any, limit: int = 12
) -> list[tuple[str, int]]:
    """The most frequent keyphrases among the papers that meet the conditions."""
    counts: Counter[str] = Counter()
    for keyphrases in session.exec(select(Paper.keyphrases).where(*conditions)):
        counts.update(k for k in keyphrases.split("\n") if k)
    return counts.most_common(limit)


@dataclass(frozen=True)
class ListFilter:
    """Which papers of a topic's or a profile's listing shows: of one edition, one series,
    one year."""

    venue: str = ""
    series: str = ""
    year: int | None = None

    def admits(self, venue: Edition) -> bool:
        return ((not self.venue or venue.slug == self.venue)
                and (not self.series or venue.series_slug == self.series)
                and (not self.year or venue.year == self.year))

    def params(self) -> dict[str, object]:
        values = {"series": self.series, "venue": self.venue, "year": self.year}
        return {name: value for name, value in values.items() if value}

    def conditions(self) -> list[Any]:
        """The filter as conditions on Paper."""
        conditions: list[Any] = []
        if self.venue:
            conditions.append(Paper.edition_slug == self.venue)
        if self.series:  # an edition's slug is its series' slug, a dash and four digits
            conditions.append(col(Paper.edition_slug).like(f"{self.series}-____"))
        if self.year:
            conditions.append(col(Paper.edition_slug).in_(
                select(Edition.slug).where(Edition.year == self.year)))
        return conditions


def topic_papers(session: Session, topic: Topic, page: int,
                 where: ListFilter = ListFilter()) -> Page[Paper]:
    conditions = topic_conditions(topic, where)
    counts = edition_topic_counts(session)
    total = sum(counts.get(venue.slug, Counter()).get(topic.slug, 0)
                for venue in list_venues(session) if where.admits(venue))
    papers = session.exec(select(Paper).where(*conditions)
                          .order_by(Paper.edition_slug, Paper.ordinal)
                          .offset((page - 1) * VENUE_PAGE_SIZE).limit(VENUE_PAGE_SIZE)).all()
    return Page(list(papers), page, total, VENUE_PAGE_SIZE)


def topic_conditions(topic: Topic, where: ListFilter = ListFilter()) -> list[Any]:
    """Which papers a topic listing shows: the topic's, optionally of one venue, series or
    year."""
    return [Paper.topic == topic.slug, *where.conditions()]


def venue_topic_papers(session: Session, venue: Edition, topic: str, page: int) -> Page[Paper]:
    """One page of a venue's papers on one topic (the index on venue, topic, ordinal)."""
    papers = session.exec(select(Paper).where(Paper.edition_slug == venue.slug,
                                              Paper.topic == topic)
                          .order_by(Paper.ordinal)
                          .offset((page - 1) * VENUE_PAGE_SIZE).limit(VENUE_PAGE_SIZE)).all()
    total = edition_topic_counts(session).get(venue.slug, Counter()).get(topic, 0)
    return Page(list(papers), page, total, VENUE_PAGE_SIZE)


def topic_keyphrases(session: Session, topic: str) -> list[tuple[str, int]]:
    return memoized(session, ("topic-keyphrases", topic),
                    lambda: top_keyphrases(session, Paper.topic == topic))


def topic_year_counts(session: Session, topic: str) -> list[tuple[int, int, int]]:
    """(year, papers on the topic, all papers) for every year in the catalog."""
    counts = edition_topic_counts(session)
    on_topic: Counter[int] = Counter()
    for venue in list_venues(session):
        on_topic[venue.year] += counts.get(venue.slug, Counter()).get(topic, 0)
    return [(year, on_topic[year], total) for year, total in year_totals(session).items()]


def year_totals(session: Session) -> dict[int, int]:
    """Papers per year over the whole catalog, oldest year first."""
    totals: Counter[int] = Counter()
    for venue in list_venues(session):
        totals[venue.year] += venue.paper_count
    return dict(sorted(totals.items()))


# --- completions -------------------------------------------------------------------------------


def papers_added(session: Session, edition_slugs: list[str]) -> list[tuple[str, datetime]]:
    """(ID, when first ingested) of the venues' papers, in venue and list order."""
    if not edition_slugs:
        return []
    return list(session.exec(
        select(Paper.id, Paper.added_at).where(col(Paper.edition_slug).in_(edition_slugs))
        .order_by(Paper.edition_slug, Paper.ordinal)).all())
