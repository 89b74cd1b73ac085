"""The ASGI middlewares driven directly, message by message: what the app behind them sees
and what the client is sent, at their exact edges."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.web import middleware
from app.web.middleware import (
    AllowedHosts,
    DropNul,
    HeadAsGet,
    LongAddresses,
    PublicAddress,
    RefusedEncodings,
    SecurityHeaders,
    accepted_encodings,
)
from bench.load import run_apart


class Inner:
    """An app that records the scope it got and answers with the given start and bodies."""

    def __init__(self, status: int = 200, headers: list | None = None,
                 bodies: tuple[bytes, ...] = (b"hello",)) -> None:
        self.status, self.headers, self.bodies = status, headers or [], bodies
        self.scope: dict[str, Any] | None = None

    async def __call__(self, scope, receive, send) -> None:
        self.scope = scope
        self.received = await receive()
        if scope["type"] != "http":
            await send({"type": "lifespan.startup.complete"})
            return
        await send({"type": "http.response.start", "status": self.status,
                    "headers": list(self.headers)})
        for body in self.bodies[:-1]:
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": self.bodies[-1]})  # more_body unsaid


RECEIVED = {"type": "http.request", "body": b"", "more_body": False}


def http_scope(path: str = "/venues", query: bytes = b"", method: str = "GET",
               headers: list | None = None, raw_path: bytes | None = None) -> dict:
    return {"type": "http", "method": method, "path": path, "query_string": query,
            "raw_path": raw_path if raw_path is not None else path.encode(),
            "headers": headers if headers is not None else [(b"host", b"cat.test")],
            "scheme": "http", "server": ("cat.test", 80), "root_path": "",
            "http_version": "1.1", "app": None}


def run(app, scope: dict) -> list[dict]:
    sent: list[dict] = []

    async def receive() -> dict:
        return RECEIVED

    async def send(message: dict) -> None:
        sent.append(message)

    run_apart(app(scope, receive, send))
    return sent


def headers_of(sent: list[dict]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in sent[0]["headers"]}


def body_of(sent: list[dict]) -> bytes:
    return b"".join(m.get("body", b"") for m in sent[1:])


def test_security_headers_are_added_but_never_replace_the_apps_own():
    sent = run(SecurityHeaders(Inner(headers=[(b"x-frame-options", b"SAMEORIGIN")])),
               http_scope())
    headers = headers_of(sent)
    assert headers["x-frame-options"] == "SAMEORIGIN"
    assert headers["content-security-policy"] == middleware.CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert "script-src 'self';" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert body_of(sent) == b"hello"
    assert headers_of(run(SecurityHeaders(Inner()), http_scope()))["x-frame-options"] == "DENY"


@pytest.mark.parametrize("wrapper", [SecurityHeaders, HeadAsGet, PublicAddress,
                                     lambda inner: AllowedHosts(inner, HOSTS)])
def test_lifespan_passes_through_untouched(wrapper):
    inner = Inner()
    scope = {"type": "lifespan", "method": "HEAD"}
    assert run(wrapper(inner), scope) == [{"type": "lifespan.startup.complete"}]
    assert inner.scope is scope and inner.received is RECEIVED


HOSTS = frozenset({"cat.test", "localhost", "::1", "10.0.0.5"})


@pytest.mark.parametrize(("named", "passed"), [
    ([b"cat.test"], b"cat.test"), ([b"Cat.Test.:8080"], b"cat.test:8080"),
    ([b"[::1]"], b"[::1]"), ([b"10.0.0.5:65535"], b"10.0.0.5:65535"),
    ([b"localhost:65536"], None), ([b"localhost:"], None), ([b"localhost:8o"], None),
    ([b"cat.test", b"cat.test"], None), ([b"evil.test"], None), ([b"cat.test.evil"], None),
    ([b"cat.test@evil"], None), ([b"cat.test:80@evil"], None), ([b"cat.test/x"], None),
    ([b"cat.test "], None), ([b""], None), ([b"::1"], None), ([b"c\xe0t.test"], None),
])
def test_only_allowed_hosts_pass_and_in_their_plain_form(named: list[bytes], passed):
    inner = Inner()
    sent = run(AllowedHosts(inner, HOSTS),
               http_scope(headers=[(b"accept", b"*/*"), *((b"host", n) for n in named)]))
    if passed is None:
        assert inner.scope is None and sent[0]["status"] == 400
        assert all(n not in body_of(sent) for n in named if n)
    else:
        assert inner.scope["headers"] == [(b"accept", b"*/*"), (b"host", passed)]


def test_a_request_without_a_host_passes_as_it_came():
    inner = Inner()
    scope = http_scope(headers=[])
    run(AllowedHosts(inner, HOSTS), scope)
    assert inner.scope is scope and inner.received is RECEIVED


def test_a_nul_in_the_path_is_a_400_and_in_the_query_is_dropped():
    inner = Inner()
    sent = run(DropNul(inner), http_scope("/venues/a\x00b"))
    assert inner.scope is None and sent[0]["status"] == 400
    assert b">The address contains a NUL character.<" in body_of(sent)
    api = run(DropNul(inner), http_scope("/api/venues/a\x00"))
    assert json.loads(body_of(api)) == {"error": "The address contains a NUL character.",
                                        "status": 400}
    run(DropNul(inner), http_scope(query=b"q=a%00b%00&x=%0011"))
    assert inner.scope["query_string"] == b"q=ab&x=11" and inner.received is RECEIVED
    websocket = {"type": "websocket", "path": "/a\x00", "query_string": b"%00"}
    run(DropNul(inner), websocket)
    assert inner.scope is websocket and websocket["query_string"] == b"%00"


def test_the_longest_address_passes_and_one_character_more_is_a_414():
    limit = middleware.MAX_ADDRESS_CHARS
    assert limit == 32 * 1024
    inner = Inner()
    path = "/search"
    at_limit = http_scope(path, query=b"q=" + b"a" * (limit - len(path) - 2))
    assert run(LongAddresses(inner), at_limit)[0]["status"] == 200
    inner.scope = None
    over = http_scope(path, query=b"q=" + b"a" * (limit - len(path) - 1))
    sent = run(LongAddresses(inner), over)
    assert inner.scope is None and sent[0]["status"] == 414
    assert b"The address is longer than 32,768 characters." in body_of(sent)
    assert b"<h1>Address too long</h1>" in body_of(sent)  # it had read "Bad request"
    api = run(LongAddresses(inner), http_scope("/api/search", query=b"q=" + b"a" * limit))
    assert json.loads(body_of(api)) == {"status": 414, "error": (
        "The address is longer than 32,768 characters. To find papers like a long text, paste "
        "a shorter part of it (at most 10,000 characters).")}
    assert inner.received is RECEIVED


@pytest.mark.parametrize("character", ["é", "中", "𝔼"])
def test_an_address_is_measured_in_characters_whatever_their_script(character: str):
    """Percent-encoded, a character is 3 to 12 bytes: the limit counts it once, as a
    parameter's maxLength does, so 10,000 characters of Chinese are not too long."""
    encoded = "".join(f"%{byte:02X}" for byte in character.encode()).encode()
    path = "/api/search"
    fits = len(path) + 2 + 10_000
    assert middleware.address_length(http_scope(path, query=b"q=" + encoded * 10_000)) == fits
    inner = Inner()
    room = middleware.MAX_ADDRESS_CHARS - len(path) - 2
    assert run(LongAddresses(inner), http_scope(path, query=b"q=" + encoded * room)
               )[0]["status"] == 200
    inner.scope = None
    sent = run(LongAddresses(inner), http_scope(path, query=b"q=" + encoded * (room + 1)))
    assert inner.scope is None and sent[0]["status"] == 414


