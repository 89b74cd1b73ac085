"""Request-scoped dependencies shared by the HTML and JSON routes."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Annotated, Literal, TypeVar

from fastapi import Depends, HTTPException, Query, Request
from sqlmodel import Session

from app import catalog, people
from app.catalog import ListFilter
from app.db import get_engine
from app.exports import ListFormat
from app.facets import FACETS, Facet, OptionalYear
from app.ids import ID_LIST, parse_paper_ids, slugify
from app.map.layout import opened_layout
from app.models import Edition, Paper
from app.paging import within_pages
from app.people import rankings
from app.search.index.opened import OpenIndex
from app.search.query.pasted import MAX_TEXT_CHARS
from app.search.rank.similar import MAX_LESS, Choice
from app.search.results import NOT_READY, SearchRequest
from app.search.service import SearchService
from app.series import Series, get_series
from app.topics import Topic, load_taxonomy
from app.web.urls import venue_path
from app.whats_new.found import LIMIT as WHATS_NEW
from app.whats_new.found import Finder, WhatsNew

MAX_WHATS_NEW = 50
RETRY_SECONDS = 10  # a 503's Retry-After while the index is built (the keeper polls every few s)
Entry = TypeVar("Entry")


def get_session(request: Request) -> Iterator[Session]:
    with Session(get_engine(request.app.state.settings.database_url)) as session:
        yield session


def get_search(request: Request) -> SearchService:
    return request.app.state.search


def _facet_parameter(facet: Facet) -> inspect.Parameter:
    """A facet's API parameter, of its kind's type, described as the table says."""
    kind, default = facet.kind.parameter()
    return inspect.Parameter(facet.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[kind, Query(description=facet.description)])


def search_request(q: str = "", sort: str = "relevance", page: int = 1,
                   **facets: object) -> SearchRequest:
    # The query is kept (and echoed into the page's links) only as far as search reads it, and
    # one character more, by which search tells that the text was cut.
    return SearchRequest(q=q[:MAX_TEXT_CHARS + 1], sort=sort, page=page,
                         **{facet.name: facet.parse(facets[facet.name]) for facet in FACETS})


# FastAPI reads the parameters from the signature: one per facet of the table.
search_request.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
    inspect.Parameter("q", inspect.Parameter.KEYWORD_ONLY, default="", annotation=Annotated[
        str, Query(description="Query text; see /help/search")]),
    *map(_facet_parameter, FACETS),
    inspect.Parameter("sort", inspect.Parameter.KEYWORD_ONLY, default="relevance",
                      annotation=Annotated[Literal["relevance", "venue"], Query()]),
    inspect.Parameter("page", inspect.Parameter.KEYWORD_ONLY, default=1,
                      annotation=Annotated[int, Query(ge=1, le=10_000)]),
], return_annotation=SearchRequest)


def list_filter(
    venue: Annotated[str, Query(description="Edition slug, e.g. neurips-2018")] = "",
    series: Annotated[str, Query(description="Series slug, e.g. neurips")] = "",
    year: Annotated[OptionalYear, Query()] = None,
) -> ListFilter:
    return ListFilter(venue=venue, series=slugify(series), year=year)


SessionDep = Annotated[Session, Depends(get_session)]


def likeness_choice(
    series: Annotated[str, Query(description="Series slug: only its papers")] = "",
    year: Annotated[OptionalYear, Query(description="Only this year's")] = None,
    sort: Annotated[Literal["alike", "newest"], Query(
        description="The most alike first, or the newest first (of the most alike)")] = "alike",
    less: Annotated[str, Query(description="Comma-separated IDs of papers marked “less like "
                                           "this”: none like them, and never them",
                               pattern=f"^$|{ID_LIST}",
                               max_length=MAX_LESS * 17 - 1)] = "",
) -> Choice:
    """Which papers like a paper or a list a reader asks for (related papers,
    recommendations). `less` is refused (400, naming it) unless its pattern holds: at most
    MAX_LESS IDs, each well formed."""
    return Choice(slugify(series), year, sort == "newest", tuple(parse_paper_ids(less)))


ChoiceDep = Annotated[Choice, Depends(likeness_choice)]


# Lookups by the path's identifier: the route gets the object, or the request a 404.

def _paper(paper_id: str, session: SessionDep) -> Paper:
    found = catalog.get_paper(session, paper_id)
    if found is None:
        raise HTTPException(404, f"There is no paper with the ID “{paper_id}”.")
    return found


def _venue(slug: str, session: SessionDep) -> Edition:
    found = catalog.get_venue(session, slug)
    if found is None:
        raise HTTPException(404, f"There is no venue called “{slug}”.")
    return found


def _edition_or_series(slug: str, session: SessionDep) -> Edition | Series:
    """`/venues/{slug}` names an edition (neurips-2018) or a whole series (neurips)."""
    found = catalog.get_venue(session, slug) or get_series(session, slug)
    if found is None:
        raise HTTPException(404, f"There is no venue called “{slug}”.")
    return found


def _edition_or_series_listed(found: Annotated[Edition | Series, Depends(_edition_or_series)],
                              format: ListFormat | None = None) -> Edition | Series:
    """An edition or a series, as its page or a download; a series downloads by edition."""
    if isinstance(found, Series) and format:
        raise HTTPException(404, f"{found.name} downloads by edition, e.g. "
                                 f"{venue_path(found.editions[-1].slug)}.{format}")
    return found


def _series(slug: str, session: SessionDep) -> Series:
    found = get_series(session, slug)
    if found is None:
        raise HTTPException(404, f"There is no series called “{slug}”.")
    return found


def _chosen_series(session: SessionDep, series: Annotated[
        str, Query(description="A series slug, e.g. neurips")] = "") -> Series | None:
    """The series a request narrows to, if any; a 404 for one the catalog lacks."""
    return _series(series, session) if series else None


def _ranking_scope(session: SessionDep, years: YearRangeDep, series: Annotated[
        str, Query(description="Series slug, e.g. neurips (all series when empty)")] = "",
                   ) -> rankings.Scope:
    """A ranking's series (a 404 for one the catalog lacks) and years."""
    slug = slugify(series)
    if slug and get_series(session, slug) is None:
        raise HTTPException(404, f"There is no series called “{series}”.")
    return rankings.scope(session, slug, *years)


