"""The paper map's image and its JSON (app/map/drawing.py): the papers in question are a search
request's (`q` and facet filters: `venue=`, `series=`, `topic=`, ...) or a reading list's
(`ids=`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Annotated

import numpy as np
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel
from sqlmodel import Session, col

from app import catalog
from app.cache import ComputedOnce
from app.ids import ID_LIST, MAX_LISTED, parse_paper_ids
from app.map.drawing import MAX_POINTS, MapPoints, palette, render
from app.map.layout import opened_layout
from app.models import Paper
from app.outputs import ERRORS, PhraseCount
from app.search.index.opened import OpenIndex
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.topics import load_taxonomy
from app.web.deps import MappedDep, SearchDep, SearchRequestDep, SessionDep
from app.web.urls import paper_url_for

router = APIRouter()


def chosen_points(current: OpenIndex, ids: list[str]) -> MapPoints | None:
    """The papers of `ids` that the map places (None: the map is not drawn yet)."""
    layout = opened_layout(current.parts)
    if layout is None:
        return None
    numbers = (current.ids.number(pid) for pid in ids)
    docs = np.array([doc for doc in numbers if doc is not None], dtype=np.int64)
    docs = docs[layout.placed[docs]]  # a paper removed since the layout has no place
    column = current.columns["topic"]
    order = {topic.slug: i for i, topic in enumerate(load_taxonomy().topics)}
    colours = np.array([order.get(str(slug), len(order)) for slug in column.decoded()],
                       dtype=np.int64)
    return MapPoints(docs, layout.positions[docs], colours[column.codes[docs]])


class MapPointOut(BaseModel):
    id: str
    x: float  # in [0, 1], left to right
    y: float  # in [0, 1], bottom to top
    topic: str
    year: int
    status: str
    colour: int  # the topic's place in the palette


class MapOut(BaseModel):
    total: int  # papers in question that the catalog holds (at most 20,000 are placed)
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
# An image and the points are the same for every reader until the index changes: each is made
# once per generation and request, in a searching slot as a search is (the points of 20,000
# papers cost 0.5-0.9 s of CPU at L, and six at once held the interpreter lock from /healthz),
# and kept as bytes: an image is 35-55 KB, the points of 20,000 papers 2.3 MB.
_drawn: ComputedOnce[tuple[object, ...], bytes] = ComputedOnce(16 * 1024 * 1024, size=len)
POINTS_PER_CALL = 2_000  # json.dumps holds the interpreter lock: 80 ms for 20,000 points
COMPACT = (",", ":")  # JSON without spaces, as FastAPI writes it
IdsParam = Annotated[str, Query(description=f"A reading list: comma-separated paper IDs, at "
                                             f"most {MAX_LISTED}", pattern=f"^$|{ID_LIST}",
                                 max_length=MAX_LISTED * 17 - 1)]
Coordinate = Annotated[float, Query(ge=-1, le=2)]
Papers = tuple[SearchRequest, str] | None  # the papers in question: a request and a list


def _ids(search: PaperSearch, request: SearchRequest, ids: str, session: Session) -> list[str]:
    if ids:
        try:
            return parse_paper_ids(ids)
        except ValueError as error:
            raise HTTPException(400, str(error)) from error
    return search.ranked_ids(request, partial(catalog.plain_texts, session), limit=MAX_POINTS)


def _drawn_once(search: PaperSearch, current: OpenIndex, kind: str, papers: Papers,
                draw: Callable[[OpenIndex, list[str]], bytes], session: Session) -> bytes:
    """What `draw` makes of the live index and the IDs of the papers in question, made in a
    searching slot once per generation."""

    def made() -> bytes:
        found = [] if papers is None else _ids(search, *papers, session)  # in a slot of its own
        return search.gated(lambda: draw(current, found))

    return _drawn.get((kind, current.identity, papers), made)


@router.get("/map.png", include_in_schema=False)
def map_image(search: SearchDep, current: MappedDep, request: SearchRequestDep,
              session: SessionDep, ids: IdsParam = "", field: bool = False) -> Response:
    """The map as a PNG: the field alone (`field=1`), or with the papers in question."""
    image = _drawn_once(search, current, "png", None if field else (request, ids),
                        lambda current, found: render(_placed(current),
                                                      chosen_points(current, found)), session)
    return Response(image, media_type="image/png",
                    headers={"cache-control": "public, max-age=300"})


@router.get("/api/map", name="api_map", tags=["api"], responses=ERRORS, response_model=MapOut)
def map_points(search: SearchDep, current: MappedDep, request: SearchRequestDep,
               session: SessionDep, ids: IdsParam = "") -> Response:
    """Where the papers in question sit on the map of the whole catalog (x and y in [0, 1]),
    at most 20,000 of them, with their topic, year and status."""
    total = (sum(current.ids.number(pid) is not None for pid in _ids(search, request, ids, session))
             if ids else search.counts(request).total)  # a search's: more than it places
    return Response(_drawn_once(search, current, "points", (request, ids),
                                lambda current, found: _points_json(current, found, total),
                                session),
                    media_type="application/json")


def _placed(current: OpenIndex) -> np.ndarray:
    """Every placed paper's place (MappedDep: the map is drawn)."""
    layout = opened_layout(current.parts)
    assert layout is not None
    return layout.positions[layout.placed]


