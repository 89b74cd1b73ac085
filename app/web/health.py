"""/healthz: whether this node can answer searches, for load balancers and monitors."""

from __future__ import annotations

import os

from fastapi import APIRouter, Request, Response

from app.db import catalog_version, paper_total
from app.outputs import HealthOut
from app.search.index import read_index_version
from app.web.deps import SessionDep

router = APIRouter(tags=["api"])


@router.get("/healthz", name="healthz",
            responses={503: {"model": HealthOut, "description": "Building its index"}})
def healthz(request: Request, response: Response, session: SessionDep) -> HealthOut:
    """"ok" once this node can answer searches; "starting" (503) while it builds its index."""
    keeper = request.app.state.keeper
    status = HealthOut(status="ok", catalog_version=catalog_version(session),
                       index_version=read_index_version(request.app.state.settings.index_path),
                       index=keeper.state, worker=os.getpid())
    if not keeper.ready(session):
        response.status_code = 503
        return status.model_copy(update={"status": "starting"})
    return status.model_copy(update={"papers": paper_total(session)})
