"""/healthz: whether this node can answer searches, for load balancers and monitors."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.db import catalog_version, paper_total
from app.search.index import read_index_version
from app.web.deps import SessionDep

router = APIRouter(tags=["api"])


@router.get("/healthz", name="healthz")
def healthz(request: Request, response: Response, session: SessionDep) -> dict[str, object]:
    """"ok" once this node can answer searches; "starting" (503) while it builds its index."""
    keeper = request.app.state.keeper
    status = {"catalog_version": catalog_version(session),
              "index_version": read_index_version(request.app.state.settings.index_path),
              "index": keeper.state}
    if not keeper.ready(session):
        response.status_code = 503
        return {"status": "starting", **status}
    return {"status": "ok", "papers": paper_total(session), **status}
