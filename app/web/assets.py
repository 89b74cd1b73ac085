"""Static files under fingerprinted addresses: `/static/style.css?v=<hash of its content>`.

A returning reader's browser keeps them for a year without asking again (the page names a
new address as soon as a file changes), so it fetches nothing but the page itself.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib.metadata import version
from pathlib import Path

from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope
from swagger_ui.utils import SWAGGER_UI_PY_ROOT

from app.config import PROJECT_ROOT

STATIC_DIR = PROJECT_ROOT / "static"
# Swagger UI for /docs from its pinned package, not a CDN: offline deployments get the page
# and no third-party script runs under our address.
SWAGGER_UI_DIR = Path(SWAGGER_UI_PY_ROOT) / "static"
SWAGGER_UI_URL = "/static/swagger-ui"
SWAGGER_UI_VERSION = version("swagger-ui-py")  # its files' addresses change with it
IMMUTABLE = "public, max-age=31536000, immutable"


@cache
def static_url(name: str) -> str:
    """The fingerprinted address of a file in static/ (read once per process)."""
    digest = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:12]
    return f"/static/{name}?v={digest}"


class Assets(StaticFiles):
    """StaticFiles that lets browsers keep a fingerprinted file for good."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code == 200 and b"v=" in scope["query_string"]:
            response.headers["cache-control"] = IMMUTABLE
        return response