def _points_json(current: OpenIndex, found: list[str], total: int) -> bytes:
    """MapOut's JSON, its points written a few thousand at a time."""
    chosen = chosen_points(current, found)
    assert chosen is not None  # the map is drawn: _drawn_once checked

    def of(name: str) -> list[object]:
        column = current.columns[name]
        return np.asarray(column.decoded(), dtype=object)[column.codes[chosen.docs]].tolist()

    papers = [{"id": current.ids[doc], "x": round(x, 4), "y": round(y, 4), "topic": str(topic),
               "year": int(year), "status": str(status), "colour": colour}
              for doc, (x, y), topic, year, status, colour in zip(
                  chosen.docs.tolist(), chosen.xy.tolist(), of("topic"), of("year"), of("status"),
                  chosen.topics.tolist(), strict=True)]
    lists = [json.dumps(papers[start:start + POINTS_PER_CALL], separators=COMPACT)[1:-1]
             for start in range(0, len(papers), POINTS_PER_CALL)]
    head = json.dumps({"total": total, "palette": palette()}, separators=COMPACT)[:-1]
    return f'{head},"papers":[{",".join(lists)}]}}'.encode()


@router.get("/api/map/box", name="api_map_box", tags=["api"], responses=ERRORS)
def map_box(http: Request, session: SessionDep, search: SearchDep, current: MappedDep,
            request: SearchRequestDep, x0: Coordinate, x1: Coordinate, y0: Coordinate,
            y1: Coordinate, ids: IdsParam = "") -> MapBoxOut:
    """The papers in question inside a box of the map, and their most frequent keyphrases."""
    chosen = chosen_points(current, _ids(search, request, ids, session))
    assert chosen is not None  # the map is drawn: _mapped checked
    x, y = chosen.xy[:, 0], chosen.xy[:, 1]
    inside = (x >= min(x0, x1)) & (x <= max(x0, x1)) & (y >= min(y0, y1)) & (y <= max(y0, y1))
    found = [current.ids[doc] for doc in chosen.docs[inside].tolist()]
    return _box(http, session, found)


def _box(http: Request, session: Session, found: list[str]) -> MapBoxOut:
    papers = catalog.papers_by_id(session, found[:BOX_PAPERS])
    url_for = paper_url_for(http)
    terms = catalog.top_keyphrases(session, col(Paper.id).in_(found[:TERMS_FROM]),
                                   limit=BOX_TERMS)
    return MapBoxOut(total=len(found), terms=[PhraseCount(phrase=p, papers=n) for p, n in terms],
                     papers=[MapBoxPaperOut(id=p.id, title=p.headline, url=url_for(p))
                             for p in (papers[pid] for pid in found[:BOX_PAPERS] if pid in papers)])
