"""create_app(): the FastAPI application with its pages, JSON API and error handling."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from anyio import to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from app.allocator import Trimmer, limit_arenas
from app.config import Settings, get_settings
from app.db import check_database, get_engine
from app.enrich import complete_keyphrases
from app.feature_parts import register_parts
from app.map import routes as maps
from app.paging import PastTheEnd
from app.people import routes as people
from app.search.index.keeper import IndexKeeper
from app.search.searcher import PaperSearch
from app.topics import use_taxonomy
from app.web import discovery, health, papers, saved, search, topics, trends, venues
from app.web.assets import STATIC_DIR, SWAGGER_UI_DIR, SWAGGER_UI_URL, Assets
from app.web.lanes import QuickLane
from app.web.middleware import (
    SECURITY_HEADERS,
    AllowedHosts,
    DropNul,
    HeadAsGet,
    InFlight,
    LongAddresses,
    PublicAddress,
    RefusedEncodings,
    SecurityHeaders,
    allowed_with_head,
)
from app.web.pagecache import MIN_GZIP_BYTES, PageCache
from app.web.render import error_response
from app.whats_new.rising import whats_new

logger = logging.getLogger("uvicorn.error")
SWITCH_INTERVAL = 0.0002  # seconds
# Each resource's module: its pages with their downloads (`router`), and their JSON twins
# under /api/ (`api`).
RESOURCES = (venues, people, topics, papers, search, trends, saved)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    limit_arenas()
    # A thread that waits for the interpreter lock asks the one holding it to let go after
    # this long (Python's default: 5 ms). Each SQLite call and socket read gives the lock up
    # and waits for it again, so a health check behind two busy searches waited about forty
    # times: 450 ms p95 at 5 ms, 33 ms at 0.2 ms, at the same search throughput
    # (bench/hostile.py, docs/performance.md).
    sys.setswitchinterval(SWITCH_INTERVAL)
    use_taxonomy(settings.topics_file)
    register_parts()
    search = PaperSearch(settings.index_path)
    keeper = IndexKeeper(settings, after_check=search.warm, derive_catalog=complete_keyphrases)
    trimmer = Trimmer()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        to_thread.current_default_thread_limiter().total_tokens = settings.threads
        # The index already here is opened, the templates compiled and the home page's counts
        # made before the first request is taken (/healthz included), so that the first
        # page, search or completion after a start is as fast as the next ones.
        await to_thread.run_sync(search.warm)
        await to_thread.run_sync(_warm_pages, settings, search)
        keeper.start()
        trimmer.start()
        yield
        trimmer.stop()
        keeper.stop()
        search.close()

    app = FastAPI(title="Paper catalog", summary="ML conference paper abstracts",
                  lifespan=lifespan, docs_url=None, redoc_url=None)  # /docs: discovery.py
    app.state.settings = settings
    app.state.search = search
    app.state.whats_new = whats_new  # web/deps.py's lookup asks it (whats_new/found.py)
    app.state.keeper = keeper
    app.state.trimmer = trimmer
    app.state.quick = QuickLane()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    try:
        get_engine(settings.database_url)  # creates a fresh catalog; refuses an outdated schema
    except DatabaseError:
        if check_database(settings.database_url) is None:
            raise
        # A damaged database: served, so that /healthz answers 503 naming it (the keeper
        # checked it too) while it is restored; its pages fail.
    _add_middlewares(app, settings, search, trimmer)
    _add_routes(app, settings)
    _add_error_handlers(app)
    return app


def _warm_pages(settings: Settings, search: PaperSearch) -> None:
    """Only a head start: a catalog that cannot be read now is reported by the requests that
    read it (a clear 500 page), not by a server that does not start."""
    try:
        with Session(get_engine(settings.database_url)) as session:
            venues.warm(session, search)
    except Exception:  # noqa: BLE001
        logger.warning("Warming up the pages failed; the first requests will do it.",
                       exc_info=True)


def _add_middlewares(app: FastAPI, settings: Settings, search: PaperSearch,
                     trimmer: Trimmer) -> None:
    # Plain ASGI middlewares, the last added outermost: every response, cached pages too, gets
    # the security headers. (Starlette's BaseHTTPMiddleware cost as much per request as the
    # whole hello-world endpoint.) Gzip inside the page cache, which compresses its pages
    # once itself: JSON, exports (streamed) and static files. HEAD becomes GET first, so a
    # cached page answers it too. A foreign host is refused before the request is taken at
    # the public address, and the page cache sees only the host a page is rendered for.
    # Requests in flight are counted outermost: one is over when everything inside is done.
    app.add_middleware(GZipMiddleware, minimum_size=MIN_GZIP_BYTES, compresslevel=6)
    app.add_middleware(PageCache, settings=settings, search=search, lane=app.state.quick)
    app.add_middleware(DropNul)
    app.add_middleware(LongAddresses)
    app.add_middleware(PublicAddress, public_url=settings.public_url)
    app.add_middleware(AllowedHosts, hosts=settings.hosts)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeadAsGet)
    app.add_middleware(RefusedEncodings)
    app.add_middleware(InFlight, trimmer=trimmer)


def _add_routes(app: FastAPI, settings: Settings) -> None:
    app.mount(SWAGGER_UI_URL, Assets(directory=SWAGGER_UI_DIR), name="swagger-ui")
    app.mount("/static", Assets(directory=STATIC_DIR), name="static")
    for resource in RESOURCES:
        app.include_router(resource.router)
        app.include_router(resource.api)
    for module in (maps, discovery, health):
        app.include_router(module.router)
    if settings.bench_endpoint:
        @app.get("/bench/hello", include_in_schema=False)
        def hello() -> dict[str, str]:
            return {"hello": "world"}


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        headers = error.headers or {}
        response = error_response(request, error.status_code, str(error.detail),
                                  headers.get("Retry-After"))
        response.headers.update(headers)
        if "allow" in response.headers:  # a 405's
            response.headers["Allow"] = allowed_with_head(response.headers["allow"])
        return response

    @app.exception_handler(PastTheEnd)
    async def past_the_end(request: Request, error: PastTheEnd) -> Response:
        return error_response(request, 404, str(error))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in error.errors()
        )
        return error_response(request, 400, f"Invalid request: {problems}")

    @app.exception_handler(Exception)
    async def server_error(request: Request, _error: Exception) -> Response:
        # Never show a stack trace or a file path: the log has them. Starlette answers this
        # outside every middleware, so the security headers are added here.
        response = error_response(request, 500, "Something went wrong on our side.")
        response.headers.update(SECURITY_HEADERS)
        return response
