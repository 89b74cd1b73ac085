"""The paper map's image and its JSON (app/paper_map.py): the papers in question are a search
request's (`q` and facet filters: `venue=`, `series=`, `topic=`, ...) or a reading list's
(`ids=`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel
from sqlmodel import Session, col

from app import catalog
from app.cache import BoundedCache
from app.ids import ID_LIST, MAX_LISTED, parse_paper_ids
from app.models import Paper
from app.outputs import PhraseCount
from app.paper_map import MAX_POINTS, MapPoints, chosen_points, palette, render
from app.search.opened import OpenIndex
from app.search.searcher import PaperSearch
from app.web.api import ERRORS
from app.web.deps import SearchDep, SearchRequestDep, SessionDep
from app.web.urls import paper_url_for

router = APIRouter()


class MapPointOut(BaseModel):
    id: str
    x: float  # in [0, 1], left to right
    y: float  # in [0, 1], bottom to top
    topic: str
    year: int
    status: str
    colour: int  # the topic's place in the palette


class MapOut(BaseModel):
    total: int  # papers in question (at most 20,000 are placed)
    palette: list[str]  # colours, "#rrggbb"
    papers: list[MapPointOut]


class MapBoxPaperOut(BaseModel):
    id: str
    title: str
    url: str


class MapBoxOut(BaseModel):
    total: int  # papers in question inside the box
    terms: list[PhraseCount]  # their most frequent keyphrases
    papers: list[MapBoxPaperOut]  # the first 20


BOX_PAPERS, BOX_TERMS = 20, 12
TERMS_FROM = 2_000  # the box's keyphrases are counted over its first papers
# An image is the same for every reader until the index changes, and took 0.2-0.5 s to draw
# at L: kept per generation (an image is 35-55 KB).
_images: BoundedCache[tuple[object, ...], bytes] = BoundedCache(8 * 1024 * 1024, size=len)
IdsParam = Annotated[str, Query(description=f"A reading list: comma-separated paper IDs, at "
                                             f"most {MAX_LISTED}", pattern=f"^$|{ID_LIST}",
                                 max_length=MAX_LISTED * 17 - 1)]
Coordinate = Annotated[float, Query(ge=-1, le=2)]


def _ids(search: PaperSearch, request: object, ids: str) -> list[str]:
    if ids:
        try:
            return parse_paper_ids(ids)
        except ValueError as error:
            raise HTTPException(400, str(error)) from error
    return search.ranked_ids(request, limit=MAX_POINTS)  # type: ignore[arg-type]


def _points(search: PaperSearch, ids: list[str]) -> tuple[MapPoints | None, OpenIndex | None]:
    return search.with_index(lambda current: (chosen_points(current, ids), current), (None, None))


@router.get("/map.png", include_in_schema=False)
def map_image(search: SearchDep, request: SearchRequestDep, ids: IdsParam = "",
              field: bool = False) -> Response:
    """The map as a PNG: the field alone (`field=1`), or with the papers in question."""
    identity = search.with_index(
        lambda current: current.identity if current.positions is not None else None, None)
    if identity is None:
        raise HTTPException(404, "The map is not drawn yet: it is computed with the index.")
    key = (identity, None if field else (request, ids))
    image = _images.get(key)
    if image is None:
        chosen, current = _points(search, [] if field else _ids(search, request, ids))
        if current is None or current.positions is None:  # replaced since: draw it next time
            raise HTTPException(503, "The index is being replaced; try again in a moment.")
        image = render(current.positions[current.live], None if field else chosen)
        _images.put(key, image)
    return Response(image, media_type="image/png",
                    headers={"cache-control": "public, max-age=300"})


@router.get("/api/map", name="api_map", tags=["api"], responses=ERRORS)
def map_points(search: SearchDep, request: SearchRequestDep, ids: IdsParam = "") -> MapOut:
    """Where the papers in question sit on the map of the whole catalog (x and y in [0, 1]),
    at most 20,000 of them, with their topic, year and status."""
    found = _ids(search, request, ids)
    chosen, current = _points(search, found)
    if chosen is None or current is None:
        raise HTTPException(404, "The map is not drawn yet: it is computed with the index.")
    columns = current.columns
    return MapOut(total=len(found), palette=palette(), papers=[
        MapPointOut(id=current.ids[doc], x=round(float(x), 4), y=round(float(y), 4),
                    topic=str(columns["topic"].values[columns["topic"].codes[doc]]),
                    year=int(columns["year"].values[columns["year"].codes[doc]]),
                    status=str(columns["status"].values[columns["status"].codes[doc]]),
                    colour=int(colour))
        for doc, (x, y), colour in zip(chosen.docs, chosen.xy, chosen.topics, strict=True)])


@router.get("/api/map/box", name="api_map_box", tags=["api"], responses=ERRORS)
def map_box(http: Request, session: SessionDep, search: SearchDep, request: SearchRequestDep,
            x0: Coordinate, x1: Coordinate, y0: Coordinate, y1: Coordinate,
            ids: IdsParam = "") -> MapBoxOut:
    """The papers in question inside a box of the map, and their most frequent keyphrases."""
    chosen, _ = _points(search, _ids(search, request, ids))
    if chosen is None:
        raise HTTPException(404, "The map is not drawn yet: it is computed with the index.")
    x, y = chosen.xy[:, 0], chosen.xy[:, 1]
    inside = (x >= min(x0, x1)) & (x <= max(x0, x1)) & (y >= min(y0, y1)) & (y <= max(y0, y1))
    found = search.with_index(lambda current: [current.ids[d] for d in chosen.docs[inside]], [])
    return _box(http, session, found)


def _box(http: Request, session: Session, found: list[str]) -> MapBoxOut:
    papers = catalog.papers_by_id(session, found[:BOX_PAPERS])
    url_for = paper_url_for(http)
    terms = catalog.top_keyphrases(session, col(Paper.id).in_(found[:TERMS_FROM]),
                                   limit=BOX_TERMS)
    return MapBoxOut(total=len(found), terms=[PhraseCount(phrase=p, papers=n) for p, n in terms],
                     papers=[MapBoxPaperOut(id=p.id, title=p.headline, url=url_for(p))
                             for p in (papers[pid] for pid in found[:BOX_PAPERS] if pid in papers)])
