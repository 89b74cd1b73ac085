"""Conference series across their years: what the home, series, topic and trend pages aggregate.

A series is a conference (`NeurIPS`, slug `neurips`); an edition is one year of it
(`NeurIPS 2018`, slug `neurips-2018`, the `Edition` model, table `venue`). Everything here
is counted from papers per (edition, topic), one grouped query remembered per catalog
version; the series, years and shares are sums over it in Python (a few thousand cells at
88,000 papers).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field

from sqlmodel import Session, col

from app.catalog import (
    edition_topic_counts,
    list_venues,
    memoized,
    top_keyphrases,
    year_totals,
)
from app.models import Edition, Paper

MATRIX_SERIES = 24  # columns of the topic × series matrix; smaller series are summed as "other"
OTHER = "other"


@dataclass(frozen=True)
class ListedEdition:
    slug: str
    name: str
    year: int
    papers: int

    @property
    def label(self) -> str:
        return f"{self.name} {self.year}"


@dataclass(frozen=True)
class Series:
    slug: str
    name: str
    editions: tuple[ListedEdition, ...]  # oldest first

    @property
    def papers(self) -> int:
        return sum(edition.papers for edition in self.editions)

    @property
    def years(self) -> list[int]:
        return [edition.year for edition in self.editions]

    def neighbours(self, slug: str) -> tuple[ListedEdition | None, ListedEdition | None]:
        """The editions before and after the given one."""
        slugs = [edition.slug for edition in self.editions]
        i = slugs.index(slug)
        return (self.editions[i - 1] if i else None,
                self.editions[i + 1] if i + 1 < len(slugs) else None)


@dataclass(frozen=True)
class YearCounts:
    edition: str  # the edition's slug
    year: int
    papers: int
    topics: dict[str, int]  # topic slug → papers, largest first


@dataclass(frozen=True)
class SeriesDetail:
    series: Series
    years: list[YearCounts]
    keyphrases: list[tuple[str, int]]

    @property
    def topic_totals(self) -> list[tuple[str, int]]:
        """The series' topics, largest first, over all its years."""
        totals: Counter[str] = Counter()
        for year in self.years:
            totals.update(year.topics)
        return sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))


def list_series(session: Session) -> list[Series]:
    """Every series with its editions, by name."""
    return memoized(session, ("series",), lambda: _group(list_venues(session)))


def _group(venues: list[Edition]) -> list[Series]:
    editions: dict[str, list[Edition]] = {}
    for venue in venues:
        editions.setdefault(venue.series_slug, []).append(venue)
    series = []
    for slug, members in editions.items():
        members.sort(key=lambda venue: venue.year)
        series.append(Series(slug, members[-1].name, tuple(
            ListedEdition(v.slug, v.name, v.year, v.paper_count) for v in members)))
    return sorted(series, key=lambda s: (s.name.lower(), s.slug))


def get_series(session: Session, slug: str) -> Series | None:
    return next((s for s in list_series(session) if s.slug == slug), None)


def series_of(session: Session, edition: Edition) -> Series:
    found = get_series(session, edition.series_slug)
    assert found is not None  # every edition belongs to its series
    return found


def series_detail(session: Session, series: Series) -> SeriesDetail:
    def compute() -> SeriesDetail:
        counts = edition_topic_counts(session)
        years = [YearCounts(e.slug, e.year, e.papers,
                            dict(counts.get(e.slug, Counter()).most_common()))
                 for e in series.editions]
        slugs = [e.slug for e in series.editions]
        return SeriesDetail(series, years,
                            top_keyphrases(session, col(Paper.edition_slug).in_(slugs), limit=16))

    return memoized(session, ("series-detail", series.slug), compute)


# --- topics across series and years ------------------------------------------------------------


@dataclass
class TopicMatrix:
    """Papers per topic and series within a range of years; small series summed as "other"."""

    columns: list[tuple[str, str, int]]  # (series slug or "other", name, papers in range)
    cells: dict[str, dict[str, int]]  # topic slug → column slug → papers
    first_year: int | None
    last_year: int | None
    years: list[int] = field(default_factory=list)  # every year of the catalog
    # topic slug → its median share over the series in range: a topic that a few large
    # series hold (robotics at ICRA and IROS) reads smaller here than in its overall share
    typical: dict[str, float] = field(default_factory=dict)

    def row_total(self, topic: str) -> int:
        return sum(self.cells.get(topic, {}).values())

    def share(self, topic: str) -> float:
        """The topic's share of all papers in range."""
        papers = sum(n for _, _, n in self.columns)
        return self.row_total(topic) / papers if papers else 0.0


