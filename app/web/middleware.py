"""Plain ASGI middlewares: security headers on every response, foreign hosts refused, NUL
characters kept out, HEAD answered as GET, requests in flight counted."""

from __future__ import annotations

import re
from collections.abc import Collection
from urllib.parse import unquote_to_bytes, urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.allocator import Trimmer
from app.config import HOST_NAME, plain_host
from app.web.render import error_response

# Scripts only from our own files: no inline script can run, whatever a list file holds.
# Inline style attributes stay allowed (the topic matrix shades cells with them).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
NUL_ESCAPE = re.compile(rb"%00")
HOST_HEADER = re.compile(rf"(?P<name>{HOST_NAME.pattern})(?::(?P<port>[0-9]{{1,5}}))?",
                         re.IGNORECASE)
# Counted in characters, as the OpenAPI document counts a parameter's maxLength: every request
# the document calls valid fits (tests/web/test_openapi.py), in any script.
MAX_ADDRESS_CHARS = 32 * 1024
# A character is 1 to 12 bytes of an address (4 UTF-8 bytes, each percent-encoded).
MAX_CHAR_BYTES = 12
# What the HTTP server reads of a request's head before it gives up (uvicorn's default, 16
# KB, reset connections with longer addresses instead of letting LongAddresses answer 414).
MAX_REQUEST_HEAD_BYTES = 1024 * 1024
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class InFlight:
    """Tells the allocator's trimmer when the worker has no request left in flight, the
    moment to hand free heap pages back (allocator.py)."""

    def __init__(self, app: ASGIApp, trimmer: Trimmer) -> None:
        self.app = app
        self.trimmer = trimmer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.trimmer.request_started()
        try:
            await self.app(scope, receive, send)
        finally:
            self.trimmer.request_finished()


class DropNul:
    """PostgreSQL refuses a NUL in any query, and none is meaningful in an address: a search
    or a filter works as it would without it; a path with one names no page (400)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if "\x00" in scope["path"]:
                response = error_response(Request(scope), 400,
                                          "The address contains a NUL character.")
                await response(scope, receive, send)
                return
            scope["query_string"] = NUL_ESCAPE.sub(b"", scope["query_string"])
        await self.app(scope, receive, send)


class LongAddresses:
    """An address longer than any page needs is answered 414 before anything reads it. The
    longest real one is a pasted abstract: 10,000 characters, in any script. The address is
    measured in characters once percent-decoded, the unit of the OpenAPI document's maxLength
    (in bytes, 10,000 characters of Chinese were 90 KB, and schemathesis' invalid lists of
    IDs, just over their 8,499 characters, got a 414 for a 400)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and address_length(scope) > MAX_ADDRESS_CHARS:
            response = error_response(Request(scope), 414, (
                f"The address is longer than {MAX_ADDRESS_CHARS:,} characters. To find papers "
                "like a long text, paste a shorter part of it (at most 10,000 characters)."))
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def address_length(scope: Scope) -> int:
    """The characters of a request's path and query, percent-decoded (bytes that are no UTF-8
    count one each). Only an address of more bytes than the limit has characters counted."""
    raw = (scope.get("raw_path") or b"") + scope["query_string"]
    if len(raw) <= MAX_ADDRESS_CHARS or len(raw) > MAX_ADDRESS_CHARS * MAX_CHAR_BYTES:
        return len(raw)
    return len(unquote_to_bytes(raw).decode("utf-8", "replace"))


class HeadAsGet:
    """HEAD answered as GET without the body, for every page, twin and export: link
    checkers, uptime monitors and `curl -I` ask with it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def allowed_with_head(allow: str) -> str:
    """A 405's Allow header with HEAD wherever it lists GET: HeadAsGet answers both, while the
    router names only the methods its routes declare."""
    methods = [method.strip() for method in allow.split(",") if method.strip()]
    if "GET" in methods and "HEAD" not in methods:
        methods.insert(methods.index("GET") + 1, "HEAD")
    return ", ".join(methods)


class RefusedEncodings:
    """Codings a client refuses (`gzip;q=0`) are taken out of its Accept-Encoding, so that
    the page cache and the gzip middleware, which look for the word "gzip", do not send one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["headers"] = [
                (name, accepted_encodings(value.decode("latin-1")).encode("latin-1"))
                if name == b"accept-encoding" else (name, value)
                for name, value in scope["headers"]]
        await self.app(scope, receive, send)


def accepted_encodings(header: str) -> str:
    """The codings of an Accept-Encoding header whose quality is not zero (RFC 9110)."""
    kept = []
    for part in header.split(","):
        coding, *params = (piece.strip() for piece in part.split(";"))
        quality = next((value for name, _, value in (p.partition("=") for p in params)
                        if name.strip().lower() == "q"), "1")
        try:
            accepted = float(quality) > 0
        except ValueError:
            accepted = False  # an unreadable quality is no consent
        if coding and accepted:
            kept.append(coding)
    return ", ".join(kept)


class AllowedHosts:
    """A request that names a host the catalog is not configured for (Settings.hosts) is
    refused with a 400 that does not repeat it, so no page, feed, redirect or cached copy can
    ever name it. An allowed Host goes on in its plain form ("LocalHost.:8000" as
    "localhost:8000"): one host, one copy of each page in the page cache. A request without
    a Host header (HTTP/1.0) is taken at the server's own address."""

    def __init__(self, app: ASGIApp, hosts: Collection[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        named = [value for name, value in scope["headers"] if name == b"host"]
        if named:
            host = self.allowed(named)
            if host is None:
                response = error_response(Request(scope), 400, (
                    "This catalog does not answer for the host this request names. Its "
                    "operator can allow more with CATALOG_ALLOWED_HOSTS."))
                await response(scope, receive, send)
                return
            scope = {**scope, "headers": [
                *((n, v) for n, v in scope["headers"] if n != b"host"), (b"host", host)]}
        await self.app(scope, receive, send)

    def allowed(self, named: list[bytes]) -> bytes | None:
        """The one Host header's value in its plain form, if it names an allowed host."""
        found = HOST_HEADER.fullmatch(named[0].decode("latin-1")) if len(named) == 1 else None
        if found is None or int(found["port"] or 0) > 65535:
            return None
        name = plain_host(found["name"])
        if name not in self.hosts:
            return None
        site = f"[{name}]" if ":" in name else name
        return (site + (f":{found['port']}" if found["port"] else "")).encode("latin-1")


class PublicAddress:
    """Absolute links and redirects that cannot be steered by a request's Host header: with a
    public URL set, every request is taken as asked at that address (else at the allowed host
    it names, AllowedHosts); either way, a redirect within the site is relative
    ("/saved?ids=x", not "http://papers.example.org/saved?ids=x")."""

    def __init__(self, app: ASGIApp, public_url: str = "") -> None:
        self.app = app
        self.public = urlsplit(public_url) if public_url else None  # checked by Settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.public is not None:
            public = self.public
            port = public.port or (443 if public.scheme == "https" else 80)
            scope = {**scope, "scheme": public.scheme, "server": (public.hostname, port),
                     "headers": [*((n, v) for n, v in scope["headers"] if n != b"host"),
                                 (b"host", public.netloc.encode("latin-1"))]}
        site = f"{scope['scheme']}://{Headers(scope=scope).get('host', '')}".encode("latin-1")

        async def relative_redirects(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                message["headers"] = [
                    (name, value[len(site):] or b"/")
                    if name == b"location" and (value == site or value.startswith(site + b"/"))
                    else (name, value)
                    for name, value in message["headers"]]
            await send(message)

        await self.app(scope, receive, relative_redirects)
