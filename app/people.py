"""Who writes where: the profile of an author, an institution or a country (papers per year,
series and editions, topics, keyphrases, the people on their papers, the papers), and the
ranking of institutions and countries by papers for a series and a range of years.

Counts come from grouped queries over the papers' author and origin rows, so they are the
database's own and scale with the profile, not the catalog. An author is one normalized
name (app/ingest/people.py): nothing here merges spellings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from sqlalchemy import and_, func, or_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from app.catalog import ListFilter, list_venues, memoized, top_keyphrases
from app.ids import name_slug
from app.models import Edition, Paper, PaperAuthor, PaperOrigin
from app.paging import Page
from app.series import in_years

Kind = Literal["author", "institution", "country"]
ORIGIN_KINDS: tuple[Kind, ...] = ("institution", "country")
PROFILE_PAGE_SIZE = 50
TOP_PEOPLE = 20
TOP_ORIGINS = 10  # "who publishes here" on edition and series pages
RANKED = 100  # institutions or countries a ranking lists


@dataclass(frozen=True)
class Named:
    """Someone or something on a profile's papers, with how many of them."""

    slug: str
    name: str
    papers: int


@dataclass(frozen=True)
class SeriesCount:
    slug: str
    name: str
    papers: int
    editions: list[Named]  # newest first, named by label ("ICML 2019")


@dataclass(frozen=True)
class Summary:
    """What a profile shows besides its papers; the same for every page of them."""

    name: str
    papers: int
    years: list[tuple[int, int]]  # (year, papers), oldest first
    series: list[SeriesCount]  # most papers first
    topics: list[tuple[str, int]]
    keyphrases: list[tuple[str, int]]
    people: list[Named]  # co-authors of an author; the most frequent authors of a place
    affiliations: list[tuple[str, int]]  # an author's, as written in their papers


@dataclass(frozen=True)
class Profile:
    kind: Kind
    slug: str
    summary: Summary
    listing: Page[Paper]  # newest first, of the chosen series and year
    where: ListFilter


def paper_ids(kind: Kind, slug: str) -> Any:
    """The IDs of the profile's papers, as a subquery."""
    if kind == "author":
        return select(PaperAuthor.paper_id).where(PaperAuthor.slug == slug)
    return select(PaperOrigin.paper_id).where(PaperOrigin.kind == kind, PaperOrigin.slug == slug)


def profile(session: Session, kind: Kind, slug: str, where: ListFilter,
            page: int) -> Profile | None:
    """The profile, or None when no paper has that author, institution or country."""
    summary = memoized(session, ("profile", kind, slug), lambda: _summary(session, kind, slug))
    if summary is None:
        return None
    return Profile(kind, slug, summary, _listing(session, kind, slug, where, page), where)


def _summary(session: Session, kind: Kind, slug: str) -> Summary | None:
    ids = paper_ids(kind, slug)
    names = Counter(_names(session, kind, slug))
    if not names:
        return None
    venues = {venue.slug: venue for venue in list_venues(session)}
    per_edition: dict[str, int] = dict(session.exec(
        select(Paper.venue_slug, func.count()).where(col(Paper.id).in_(ids))
        .group_by(Paper.venue_slug)).all())
    years: Counter[int] = Counter()
    for edition, n in per_edition.items():
        years[venues[edition].year] += n
    topics = session.exec(select(Paper.topic, func.count()).where(col(Paper.id).in_(ids))
                          .group_by(Paper.topic).order_by(func.count().desc(), Paper.topic))
    return Summary(
        name=names.most_common(1)[0][0], papers=sum(per_edition.values()),
        years=sorted(years.items()), series=_series_counts(per_edition, venues),
        topics=[(topic, n) for topic, n in topics],
        keyphrases=top_keyphrases(session, col(Paper.id).in_(ids)),
        people=_people(session, kind, slug),
        affiliations=_affiliations(session, slug) if kind == "author" else [])


