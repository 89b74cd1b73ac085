"""The page cache driven directly with a counting app behind it: what is rendered once, what
is answered 304, gzipped or passed through, at the size edges."""

from __future__ import annotations

import gzip
import hashlib
from types import SimpleNamespace

import pytest
from sqlmodel import Session

from app.config import Settings
from app.db import bump_catalog_version, get_engine
from app.web import pagecache
from app.web.pagecache import PageCache, cacheable
from bench.load import run_apart


class Counting:
    """Answers every request with `body`, counting renders; records the headers it got."""

    def __init__(self, body: bytes = b"<p>page</p>" * 100, status: int = 200) -> None:
        self.body, self.status, self.renders = body, status, 0
        self.seen_headers: list = []

    async def __call__(self, scope, receive, send) -> None:
        self.renders += 1
        self.seen_headers = scope["headers"]
        assert await receive() == {"type": "http.request"}
        await send({"type": "http.response.start", "status": self.status,
                    "headers": [(b"content-type", b"text/html"), (b"content-length", b"1"),
                                (b"vary", b"Cookie")]})
        half = len(self.body) // 2
        await send({"type": "http.response.body", "body": self.body[:half],
                    "more_body": True})
        await send({"type": "http.response.body", "body": self.body[half:],
                    "more_body": True})
        await send({"type": "http.response.body"})  # the end, its body unsaid


class Lane:
    """The quick lane, answering the catalog's version without a database (PageCache's own
    _version is tested against one below)."""

    def __init__(self) -> None:
        self.version = "7/gen-1"

    async def run(self, work):
        assert work.__func__ is PageCache._version
        return self.version


def searching(problem: str | None = None) -> SimpleNamespace:
    """The search the cache asks whether the sentence encoder's model is refused."""
    return SimpleNamespace(encoder=SimpleNamespace(problem=problem))


def cache_of(app: Counting, lane: Lane | None = None,
             search: SimpleNamespace | None = None) -> PageCache:
    return PageCache(app, SimpleNamespace(), search or searching(), lane or Lane())


def get(cache: PageCache, path: str = "/venues/icml-2026", query: bytes = b"",
        host: bytes = b"cat.test", scheme: str = "http", method: str = "GET",
        **headers: str) -> tuple[int, dict[str, str], bytes]:
    sent: list[dict] = []
    scope = {"type": "http", "method": method, "path": path, "query_string": query,
             "scheme": scheme, "headers": [(b"host", host)] + [
                 (name.replace("_", "-").encode(), value.encode())
                 for name, value in headers.items()]}

    async def receive():
        return {"type": "http.request"}

    async def send(message):
        sent.append(message)

    run_apart(cache(scope, receive, send))
    start, *bodies = sent
    assert start["type"] == "http.response.start"
    assert {m["type"] for m in bodies} == {"http.response.body"}
    names = [k for k, _ in start["headers"]]
    assert len(names) == len(set(names)), start["headers"]  # each header once
    body = b"".join(m.get("body", b"") for m in bodies)
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


def digest(*key: object) -> str:
    return hashlib.sha256(repr(key).encode()).hexdigest()[:24]


def page_etag(version: str) -> str:
    """The ETag of the page `get` asks for, at a catalog version and this release."""
    key = ("cat.test", "http", "/venues/icml-2026", b"", version, "on",
           pagecache.code_identity())
    return f'"{digest(*key)}"'


@pytest.mark.parametrize(("method", "path", "query", "cached"), [
    ("GET", "/", b"", True),
    ("GET", "/venues/icml-2026", b"page=2", True),
    ("GET", "/papers/0123456789abcdef", b"", True),
    ("GET", "/search", b"q=x", True),
    ("GET", "/venues/a.b/c", b"", True),
    ("HEAD", "/venues/icml-2026", b"", False),
    ("POST", "/venues/icml-2026", b"", False),
    ("GET", "/venues/icml-2026.csv", b"", False),
    ("GET", "/venues/icml-2026", b"format=csv", False),
    ("GET", "/venues/icml-2026", b"%66ormat=csv", False),
    ("GET", "/api/venues", b"", False),
    ("GET", "/static/site.css", b"", False),
    ("GET", "/papers", b"", False),
])
def test_which_requests_are_pages(method: str, path: str, query: bytes, cached: bool):
    scope = {"type": "http", "method": method, "path": path, "query_string": query}
    assert cacheable(scope) is cached


def test_websockets_are_not_pages():
    assert not cacheable({"type": "websocket", "path": "/", "query_string": b""})


def test_a_page_is_rendered_once_and_its_etag_is_its_key():
    app = Counting()
    cache = cache_of(app)
    first = get(cache)
    again = get(cache)
    assert app.renders == 1 and first == again
    status, headers, body = first
    assert status == 200 and body == app.body
    assert headers == {"content-type": "text/html", "etag": page_etag("7/gen-1"),
                       "cache-control": "no-cache", "vary": "Accept-Encoding",
                       "content-length": str(len(app.body))}


@pytest.mark.parametrize("change", [
    {"host": b"other.test"}, {"scheme": "https"}, {"path": "/venues/iclr-2026"},
    {"query": b"page=2"}])
def test_every_part_of_the_key_makes_another_page(change: dict):
    app = Counting()
    cache = cache_of(app)
    get(cache)
    get(cache, **change)
    assert app.renders == 2