def topic_named(slug: str) -> Topic:
    found = load_taxonomy().by_slug().get(slug)
    if found is None:
        raise HTTPException(404, f"There is no topic called “{slug}”.")
    return found


def _topic_filter(topic: Annotated[
        str, Query(description="Only papers of this topic (slug)")] = "") -> str:
    """The topic a listing narrows to ("" for none); a 404 for one the taxonomy lacks."""
    if topic:
        topic_named(topic)
    return topic


def _edition_topic(found: EditionOrSeriesDep, topic: str = "") -> str:
    """The topic an edition's page narrows to (a 404 for one the taxonomy lacks); a series'
    page has no topic to narrow to."""
    return topic if isinstance(found, Series) else _topic_filter(topic)


def _whats_new_found(
    request: Request, search: SearchDep, chosen: ChosenSeriesDep,
    year: Annotated[OptionalYear, Query(description="e.g. 2018")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_WHATS_NEW)] = WHATS_NEW,
) -> WhatsNew:
    """What is new where a request asks; a 404 where there are no papers."""
    find: Finder = request.app.state.whats_new
    found = find(search, series=chosen.slug if chosen else "", year=year, limit=limit)
    if found is None:
        raise HTTPException(404, "No papers there, or the search index is not built yet.")
    return found


def _mapped(search: SearchDep) -> OpenIndex:
    """The live index, with its map; a 404 until the map is drawn."""
    current = search.with_index(lambda current: current, None)
    if current is None or opened_layout(current.parts) is None:
        raise HTTPException(404, "The map is not drawn yet: it is computed with the index.")
    return current


def sitemap_chunk(parts_of: Callable[[Session, str], list[list[Entry]] | None]
                  ) -> Callable[..., list[Entry]]:
    """The dependency that finds one part of the sitemap file named in the path: a 404 for a
    file `parts_of` does not know (None: no such series) or a part past its end."""

    def found(name: str, session: SessionDep,
              part: Annotated[int, Query(ge=1, le=1000)] = 1) -> list[Entry]:
        parts = parts_of(session, name)
        if parts is None:
            raise HTTPException(404, f"There is no series called “{name}”.")
        if part > len(parts):
            raise HTTPException(404, f"The sitemap of “{name}” has no part {part}.")
        return parts[part - 1]

    return found


def _profile_of(kind: people.Kind) -> Callable[..., people.Profile]:
    """The dependency that finds the profile of that kind named in the path (or a 404)."""

    def found(slug: str, session: SessionDep, where: ListFilterDep,
              page: Annotated[int, Query(ge=1, le=100_000)] = 1) -> people.Profile:
        profile = people.profile(session, kind, slug, where, page)
        if profile is None:
            raise HTTPException(404, f"There is no {kind} “{slug}” in the catalog.")
        within_pages(profile.listing)
        return profile

    return found


def year_range(
    first: Annotated[OptionalYear, Query(alias="from",
                                       description="First year (inclusive)")] = None,
    last: Annotated[OptionalYear, Query(alias="to",
                                      description="Last year (inclusive)")] = None,
) -> tuple[int | None, int | None]:
    """A range of years as asked; a reversed one (from=2024&to=2020) read the right way."""
    if first and last and first > last:
        return last, first
    return first, last


PaperDep = Annotated[Paper, Depends(_paper)]
VenueDep = Annotated[Edition, Depends(_venue)]
SeriesDep = Annotated[Series, Depends(_series)]
EditionOrSeriesDep = Annotated[Edition | Series, Depends(_edition_or_series_listed)]
TopicDep = Annotated[Topic, Depends(topic_named)]
ListFilterDep = Annotated[ListFilter, Depends(list_filter)]
AuthorDep = Annotated[people.Profile, Depends(_profile_of("author"))]
InstitutionDep = Annotated[people.Profile, Depends(_profile_of("institution"))]
CountryDep = Annotated[people.Profile, Depends(_profile_of("country"))]
SearchDep = Annotated[SearchService, Depends(get_search)]


def ready_search(search: SearchDep) -> SearchService:
    """The search, where this node has an index to rank papers from; else a 503 saying so,
    with when to ask again: a 200 listing no papers read as "none match" to an API client."""
    if not search.with_index(lambda current: True, False):
        raise HTTPException(503, NOT_READY, headers={"Retry-After": str(RETRY_SECONDS)})
    return search


ReadySearchDep = Annotated[SearchService, Depends(ready_search)]
SearchRequestDep = Annotated[SearchRequest, Depends(search_request)]
YearRangeDep = Annotated[tuple[int | None, int | None], Depends(year_range)]
PageDep = Annotated[int, Query(ge=1, le=100_000, description="1-based page number")]
RankingScopeDep = Annotated[rankings.Scope, Depends(_ranking_scope)]
ChosenSeriesDep = Annotated[Series | None, Depends(_chosen_series)]
TopicFilterDep = Annotated[str, Depends(_topic_filter)]
EditionTopicDep = Annotated[str, Depends(_edition_topic)]
WhatsNewDep = Annotated[WhatsNew, Depends(_whats_new_found)]
MappedDep = Annotated[OpenIndex, Depends(_mapped)]
