"""create_app(): the FastAPI application with its pages, JSON API and error handling."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlmodel import Session
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.config import PROJECT_ROOT, Settings, get_settings
from app.db import catalog_version, get_engine, paper_total
from app.search.index import read_index_version
from app.search.keeper import IndexKeeper
from app.search.searcher import PaperSearch
from app.web import api, downloads, pages
from app.web.pagecache import PageCache
from app.web.render import render

# Scripts only from our own files: no inline script can run, whatever a list file holds.
# Inline style attributes stay allowed (the topic matrix shades cells with them).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
NUL_ESCAPE = re.compile(rb"%00")
API_EXPLORER_PATHS = {"/docs", "/redoc"}
API_EXPLORER_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net"
).replace("style-src 'self'", "style-src 'self' https://cdn.jsdelivr.net").replace(
    "img-src 'self' data:", "img-src 'self' data: https://fastapi.tiangolo.com")
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    search = PaperSearch(settings.index_path)
    keeper = IndexKeeper(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        keeper.start()
        yield
        keeper.stop()
        search.close()

    app = FastAPI(title="Paper catalog", summary="ML conference paper abstracts",
                  lifespan=lifespan)
    app.state.settings = settings
    app.state.search = search
    app.state.keeper = keeper
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    get_engine(settings.database_url)  # creates a fresh catalog; refuses an outdated schema

    # Innermost of the middlewares: pages come out of the cache with the headers below.
    app.middleware("http")(PageCache(settings, search))

    @app.middleware("http")
    async def drop_nul(request: Request, call_next: Callable[[Request], Awaitable[Response]]
                       ) -> Response:
        # PostgreSQL refuses a NUL in any query, and none is meaningful in an address: a
        # search or filter works as without it; a path with one names no page.
        if "\x00" in request.scope["path"]:
            return _error_response(request, 400, "The address contains a NUL character.")
        request.scope["query_string"] = NUL_ESCAPE.sub(b"", request.scope["query_string"])
        return await call_next(request)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]
                               ) -> Response:
        response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if request.url.path in API_EXPLORER_PATHS:  # Swagger UI runs an inline script
            response.headers["Content-Security-Policy"] = API_EXPLORER_POLICY
        return response

    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    app.include_router(downloads.router)  # first: /venues/x.csv before /venues/{slug}
    app.include_router(pages.router)
    app.include_router(api.router)

    @app.get("/healthz", tags=["api"])
    def healthz(response: Response) -> dict[str, object]:
        """"ok" once this node can answer searches; "starting" (503) while it builds its index."""
        with Session(get_engine(settings.database_url)) as session:
            status = {"catalog_version": catalog_version(session),
                      "index_version": read_index_version(settings.index_path),
                      "index": keeper.state}
            if not keeper.ready(session):
                response.status_code = 503
                return {"status": "starting", **status}
            return {"status": "ok", "papers": paper_total(session), **status}

    if settings.bench_endpoint:
        @app.get("/bench/hello", include_in_schema=False)
        def hello() -> dict[str, str]:
            return {"hello": "world"}

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        return _error_response(request, error.status_code, str(error.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in error.errors()
        )
        return _error_response(request, 400, f"Invalid request: {problems}")

    @app.exception_handler(Exception)
    async def server_error(request: Request, _error: Exception) -> Response:
        # Never show a stack trace or a file path: the log has them.
        return _error_response(request, 500, "Something went wrong on our side.")

    return app


def _error_response(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message, "status": status}, status_code=status)
    if status == 404 and message == "Not Found":
        message = "There is no page at this address."
    return render(request, "error.html", status_code=status, status=status, message=message)