def test_a_refused_model_makes_another_page_and_a_mended_one_the_page_before():
    """A question's page says search by meaning is off while the model is refused."""
    app, search = Counting(), searching()
    cache = cache_of(app, search=search)
    get(cache)
    search.encoder.problem = "model.safetensors: SHA-256 ..."
    get(cache)
    assert app.renders == 2
    search.encoder.problem = None
    get(cache)
    assert app.renders == 2


def test_a_page_rendered_as_the_model_is_found_refused_is_not_kept():
    """Its key says meaning is on, its page that it is off: kept, it would be served once
    the model is mended."""
    search = searching()

    class Refusing(Counting):
        async def __call__(self, scope, receive, send) -> None:
            search.encoder.problem = "refused"
            await super().__call__(scope, receive, send)

    app = Refusing()
    cache = cache_of(app, search=search)
    get(cache)
    search.encoder.problem = None  # mended: the page must be rendered again
    get(cache)
    assert app.renders == 2


def test_a_new_catalog_version_renders_again():
    app, lane = Counting(), Lane()
    cache = cache_of(app, lane)
    get(cache)
    lane.version = "8/gen-1"
    _, headers, _ = get(cache)
    assert app.renders == 2
    assert headers["etag"] == page_etag("8/gen-1")


def test_the_app_is_asked_without_compression_and_its_length_and_vary_are_replaced():
    app = Counting()
    _, headers, _ = get(cache_of(app), accept_encoding="gzip", accept="text/html")
    assert app.seen_headers == [(b"host", b"cat.test"), (b"accept", b"text/html")]
    assert headers["vary"] == "Accept-Encoding"


def test_gzip_once_asked_with_its_own_etag():
    app = Counting()
    cache = cache_of(app)
    status, headers, body = get(cache, accept_encoding="br, gzip")
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert body == gzip.compress(app.body, compresslevel=6, mtime=0)
    assert headers["content-length"] == str(len(body))
    assert headers["etag"].endswith('-gz"')
    assert get(cache, accept_encoding="gzip")[2] == body and app.renders == 1
    assert get(cache)[2] == app.body


@pytest.mark.parametrize(("size", "gzipped"), [(499, False), (500, True)])
def test_small_pages_are_sent_plain(size: int, gzipped: bool):
    _, headers, body = get(cache_of(Counting(b"x" * size)), accept_encoding="gzip")
    assert ("content-encoding" in headers) is gzipped
    assert (body == b"x" * size) is not gzipped


@pytest.mark.parametrize("compress", [False, True])
def test_a_browser_holding_the_page_gets_a_304_without_a_render(compress: bool):
    app = Counting()
    cache = cache_of(app)
    encoding = {"accept_encoding": "gzip"} if compress else {}
    etag = get(cache, **encoding)[1]["etag"]
    status, headers, body = get(cache, if_none_match=f'W/"x", {etag}', **encoding)
    assert (status, body, app.renders) == (304, b"", 1)
    assert headers == {"etag": etag, "cache-control": "no-cache", "vary": "Accept-Encoding",
                       "content-length": "0"}
    other = '"gz"' if not compress else etag.replace("-gz", "")
    assert get(cache, if_none_match=other, **encoding)[0] == 200


def test_a_304_needs_no_render_even_of_a_page_never_seen():
    app = Counting()
    assert get(cache_of(app), if_none_match=page_etag("7/gen-1"))[0] == 304 and app.renders == 0


def test_errors_pass_through_uncached():
    app = Counting(b"missing", status=404)
    cache = cache_of(app)
    status, headers, body = get(cache)
    assert (status, body) == (404, b"missing") and "etag" not in headers
    get(cache)
    assert app.renders == 2


@pytest.mark.parametrize(("size", "kept"), [(512 * 1024, True), (512 * 1024 + 1, False)])
def test_pages_past_the_size_bound_are_served_but_not_kept(size: int, kept: bool):
    app = Counting(b"x" * size)
    cache = cache_of(app)
    assert get(cache)[2] == app.body
    get(cache)
    assert app.renders == (1 if kept else 2)


def test_the_cache_is_bounded_by_the_bytes_of_its_pages():
    app = Counting(b"x" * (512 * 1024))
    cache = cache_of(app)
    for n in range(33):  # 33 pages of 512 KB: past 16 MB
        get(cache, path=f"/venues/v-{n}")
    get(cache, path="/venues/v-32")
    assert app.renders == 33
    get(cache, path="/venues/v-0")
    assert app.renders == 34


def test_the_version_is_the_catalogs_and_the_index_generations(tmp_path):
    settings = Settings(data_dir=tmp_path, seeds_dir=tmp_path)
    search = SimpleNamespace(index_identity=lambda: "gen-9")
    cache = PageCache(Counting(), settings, search, Lane())
    assert cache._version() == "0/gen-9"
    with Session(get_engine(settings.database_url)) as session:
        bump_catalog_version(session)
        session.commit()
    assert cache._version() == "1/gen-9"


def test_the_cache_holds_its_bounds():
    cache = cache_of(Counting())
    assert cache._pages.max_size == 16 * 1024 * 1024 == pagecache.PAGE_BYTES
    assert cache._pages.max_entries == 512
    smaller = PageCache(Counting(), SimpleNamespace(), searching(), Lane(), size=3)
    assert smaller._pages.max_entries == 3


def test_other_requests_reach_the_app_untouched():
    app = Counting()
    cache = cache_of(app)
    status, headers, body = get(cache, path="/api/venues", accept_encoding="gzip")
    assert (status, body, app.renders) == (200, app.body, 1)
    assert "etag" not in headers and headers["content-length"] == "1"
    get(cache, path="/api/venues")
    assert app.renders == 2