def _names(session: Session, kind: Kind, slug: str) -> list[str]:
    """Each paper's spelling of the name (the most frequent one names the page)."""
    if kind == "author":
        return list(session.exec(select(PaperAuthor.name).where(PaperAuthor.slug == slug)))
    return list(session.exec(select(PaperOrigin.name).where(PaperOrigin.kind == kind,
                                                            PaperOrigin.slug == slug)))


def _series_counts(per_edition: dict[str, int], venues: dict[str, Edition]) -> list[SeriesCount]:
    grouped: dict[str, list[Named]] = {}
    for edition, n in per_edition.items():
        venue = venues[edition]
        grouped.setdefault(venue.series_slug, []).append(Named(edition, venue.label, n))
    found = []
    for series_slug, editions in grouped.items():
        editions.sort(key=lambda e: venues[e.slug].year, reverse=True)
        found.append(SeriesCount(series_slug, venues[editions[0].slug].name,
                                 sum(e.papers for e in editions), editions))
    return sorted(found, key=lambda s: (-s.papers, s.name))


def _people(session: Session, kind: Kind, slug: str) -> list[Named]:
    """The authors on the profile's papers with most of them (an author's co-authors)."""
    other = aliased(PaperAuthor)
    papers = func.count(func.distinct(other.paper_id))
    statement = select(other.slug, func.min(other.name), papers).where(
        col(other.paper_id).in_(paper_ids(kind, slug)))
    if kind == "author":
        statement = statement.where(other.slug != slug)
    rows = session.exec(statement.group_by(other.slug)
                        .order_by(papers.desc(), other.slug).limit(TOP_PEOPLE))
    return [Named(found, name, n) for found, name, n in rows]


def _affiliations(session: Session, slug: str) -> list[tuple[str, int]]:
    """An author's affiliations as written on their papers, most frequent first."""
    counts: Counter[str] = Counter()
    rows = session.exec(select(Paper.affiliations, PaperAuthor.position)
                        .join(PaperAuthor, col(PaperAuthor.paper_id) == Paper.id)
                        .where(PaperAuthor.slug == slug, Paper.affiliations != ""))
    for affiliations, position in rows:
        lines = affiliations.split("\n")
        if position < len(lines) and lines[position]:
            counts[lines[position]] += 1
    return counts.most_common(TOP_PEOPLE)


def listing_conditions(kind: Kind, slug: str, where: ListFilter) -> list[Any]:
    """Which papers a profile lists: its own, of the chosen edition, series or year."""
    return [col(Paper.id).in_(paper_ids(kind, slug)), *where.conditions()]


def _listing(session: Session, kind: Kind, slug: str, where: ListFilter,
             page: int) -> Page[Paper]:
    conditions = listing_conditions(kind, slug, where)
    total = session.exec(select(func.count()).select_from(Paper).where(*conditions)).one()
    papers = session.exec(select(Paper).join(Edition, col(Edition.slug) == Paper.venue_slug)
                          .where(*conditions)
                          .order_by(col(Edition.year).desc(), Edition.name, Paper.ordinal)
                          .offset((page - 1) * PROFILE_PAGE_SIZE).limit(PROFILE_PAGE_SIZE))
    return Page(list(papers), page, total, PROFILE_PAGE_SIZE)


# --- rankings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ranked:
    slug: str
    name: str
    papers: int
    share: float  # of the selection's papers
    previous: int | None  # papers in the window before, when there is one
    change: float | None  # share now minus share then


@dataclass(frozen=True)
class Ranking:
    kind: Kind
    series: str
    first: int | None
    last: int | None
    papers: int  # all papers of the selection
    known: int  # those whose institutions (or countries) the source gives
    rows: list[Ranked]
    before: str  # what the change compares with ("ICLR 2024"), or "" when nothing is before


