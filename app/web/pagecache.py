"""Rendered pages kept per catalog version, index generation and release of the code.

A page depends only on the database (at its catalog version) and the search index (at its
generation), so a venue or paper page that a thousand people open during a conference is
rendered once per ingest, not once per request. The same key is the page's ETag: a browser
that already holds the page gets a 304 without anything being rendered.

Pages are kept as rendered and, once a client asks for it, gzipped (a fifth of the bytes):
compressed once per page version rather than per request. The app behind is asked for the
page uncompressed, whatever the client accepts.
"""

from __future__ import annotations

import gzip
import hashlib
from functools import cache

from sqlmodel import Session
from starlette.datastructures import Headers, QueryParams
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.cache import BoundedCache
from app.config import PROJECT_ROOT, Settings
from app.db import catalog_version, get_engine
from app.search.searcher import PaperSearch
from app.web.lanes import QuickLane
from app.web.urls import PAGE_PREFIXES

# HTML pages (urls.PAGE_PREFIXES); their dotted twins (/venues/x.csv) and ?format= downloads
# stream, uncached.
PAGES = 512
# Bytes of pages kept (their gzipped copies add about a fifth): 512 pages of up to 512 KB
# could otherwise hold 256 MB of a worker's memory. 16 MB (~300 venue pages) rather than 24:
# a worker's RSS after the readers mix at L 373-383 MB instead of 384-396, the same req/s.
PAGE_BYTES = 16 * 1024 * 1024
MAX_PAGE_BYTES = 512 * 1024
MIN_GZIP_BYTES = 500  # below, the gzip header costs more than it saves

RawHeaders = list[tuple[bytes, bytes]]


def cacheable(scope: Scope) -> bool:
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    path: str = scope["path"]
    # Decided from the parameters as the app reads them: "%66ormat=csv" is a download too.
    return ((path == "/" or path.startswith(PAGE_PREFIXES))
            and "." not in path.rsplit("/", 1)[-1]
            and "format" not in QueryParams(scope["query_string"]))


@cache
def code_identity() -> str:
    """What this process renders pages with: a digest of the app's code, templates and static
    files. A new release changes pages without an ingest, so it changes their ETags too, or a
    browser revalidating a page would be told to keep the older release's."""
    digest = hashlib.sha256()
    for root in ("app", "templates", "static"):
        for path in sorted((PROJECT_ROOT / root).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(f"{path.relative_to(PROJECT_ROOT)}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def revalidated(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match header holds the page's ETag, compared weakly (W/"x" is "x"),
    or `*`, any current page (RFC 9110)."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return etag in tags or "*" in tags


class PageCache:
    def __init__(self, app: ASGIApp, settings: Settings, search: PaperSearch, lane: QuickLane,
                 size: int = PAGES) -> None:
        self.app = app
        self.settings = settings
        self.search = search
        self.lane = lane
        self._pages: BoundedCache[tuple[object, ...], _Page] = BoundedCache(
            PAGE_BYTES, max_entries=size, size=lambda page: len(page.body))
        self.code = code_identity()

    def _version(self) -> str:
        with Session(get_engine(self.settings.database_url)) as session:
            version = catalog_version(session)
        return f"{version}/{self.search.index_identity()}"

    def _meaning(self) -> str:
        """Whether the model is refused: a description's page says so, until it is mended."""
        return "off" if self.search.encoder.problem else "on"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not cacheable(scope):
            await self.app(scope, receive, send)
            return
        request_headers = Headers(scope=scope)
        # The host too: pages hold absolute links (BibTeX URLs) to the address they were asked at.
        meaning = self._meaning()
        key = (request_headers.get("host"), scope.get("scheme"), scope["path"],
               scope["query_string"], await self.lane.run(self._version), meaning, self.code)
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:24]
        compress = "gzip" in request_headers.get("accept-encoding", "")
        # Each encoding its own ETag, as a cache between us and the browser may keep both.
        etag = f'"{digest}-gz"' if compress else f'"{digest}"'
        # no-cache: browsers keep the page but ask each time, and get a 304 while it holds.
        validators = [(b"etag", etag.encode()), (b"cache-control", b"no-cache"),
                      (b"vary", b"Accept-Encoding")]
        if revalidated(request_headers.get("if-none-match", ""), etag):
            await _send(send, 304, validators, b"")
            return
        page = self._pages.get(key)
        if page is None:
            status, headers, body = await self._render(scope, receive)
            if status != 200:
                await _send(send, status, headers, body)
                return
            page = _Page(headers, body)
            # Not kept when the model was found refused (or mended) as it was rendered: its
            # key says the state before
            if len(body) <= MAX_PAGE_BYTES and self._meaning() == meaning:
                self._pages.put(key, page)
        if compress and len(page.body) >= MIN_GZIP_BYTES:
            await _send(send, 200, page.headers + validators
                        + [(b"content-encoding", b"gzip")], page.gzipped())
        else:
            await _send(send, 200, page.headers + validators, page.body)

    async def _render(self, scope: Scope, receive: Receive) -> tuple[int, RawHeaders, bytes]:
        """The app's response, asked for without compression."""
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        plain = {**scope, "headers": [(name, value) for name, value in scope["headers"]
                                      if name != b"accept-encoding"]}
        await self.app(plain, receive, capture)
        headers = [(name, value) for name, value in start["headers"]
                   if name not in (b"content-length", b"vary")]
        return start["status"], headers, b"".join(chunks)


class _Page:
    def __init__(self, headers: RawHeaders, body: bytes) -> None:
        self.headers = headers
        self.body = body
        self._gzipped: bytes | None = None

    def gzipped(self) -> bytes:
        if self._gzipped is None:  # two threads may both compress: the same bytes
            self._gzipped = gzip.compress(self.body, compresslevel=6, mtime=0)
        return self._gzipped


async def _send(send: Send, status: int, headers: RawHeaders, body: bytes) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
