"""Rendered pages kept per catalog version and index generation.

A page depends only on the database (at its catalog version) and the search index (at its
generation), so a venue or paper page that a thousand people open during a conference is
rendered once per ingest, not once per request. The same key is the page's ETag: a browser
that already holds the page gets a 304 without anything being rendered.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.config import Settings
from app.db import catalog_version, get_engine
from app.search.searcher import PaperSearch

# HTML pages; their dotted twins (/venues/x.csv) and ?format= downloads stream, uncached.
PAGE_PREFIXES = ("/venues", "/papers/", "/topics", "/authors/", "/search")
PAGES = 512
MAX_PAGE_BYTES = 512 * 1024


class PageCache:
    def __init__(self, settings: Settings, search: PaperSearch, size: int = PAGES) -> None:
        self.settings = settings
        self.search = search
        self.size = size
        self._pages: OrderedDict[tuple[str, ...], tuple[bytes, dict[str, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def _version(self) -> str:
        with Session(get_engine(self.settings.database_url)) as session:
            version = catalog_version(session)
        return f"{version}/{self.search.index_identity()}"

    @staticmethod
    def cacheable(request: Request) -> bool:
        path = request.url.path
        return (request.method == "GET" and (path == "/" or path.startswith(PAGE_PREFIXES))
                and "." not in path.rsplit("/", 1)[-1]
                and "format" not in request.query_params)

    async def __call__(self, request: Request,
                       call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if not self.cacheable(request):
            return await call_next(request)
        # The host too: pages hold absolute links (BibTeX URLs) to the address they were asked at.
        key = (str(request.base_url), request.url.path, request.url.query,
               await run_in_threadpool(self._version))
        etag = f'"{hashlib.sha256(repr(key).encode()).hexdigest()[:24]}"'
        # no-cache: browsers keep the page but ask each time, and get a 304 while it holds.
        validators = {"ETag": etag, "Cache-Control": "no-cache"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=validators)
        with self._lock:
            cached = self._pages.get(key)
            if cached is not None:
                self._pages.move_to_end(key)
        if cached is not None:
            body, headers = cached
            return Response(body, headers={**headers, **validators})
        response = await call_next(request)
        if response.status_code != 200:
            return response
        body = b"".join([chunk async for chunk in response.body_iterator])  # type: ignore[attr-defined]
        headers = {name: value for name, value in response.headers.items()
                   if name != "content-length"}
        if len(body) <= MAX_PAGE_BYTES:
            with self._lock:
                self._pages[key] = (body, headers)
                while len(self._pages) > self.size:
                    self._pages.popitem(last=False)
        return Response(body, headers={**headers, **validators})