def test_an_address_of_more_bytes_than_any_characters_need_is_not_decoded():
    over = b"%" * (middleware.MAX_ADDRESS_CHARS * middleware.MAX_CHAR_BYTES + 1)
    assert middleware.address_length(http_scope("/", query=over)) == len(over) + 1
    invalid = b"%FF" * 20_000  # no UTF-8: each byte counts
    assert middleware.address_length(http_scope("/", query=invalid)) == 20_001


def test_an_address_without_raw_path_is_measured_by_its_query():
    scope = http_scope(query=b"a" * middleware.MAX_ADDRESS_CHARS)
    scope["raw_path"] = None
    assert run(LongAddresses(Inner()), scope)[0]["status"] == 200


def test_head_is_answered_as_get_without_body_bytes():
    inner = Inner(headers=[(b"content-length", b"10")], bodies=(b"hello", b"world"))
    sent = run(HeadAsGet(inner), http_scope(method="HEAD"))
    assert inner.scope["method"] == "GET"
    assert sent == [{"type": "http.response.start", "status": 200,
                     "headers": [(b"content-length", b"10")]},
                    {"type": "http.response.body", "body": b"", "more_body": False}]
    assert inner.received is RECEIVED
    sent = run(HeadAsGet(inner), http_scope(method="GET"))
    assert body_of(sent) == b"helloworld" and len(sent) == 3


