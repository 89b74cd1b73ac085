"""Who writes where: the profile of an author, an institution or a country (papers per year,
series and editions, topics, keyphrases, the people on their papers, the papers). Their
rankings are in app/people/rankings.py.

Counts come from grouped queries over the papers' author and origin rows, so they are the
database's own and scale with the profile, not the catalog. An author is one normalized
name (app/ingest/people.py): nothing here merges spellings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import and_, func, or_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from app.cache import BoundedCache
from app.catalog import ListFilter, top_keyphrases, venues_by_slug, version_key
from app.ids import name_slug
from app.models import Edition, Paper, PaperAuthor, PaperOrigin
from app.paging import Page

Kind = Literal["author", "institution", "country"]
PROFILE_PAGE_SIZE = 50
TOP_PEOPLE = 20


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


_summaries: BoundedCache[tuple[object, ...], Summary] = BoundedCache(2_000)
_author_names: BoundedCache[tuple[object, ...], str] = BoundedCache(20_000)


def paper_ids(kind: Kind, slug: str) -> Any:
    """The IDs of the profile's papers, as a subquery."""
    if kind == "author":
        return select(PaperAuthor.paper_id).where(PaperAuthor.slug == slug)
    return select(PaperOrigin.paper_id).where(PaperOrigin.kind == kind, PaperOrigin.slug == slug)


def profile(session: Session, kind: Kind, slug: str, where: ListFilter,
            page: int) -> Profile | None:
    """The profile, or None when no paper has that author, institution or country."""
    # Kept apart from catalog.memoized's aggregates, which a crawler walking 130,000 author
    # pages would otherwise flush; a name no paper has is never kept.
    key = (*version_key(session), kind, slug)
    summary = _summaries.get(key)
    if summary is None:
        summary = _summary(session, kind, slug)
        if summary is None:
            return None
        _summaries.put(key, summary)
    return Profile(kind, slug, summary, _listing(session, kind, slug, summary, where, page),
                   where)


def _summary(session: Session, kind: Kind, slug: str) -> Summary | None:
    ids = paper_ids(kind, slug)
    names = Counter(_names(session, kind, slug))
    if not names:
        return None
    venues = venues_by_slug(session)
    per_edition: dict[str, int] = dict(session.exec(
        select(Paper.edition_slug, func.count()).where(col(Paper.id).in_(ids))
        .group_by(Paper.edition_slug)).all())
    years: Counter[int] = Counter()
    for edition, n in per_edition.items():
        years[venues[edition].year] += n
    topics = session.exec(select(Paper.topic, func.count()).where(col(Paper.id).in_(ids))
                          .group_by(Paper.topic).order_by(func.count().desc(), Paper.topic))
    return Summary(
        name=most_spelled(names), papers=sum(per_edition.values()),
        years=sorted(years.items()), series=_series_counts(per_edition, venues),
        topics=[(topic, n) for topic, n in topics],
        keyphrases=top_keyphrases(session, col(Paper.id).in_(ids)),
        people=_people(session, kind, slug),
        affiliations=_affiliations(session, slug) if kind == "author" else [])


def most_spelled(spellings: Counter[str]) -> str:
    """The spelling that names a page: the most frequent, ties to the first in code order."""
    return min(spellings.items(), key=lambda pair: (-pair[1], pair[0]))[0]


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
    statement = select(other.slug, papers).where(col(other.paper_id).in_(paper_ids(kind, slug)))
    if kind == "author":
        statement = statement.where(other.slug != slug)
    return _spelled(session, list(session.exec(statement.group_by(other.slug)
                                               .order_by(papers.desc(), other.slug)
                                               .limit(TOP_PEOPLE))))


def _spelled(session: Session, counted: list[tuple[str, int]]) -> list[Named]:
    """Authors (slug, papers) named as their pages are (`author_names`): the alphabetically
    first spelling had named the author of 111 papers, 110 of them written "Wei Zhang", "Wei
    ZHANG"."""
    names = author_names(session, [slug for slug, _ in counted])
    return [Named(slug, names[slug], n) for slug, n in counted]


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


def newest_first() -> list[Any]:
    """A profile's order: newest edition first, then by conference name and list order."""
    def of_edition(column: Any) -> Any:
        return select(column).where(Edition.slug == Paper.edition_slug).scalar_subquery()

    return [of_edition(Edition.year).desc(), of_edition(Edition.name), Paper.ordinal]


def _listing(session: Session, kind: Kind, slug: str, summary: Summary, where: ListFilter,
             page: int) -> Page[Paper]:
    conditions = listing_conditions(kind, slug, where)
    venues = venues_by_slug(session)  # the total from the summary's counts, not a COUNT
    total = sum(edition.papers for counted in summary.series for edition in counted.editions
                if where.admits(venues[edition.slug]))
    papers = session.exec(select(Paper).where(*conditions).order_by(*newest_first())
                          .offset((page - 1) * PROFILE_PAGE_SIZE).limit(PROFILE_PAGE_SIZE))
    return Page(list(papers), page, total, PROFILE_PAGE_SIZE)


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


# --- finding authors ---------------------------------------------------------------------------

FOUND_AUTHORS = 50


def author_names(session: Session, slugs: list[str]) -> dict[str, str]:
    """The names of authors by slug (for the author facet, whose values are slugs): the
    name their page shows, the most frequent spelling."""
    version = version_key(session)
    # Every search names its facet's 15 authors; the prolific ones come back again and again.
    named = {slug: name for slug in set(slugs) if (name := _author_names.get((*version, slug)))}
    missing = set(slugs) - named.keys()
    if missing:
        spelled = session.exec(select(PaperAuthor.slug, PaperAuthor.name, func.count())
                               .where(col(PaperAuthor.slug).in_(missing))
                               .group_by(PaperAuthor.slug, PaperAuthor.name))
        spellings: dict[str, Counter[str]] = {}
        for slug, name, n in spelled:  # one query for the missing names, not one per author
            spellings.setdefault(slug, Counter())[name] += n
        for slug, counted in spellings.items():
            named[slug] = most_spelled(counted)
            _author_names.put((*version, slug), named[slug])
    return named


def find_authors(session: Session, q: str, indexed: list[str]) -> list[Named]:
    """Authors whose name starts with `q`, or one of whose later name parts does (`indexed`:
    such names from the search index's completions, which hold every name of two papers or
    more), most papers first."""
    typed = name_slug(q) if q.strip() else ""
    if len(typed) < 2:
        return []
    slugs = {name_slug(name) for name in indexed}
    papers = func.count(func.distinct(PaperAuthor.paper_id))
    # Slugs are lowercase ASCII: a prefix is a range the slug index answers, in byte order
    # (a PostgreSQL database in another locale would order "li-m" among "lim...").
    ordered: Any = col(PaperAuthor.slug)
    if session.get_bind().dialect.name == "postgresql":
        ordered = ordered.collate("C")
    matched = or_(col(PaperAuthor.slug).in_(slugs),
                  and_(ordered >= typed, ordered < typed + "~"))
    return _spelled(session, list(session.exec(
        select(PaperAuthor.slug, papers).where(matched).group_by(PaperAuthor.slug)
        .order_by(papers.desc(), PaperAuthor.slug).limit(FOUND_AUTHORS))))