def typical_share(counts: dict[str, Counter[str]], series: list[tuple[Series, list[ListedEdition]]],
                  topic: str) -> float:
    """The median over the series of the topic's share of their papers (in these editions),
    series without the topic counting as 0."""
    shares = [sum(counts.get(e.slug, Counter()).get(topic, 0) for e in editions)
              / (sum(e.papers for e in editions) or 1) for _, editions in series]
    return statistics.median(shares) if shares else 0.0


def in_years(year: int, first: int | None, last: int | None) -> bool:
    """Whether the year is within the range (an end that is None is open)."""
    return (first is None or year >= first) and (last is None or year <= last)


def topic_matrix(session: Session, first: int | None = None,
                 last: int | None = None) -> TopicMatrix:
    def compute() -> TopicMatrix:
        counts = edition_topic_counts(session)
        in_range: dict[str, tuple[Series, list[ListedEdition]]] = {}
        for series in list_series(session):
            editions = [e for e in series.editions if in_years(e.year, first, last)]
            if editions:
                in_range[series.slug] = (series, editions)
        sizes = sorted(((sum(e.papers for e in eds), s.slug) for s, eds in in_range.values()),
                       key=lambda pair: (-pair[0], pair[1]))
        shown = {slug for _, slug in sizes[:MATRIX_SERIES]}
        if len(sizes) == MATRIX_SERIES + 1:  # an "other" of one series says less than its name
            shown.add(sizes[-1][1])
        cells: dict[str, dict[str, int]] = {}
        columns: dict[str, int] = Counter()
        for slug, (_, editions) in in_range.items():
            column = slug if slug in shown else OTHER
            for edition in editions:
                columns[column] += edition.papers
                for topic, n in counts.get(edition.slug, Counter()).items():
                    row = cells.setdefault(topic, {})
                    row[column] = row.get(column, 0) + n
        names = {slug: series.name for slug, (series, _) in in_range.items()}
        ordered = sorted((slug for slug in columns if slug != OTHER), key=lambda s: -columns[s])
        if OTHER in columns:
            ordered.append(OTHER)
        typical = {topic: typical_share(counts, list(in_range.values()), topic)
                   for topic in cells}
        return TopicMatrix(
            [(slug, names.get(slug, "Other series"), columns[slug]) for slug in ordered],
            cells, first, last, list(year_totals(session)), typical)

    return memoized(session, ("topic-matrix", first, last), compute)


@dataclass(frozen=True)
class TopicSeriesShare:
    series: Series
    papers: int  # on the topic
    share: float  # of the series' papers
    of_topic: float  # of the topic's papers
    of_catalog: float  # the series' share of all papers: its share of the topic if even


@dataclass(frozen=True)
class TopicSpread:
    """Where a topic's papers come from: its share of the catalog, the share the median
    series gives it, and each series' share next to that series' weight in the catalog, so
    that "robotics is 30 % of all papers" reads as the ICRA and IROS effect it is."""

    papers: int
    catalog_papers: int
    typical: float
    series: list[TopicSeriesShare]  # the series with papers on the topic, most papers first

    @property
    def share(self) -> float:
        return self.papers / self.catalog_papers if self.catalog_papers else 0.0


def topic_spread(session: Session, topic: str) -> TopicSpread:
    counts = edition_topic_counts(session)
    every = [(s, s.editions) for s in list_series(session)]
    catalog_papers = sum(s.papers for s, _ in every)
    on_topic = {s.slug: sum(counts.get(e.slug, Counter()).get(topic, 0) for e in s.editions)
                for s, _ in every}
    papers = sum(on_topic.values())
    shares = [TopicSeriesShare(s, on_topic[s.slug], on_topic[s.slug] / s.papers,
                               on_topic[s.slug] / papers, s.papers / catalog_papers)
              for s, _ in every if on_topic[s.slug]]
    # By papers, not share: a small series with a handful of papers on the topic would lead.
    shares.sort(key=lambda s: (-s.papers, -s.share, s.series.slug))
    return TopicSpread(papers, catalog_papers, typical_share(counts, every, topic), shares)


@dataclass(frozen=True)
class SeriesGrid:
    """Series × year: each row a series, each cell the edition of that year (or None).
    Newest year first: on a narrow screen the recent editions are the ones in view."""

    years: list[int]
    rows: list[tuple[Series, list[ListedEdition | None]]]
    largest: int  # papers of the largest edition, for shading

    def shade(self, edition: ListedEdition) -> int:
        """1-5: the edition's size on a square-root scale, so small editions still show."""
        return max(1, min(5, math.ceil(5 * math.sqrt(edition.papers / (self.largest or 1)))))


def series_grid(all_series: list[Series]) -> SeriesGrid:
    years = sorted({year for s in all_series for year in s.years}, reverse=True)
    rows = []
    for s in all_series:
        by_year = {e.year: e for e in s.editions}
        rows.append((s, [by_year.get(year) for year in years]))
    return SeriesGrid(years, rows, max((e.papers for s in all_series for e in s.editions),
                                       default=0))
