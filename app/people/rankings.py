"""Institutions and countries ranked by papers, for a series and a range of years, with the
change against the editions just before; and "who publishes here" at an edition or a
series. Counted from every paper's institutions and countries held as arrays per catalog
version (app/people/ has their profiles).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from sqlalchemy import func
from sqlmodel import Session, select

from app.catalog import list_venues, memoized
from app.models import Edition, PaperOrigin
from app.people import Kind, Named, most_spelled
from app.series import in_years

ORIGIN_KINDS: tuple[Kind, ...] = ("institution", "country")
TOP_ORIGINS = 10  # "who publishes here" on edition and series pages
RANKED = 100  # institutions or countries a ranking lists


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


@dataclass(frozen=True)
class Scope:
    """Which papers a ranking counts: a series (all when "") and a range of years."""

    series: str
    first: int | None
    last: int | None


def scope(session: Session, series: str, first: int | None, last: int | None) -> Scope:
    """The years asked, an open end filled with the series' (or catalog's) first or last
    year; none asked, the latest year: who publishes now, with the change against the
    edition before."""
    years = sorted({v.year for v in list_venues(session)
                    if not series or v.series_slug == series})
    if not years:
        return Scope(series, first, last)
    if first is None and last is None:
        return Scope(series, years[-1], years[-1])
    return Scope(series, years[0] if first is None else first,
                 years[-1] if last is None else last)


def ranking(session: Session, kind: Kind, chosen: Scope, limit: int = RANKED) -> Ranking:
    """Institutions or countries by papers in the chosen series and years, with their share
    and the change against the editions just before."""
    return memoized(session, ("ranking", kind, chosen, limit),
                    lambda: _ranking(session, kind, chosen, limit))


def _ranking(session: Session, kind: Kind, chosen: Scope, limit: int) -> Ranking:
    table = origin_table(session, kind)
    series, first, last = chosen.series, chosen.first, chosen.last
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
    names: list[str]  # the most frequent spelling of each
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

    @cached_property
    def named(self) -> dict[str, str]:  # every search names its facet's values
        return dict(zip(self.slugs, self.names, strict=True))

    def top(self, counts: np.ndarray, limit: int) -> list[int]:
        """The codes of the `limit` largest counts, most first (ties by slug)."""
        found = np.flatnonzero(counts)
        return sorted(found.tolist(), key=lambda c: (-counts[c], self.slugs[c]))[:limit]


def origin_table(session: Session, kind: Kind) -> OriginTable:
    return memoized(session, ("origin-table", kind), lambda: _origin_table(session, kind))


def _origin_table(session: Session, kind: Kind) -> OriginTable:
    rows = session.exec(select(PaperOrigin.slug, PaperOrigin.name, PaperOrigin.edition_slug)
                        .where(PaperOrigin.kind == kind)).all()
    spellings: dict[str, Counter[str]] = {}
    for slug, name, _ in rows:
        spellings.setdefault(slug, Counter())[name] += 1
    names = {slug: most_spelled(counted) for slug, counted in spellings.items()}
    slugs = {slug: code for code, slug in enumerate(names)}
    editions: dict[str, int] = {}
    codes = np.fromiter((slugs[slug] for slug, _, _ in rows), dtype=np.int32, count=len(rows))
    edition_codes = np.fromiter((editions.setdefault(e, len(editions)) for _, _, e in rows),
                                dtype=np.int32, count=len(rows))
    known = dict(session.exec(select(PaperOrigin.edition_slug,
                                     func.count(func.distinct(PaperOrigin.paper_id)))
                              .where(PaperOrigin.kind == kind)
                              .group_by(PaperOrigin.edition_slug)).all())
    return OriginTable(list(slugs), list(names.values()), codes, edition_codes, list(editions),
                       known)


def origin_names(session: Session, kind: Kind, slugs: list[str]) -> dict[str, str]:
    """The names of institutions or countries by slug (for facets, whose values are slugs)."""
    named = origin_table(session, kind).named
    return {slug: named[slug] for slug in slugs if slug in named}


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
