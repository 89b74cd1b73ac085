"""/healthz: whether this node can answer searches, for load balancers and monitors."""

from __future__ import annotations

import os

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session

from app.catalog import memoized, version_key
from app.config import Settings
from app.db import database_damage, get_engine, paper_total
from app.search.index.generation import left_to_derive
from app.search.index.keeper import IndexKeeper
from app.search.index.manifest import damage_of
from app.search.index.sync import SyncKind, read_index_version

router = APIRouter(tags=["api"])


class HealthOut(BaseModel):
    """What /healthz answers: kept beside its route, its one user."""

    status: str  # "ok", "starting" or "damaged" (health.py)
    papers: int | None = None
    catalog_version: int
    index_version: int | None
    index: str
    worker: int  # the answering worker's process ID (several serve one node)
    database: str = "ok"  # or what was found wrong with it (db.database_damage)
    # How many papers have a sentence vector (search by meaning), of how many.
    vectors: str = ""


@router.get("/healthz", name="healthz",
            responses={503: {"model": HealthOut, "description": "Building its index"}})
async def healthz(request: Request, response: Response) -> HealthOut:
    """"ok" once this node can answer searches; "starting" (503) while it builds its index,
    "damaged" (503) while the only index it has is damaged and is rebuilt, or while the
    catalog database is (`database` names it). Files of the index that are made again alone
    (the sentence vectors, the map) found damaged are named in `index`, the status "ok": the
    searches go on without them."""
    # In the quick lane, not a request thread: slow searches holding every request thread
    # must not make a load balancer think the node is down.
    status = await request.app.state.quick.run(lambda: _status(request))
    if status.status != "ok":
        response.status_code = 503
    return status


def _index_state(state: str, deriving: list[str]) -> str:
    """The keeper's last outcome, and what an ingest left to derive after it returned (no
    search waits for it)."""
    return f"{state}; deriving {', '.join(deriving)}" if deriving else state


def _status(request: Request) -> HealthOut:
    keeper, settings = request.app.state.keeper, request.app.state.settings
    try:
        with Session(get_engine(settings.database_url)) as session:
            status = _catalog_status(session, keeper, settings)
    except DatabaseError:  # the check's own query met the damage: named below
        status = None
    damage = database_damage(settings.database_url)
    if damage is not None or status is None:
        return HealthOut(status="damaged", catalog_version=0, index=keeper.state,
                         index_version=read_index_version(settings.index_path),
                         worker=os.getpid(),
                         database=damage or "the catalog database could not be read")
    return status


def _catalog_status(session: Session, keeper: IndexKeeper, settings: Settings) -> HealthOut:
    damage = damage_of(settings.index_path)
    # The keeper's last outcome may date from before the damage was found: "up to date"
    # beside it read as a contradiction.
    state = (keeper.state if damage is None or keeper.state != SyncKind.UP_TO_DATE.value
             else "mended from the database at the keeper's next check")
    status = HealthOut(status="ok", catalog_version=version_key(session)[1],
                       index_version=read_index_version(settings.index_path),
                       index=_index_state(state, left_to_derive(session, settings.index_path)),
                       worker=os.getpid())
    if not keeper.ready(session):
        if damage is not None:
            return status.model_copy(update={"status": "damaged",
                                             "index": f"{damage}; {state}"})
        return status.model_copy(update={"status": "starting"})
    # Counted once per catalog version: counting 88,000 rows took 2-5 ms of every check.
    papers = memoized(session, ("papers",), lambda: paper_total(session))
    # Ready though damaged: only files made again alone are (the vectors, the map), and the
    # words are served without them meanwhile.
    index = status.index if damage is None else f"{damage}; {status.index}"
    return status.model_copy(update={"papers": papers, "vectors": _vectors(keeper),
                                     "index": index})


def _vectors(keeper: IndexKeeper) -> str:
    """How many papers have a sentence vector, as the keeper counted them last (every few
    seconds: they change as the papers are encoded)."""
    encoding = keeper.encoding
    if encoding.counts is None:
        return "not counted yet"
    with_vectors, total = encoding.counts
    return f"{with_vectors:,} of {total:,} papers" + (
        f"; {encoding.problem}" if encoding.problem else "")