@pytest.mark.parametrize(("header", "kept"), [
    ("gzip", "gzip"),
    ("gzip, deflate, br", "gzip, deflate, br"),
    ("gzip;q=0, br", "br"),
    ("gzip; Q=0.0 ,br;q=0.5", "br"),
    ("gzip;q=0.001", "gzip"),
    ("gzip;q=bad", ""),
    ("gzip;q=0=1", ""),
    ("gzip;level=0", "gzip"),
    (" , gzip ,", "gzip"),
    ("", ""),
])
def test_accepted_encodings(header: str, kept: str):
    assert accepted_encodings(header) == kept


def test_refused_codings_leave_the_accept_encoding_header_only():
    inner = Inner()
    headers = [(b"accept-encoding", b"gzip;q=0, br"), (b"x-other", b"gzip;q=0")]
    run(RefusedEncodings(inner), http_scope(headers=headers))
    assert inner.scope["headers"] == [(b"accept-encoding", b"br"), (b"x-other", b"gzip;q=0")]
    assert inner.received is RECEIVED


def location_after(public_url: str, location: bytes, status: int = 307,
                   host: bytes = b"cat.test") -> bytes:
    inner = Inner(status=status, headers=[(b"location", location), (b"x-keep", location)])
    sent = run(PublicAddress(inner, public_url), http_scope(headers=[(b"host", host)]))
    assert headers_of(sent)["x-keep"] == location.decode()
    return headers_of(sent)["location"].encode()


@pytest.mark.parametrize(("public_url", "location", "status", "relative"), [
    ("", b"http://cat.test/saved?ids=x", 307, b"/saved?ids=x"),
    ("", b"http://cat.test", 301, b"/"),
    ("", b"http://cat.test.evil/x", 302, b"http://cat.test.evil/x"),
    ("", b"http://cat.test/x", 400, b"http://cat.test/x"),
    ("", b"http://cat.test/x", 299, b"http://cat.test/x"),
    ("", b"http://cat.test/x", 399, b"/x"),
    ("", b"http://cat.test/x", 300, b"/x"),
    ("https://papers.example", b"https://papers.example/x", 303, b"/x"),
    ("https://papers.example", b"http://cat.test/x", 303, b"http://cat.test/x"),
])
def test_redirects_within_the_site_are_relative(public_url, location, status, relative):
    assert location_after(public_url, location, status) == relative


@pytest.mark.parametrize(("public_url", "scheme", "server", "host"), [
    ("https://papers.example", "https", ("papers.example", 443), b"papers.example"),
    ("http://papers.example", "http", ("papers.example", 80), b"papers.example"),
    ("https://papers.example:8443", "https", ("papers.example", 8443),
     b"papers.example:8443"),
])
def test_a_public_url_is_the_address_every_request_is_taken_at(public_url, scheme, server,
                                                                host):
    inner = Inner()
    run(PublicAddress(inner, public_url),
        http_scope(headers=[(b"host", b"evil.example"), (b"accept", b"*/*")]))
    assert (inner.scope["scheme"], inner.scope["server"]) == (scheme, server)
    assert inner.scope["headers"] == [(b"accept", b"*/*"), (b"host", host)]


def test_without_a_public_url_the_request_is_untouched():
    inner = Inner()
    scope = http_scope(headers=[(b"host", b"evil.example")])
    run(PublicAddress(inner), scope)
    assert inner.scope is scope and inner.received is RECEIVED


def test_a_request_without_a_host_header_redirects_within_its_scheme_only():
    inner = Inner(status=302, headers=[(b"location", b"http:///x")])
    sent = run(PublicAddress(inner), http_scope(headers=[]))
    assert headers_of(sent)["location"] == "/x"