def default_years(session: Session, series: str, first: int | None,
                  last: int | None) -> tuple[int | None, int | None]:
    """The years asked, or when none are, the latest year of the series (of any when ""):
    who publishes now, with the change against the edition before."""
    if first is not None or last is not None:
        return first, last
    latest = max((v.year for v in list_venues(session)
                  if not series or v.series_slug == series), default=None)
    return latest, latest


def ranking(session: Session, kind: Kind, series: str, first: int | None, last: int | None,
            limit: int = RANKED) -> Ranking:
    """Institutions or countries by papers in the chosen series (all when "") and years,
    with their share and the change against the editions just before."""
    return memoized(session, ("ranking", kind, series, first, last, limit),
                    lambda: _ranking(session, kind, series, first, last, limit))


def _ranking(session: Session, kind: Kind, series: str, first: int | None, last: int | None,
             limit: int) -> Ranking:
    table = origin_table(session, kind)
    editions = [v for v in list_venues(session) if not series or v.series_slug == series]
    now = [v for v in editions if in_years(v.year, first, last)]
    before = _editions_before(editions, now)
    counted = table.counts([v.slug for v in now])
    earlier = table.counts([v.slug for v in before])
    papers = sum(v.paper_count for v in now)
    earlier_papers = sum(v.paper_count for v in before)
    rows = []
    for code in table.top(counted, limit):
        n = int(counted[code])
        share = n / papers if papers else 0.0
        then = int(earlier[code]) if before else None
        change = (share - then / earlier_papers) if then is not None and earlier_papers else None
        rows.append(Ranked(table.slugs[code], table.names[code], n, share, then, change))
    known = sum(table.known.get(v.slug, 0) for v in now)
    return Ranking(kind, series, first, last, papers, known, rows, _label(before))


def _editions_before(editions: list[Edition], now: list[Edition]) -> list[Edition]:
    """The editions as many years back as the selection spans, just before it."""
    if not now or len(now) == len(editions):
        return []
    years = sorted({v.year for v in editions})
    chosen = sorted({v.year for v in now})
    earlier = [year for year in years if year < chosen[0]][-len(chosen):]
    return [v for v in editions if v.year in earlier]


def _label(editions: list[Edition]) -> str:
    if not editions:
        return ""
    years = sorted({v.year for v in editions})
    names = sorted({v.name for v in editions})
    span = str(years[0]) if len(years) == 1 else f"{years[0]}–{years[-1]}"
    return f"{names[0]} {span}" if len(names) == 1 else span


@dataclass(frozen=True)
class OriginTable:
    """Every paper's institutions (or countries) as arrays, read once per catalog version:
    a ranking over any editions is then a bincount (grouping the rows in SQL took 0.2 to
    0.5 s at L for every new choice of series and years)."""

    slugs: list[str]
    names: list[str]  # one spelling of each
    codes: np.ndarray  # each row's slug, as an index into `slugs`
    editions: np.ndarray  # each row's edition, as an index into `edition_slugs`
    edition_slugs: list[str]
    known: dict[str, int]  # papers of each edition that name any

    def counts(self, editions: list[str]) -> np.ndarray:
        """Papers per slug code among the editions'."""
        chosen = set(editions)
        wanted = [i for i, slug in enumerate(self.edition_slugs) if slug in chosen]
        rows = np.isin(self.editions, wanted)
        return np.bincount(self.codes[rows], minlength=len(self.slugs))

    def top(self, counts: np.ndarray, limit: int) -> list[int]:
        """The codes of the `limit` largest counts, most first (ties by slug)."""
        found = np.flatnonzero(counts)
        return sorted(found.tolist(), key=lambda c: (-counts[c], self.slugs[c]))[:limit]


def origin_table(session: Session, kind: Kind) -> OriginTable:
    return memoized(session, ("origin-table", kind), lambda: _origin_table(session, kind))


