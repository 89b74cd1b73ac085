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

from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings
from app.db import catalog_version, get_engine
from app.search.searcher import PaperSearch

# HTML pages; their dotted twins (/venues/x.csv) and ?format= downloads stream, uncached.
PAGE_PREFIXES = ("/venues", "/papers/", "/topics", "/authors/", "/search", "/trends")
PAGES = 512
MAX_PAGE_BYTES = 512 * 1024

RawHeaders = list[tuple[bytes, bytes]]


def cacheable(scope: Scope) -> bool:
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    path: str = scope["path"]
    return ((path == "/" or path.startswith(PAGE_PREFIXES))
            and "." not in path.rsplit("/", 1)[-1]
            and b"format=" not in scope["query_string"])


class PageCache:
    def __init__(self, app: ASGIApp, settings: Settings, search: PaperSearch,
                 size: int = PAGES) -> None:
        self.app = app
        self.settings = settings
        self.search = search
        self.size = size
        self._pages: OrderedDict[tuple[object, ...], tuple[RawHeaders, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def _version(self) -> str:
        with Session(get_engine(self.settings.database_url)) as session:
            version = catalog_version(session)
        return f"{version}/{self.search.index_identity()}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not cacheable(scope):
            await self.app(scope, receive, send)
            return
        request_headers = Headers(scope=scope)
        # The host too: pages hold absolute links (BibTeX URLs) to the address they were asked at.
        key = (request_headers.get("host"), scope.get("scheme"), scope["path"],
               scope["query_string"], await run_in_threadpool(self._version))
        etag = f'"{hashlib.sha256(repr(key).encode()).hexdigest()[:24]}"'.encode()
        # no-cache: browsers keep the page but ask each time, and get a 304 while it holds.
        validators = [(b"etag", etag), (b"cache-control", b"no-cache")]
        if etag.decode() in request_headers.get("if-none-match", ""):
            await _send(send, 304, validators, b"")
            return
        with self._lock:
            cached = self._pages.get(key)
            if cached is not None:
                self._pages.move_to_end(key)
        if cached is not None:
            await _send(send, 200, cached[0] + validators, cached[1])
            return
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        body = b"".join(chunks)
        headers = [(name, value) for name, value in start["headers"] if name != b"content-length"]
        if start["status"] != 200:
            await _send(send, start["status"], headers, body)
            return
        if len(body) <= MAX_PAGE_BYTES:
            with self._lock:
                self._pages[key] = (headers, body)
                while len(self._pages) > self.size:
                    self._pages.popitem(last=False)
        await _send(send, 200, headers + validators, body)


async def _send(send: Send, status: int, headers: RawHeaders, body: bytes) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