def _origin_table(session: Session, kind: Kind) -> OriginTable:
    rows = session.exec(select(PaperOrigin.slug, PaperOrigin.name, PaperOrigin.venue_slug)
                        .where(PaperOrigin.kind == kind)).all()
    slugs: dict[str, int] = {}
    names: list[str] = []
    editions: dict[str, int] = {}
    for slug, name, _ in rows:
        if slug not in slugs:
            slugs[slug] = len(names)
            names.append(name)
    codes = np.fromiter((slugs[slug] for slug, _, _ in rows), dtype=np.int32, count=len(rows))
    edition_codes = np.fromiter((editions.setdefault(e, len(editions)) for _, _, e in rows),
                                dtype=np.int32, count=len(rows))
    known = dict(session.exec(select(PaperOrigin.venue_slug,
                                     func.count(func.distinct(PaperOrigin.paper_id)))
                              .where(PaperOrigin.kind == kind)
                              .group_by(PaperOrigin.venue_slug)).all())
    return OriginTable(list(slugs), names, codes, edition_codes, list(editions), known)


def _slug_column(kind: Kind) -> Any:
    return PaperAuthor.slug if kind == "author" else PaperOrigin.slug


def _of_kind(kind: Kind) -> list[Any]:
    return [] if kind == "author" else [PaperOrigin.kind == kind]


def all_slugs(session: Session, kind: Kind) -> list[str]:
    """Every author's, institution's or country's slug, in order (for the sitemap)."""
    column = _slug_column(kind)
    return list(session.exec(select(column).where(*_of_kind(kind)).distinct()
                             .order_by(column)))


def count_slugs(session: Session, kind: Kind) -> int:
    column = _slug_column(kind)
    return session.exec(select(func.count(func.distinct(column))).where(*_of_kind(kind))).one()


def origin_names(session: Session, kind: Kind, slugs: list[str]) -> dict[str, str]:
    """The names of institutions or countries by slug, one spelling each (for facets, whose
    values are slugs)."""
    rows = session.exec(select(PaperOrigin.slug, func.min(PaperOrigin.name))
                        .where(PaperOrigin.kind == kind, col(PaperOrigin.slug).in_(slugs))
                        .group_by(PaperOrigin.slug))
    return {slug: name for slug, name in rows}


@dataclass(frozen=True)
class Publishers:
    """Who publishes at an edition or a series: the institutions and countries with most
    papers there."""

    institutions: list[Named]
    countries: list[Named]


def publishers(session: Session, editions: list[str]) -> Publishers:
    found = []
    for kind in ORIGIN_KINDS:
        table = origin_table(session, kind)
        counts = table.counts(editions)
        found.append([Named(table.slugs[c], table.names[c], int(counts[c]))
                      for c in table.top(counts, TOP_ORIGINS)])
    return Publishers(*found)


# --- finding authors ---------------------------------------------------------------------------

FOUND_AUTHORS = 50


def find_authors(session: Session, q: str, indexed: list[str]) -> list[Named]:
    """Authors whose name starts with `q`, or one of whose later name parts does (`indexed`:
    such names from the search index's completions, which hold every name of two papers or
    more), most papers first."""
    typed = name_slug(q) if q.strip() else ""
    if len(typed) < 2:
        return []
    slugs = {name_slug(name) for name in indexed}
    papers = func.count(func.distinct(PaperAuthor.paper_id))
    # Slugs are lowercase ASCII: a prefix is a range the slug index answers.
    matched = or_(col(PaperAuthor.slug).in_(slugs),
                  and_(PaperAuthor.slug >= typed, PaperAuthor.slug < typed + "\uffff"))
    rows = session.exec(select(PaperAuthor.slug, func.min(PaperAuthor.name), papers)
                        .where(matched).group_by(PaperAuthor.slug)
                        .order_by(papers.desc(), PaperAuthor.slug).limit(FOUND_AUTHORS))
    return [Named(slug, name, n) for slug, name, n in rows]
