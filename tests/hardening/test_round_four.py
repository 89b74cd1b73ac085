"""Issue 58's request limits and small lies, each reproduced through the real stack (a SQLite
file, a Whoosh index, the app through httpx or a real server)."""

from __future__ import annotations

import contextlib
import html
import re
import socket
import statistics
import threading
import time
from urllib.parse import quote_plus

import httpx
import pytest
from fastapi.testclient import TestClient

from app.search.searcher import PaperSearch
from tests.conftest import Catalog, served_list
from tests.postgres import sqlite_run
from tests.servers import running_server


@pytest.mark.parametrize("method, url", [("POST", "/search"), ("DELETE", "/api/search"),
                                         ("PUT", "/venues/icml-2026")])
def test_a_405_allows_head_wherever_it_allows_get(client: TestClient, method: str, url: str):
    refused = client.request(method, url)
    assert refused.status_code == 405
    allowed = [m.strip() for m in refused.headers["allow"].split(",")]
    assert "GET" in allowed and "HEAD" in allowed
    assert client.head(url).status_code == 200


def _past_the_last_is_a_404(client: TestClient, lists: list[str]) -> None:
    for url in lists:
        assert client.get(url).status_code == 200, url
        past = client.get(f"{url}{'&' if '?' in url else '?'}page=10000")
        assert past.status_code == 404, url
        assert "Page 10,000 is past the end" in past.text, url


def test_the_404_past_the_last_page_says_how_many_pages_there_are(client: TestClient):
    pages = client.get("/api/search", params={"q": "learning"}).json()["pages"]
    assert pages > 1  # the plural is what is checked
    past = client.get("/api/search", params={"q": "learning", "page": 10000})
    assert past.json()["error"] == (f"Page 10,000 is past the end: this list has {pages} "
                                    "pages.")


def test_a_page_past_the_last_is_a_404_for_every_list_that_pages(client: TestClient,
                                                                  multi_client: TestClient):
    topic = client.get("/api/venues/icml-2026/papers").json()["papers"][0]["topic"]
    _past_the_last_is_a_404(client, [
        "/search?q=learning", "/api/search?q=learning", "/venues/icml-2026",
        "/api/venues/icml-2026/papers", f"/topics/{topic}", f"/api/topics/{topic}/papers"])
    _past_the_last_is_a_404(multi_client, ["/authors/ada-lovelace", "/api/authors/ada-lovelace",
                                           "/institutions/mit", "/countries/china"])
    nothing = {"q": "zqxjvwkk"}
    assert client.get("/search", params=nothing).status_code == 200  # empty: one page
    assert client.get("/api/search", params=nothing).json()["pages"] == 1
    assert client.get("/search", params={**nothing, "page": 2}).status_code == 404


@pytest.mark.parametrize("url, status", [
    ("/search.{fmt}?q=learning&sort=nonsense", 400),  # a bad request
    ("/search?q=learning&sort=nonsense&format={fmt}", 400),
    ("/venues/nope-1999.{fmt}", 404),
    ("/topics/nope.{fmt}", 404),
    ("/authors/nobody-at-all.{fmt}", 404),
    ("/saved.{fmt}?ids=not-an-id", 400),
])
@pytest.mark.parametrize("fmt", ["json", "csv", "bib", "ris", "atom"])
def test_downloads_answer_errors_in_their_own_format(client: TestClient, url: str, status: int,
                                                     fmt: str):
    answered = client.get(url.format(fmt=fmt))
    assert answered.status_code == status
    _assert_error_in(answered, fmt)


@pytest.mark.parametrize("fmt", ["json", "csv", "bib"])
def test_a_download_that_fails_on_our_side_says_so_in_its_own_format(
        client: TestClient, monkeypatch: pytest.MonkeyPatch, fmt: str):
    search: PaperSearch = client.app.state.search  # type: ignore[attr-defined]

    def broken(*_args: object, **_kwargs: object) -> list[str]:
        raise RuntimeError("a damaged index")

    monkeypatch.setattr(search, "ranked_ids", broken)
    answered = client.get(f"/search.{fmt}", params={"q": "learning"})
    assert answered.status_code == 500
    _assert_error_in(answered, fmt)
    assert "damaged" not in answered.text  # the log has it, not the reader


def _assert_error_in(answered: object, fmt: str) -> None:
    type_ = answered.headers["content-type"]  # type: ignore[attr-defined]
    assert "<html" not in answered.text.lower()  # type: ignore[attr-defined]
    if fmt == "json":
        assert type_ == "application/json"
        assert answered.json()["status"] == answered.status_code  # type: ignore[attr-defined]
    else:
        assert type_.startswith("text/plain")


def test_a_long_query_is_carried_once_and_its_filters_still_work(client: TestClient):
    abstracts = client.get("/api/venues/icml-2026/papers").json()["papers"]
    pasted = " ".join(paper["abstract"] for paper in abstracts)[:10_000]
    page = client.get("/search", params={"q": pasted})
    assert page.status_code == 200
    assert len(page.content) <= 300_000
    carried = quote_plus(pasted[:2_000])
    assert page.text.count(carried) <= 6  # the form, the feed, the map; not each link
    # Each filter, sort, page and download is a button of the one form that holds the query.
    form = re.search(r'<form id="list-state" action="/search" method="get">(.*?)</form>',
                     page.text, re.S)
    assert form is not None
    state = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">',
                            form.group(1)))
    assert html.unescape(state["q"]) == pasted
    series = re.search(r'<button form="list-state" class="link-button" name="series" '
                       r'value="([^"]+)">', page.text)
    assert series is not None
    chosen = client.get("/search", params={"q": pasted, "series": series.group(1)})
    assert chosen.status_code == 200
    assert "Remove filter series:" in chosen.text
    csv = re.search(r'formaction="(/search\.csv)"', page.text)
    assert csv is not None
    assert client.get(csv.group(1), params={"q": pasted}).status_code == 200
    ordinary = client.get("/search", params={"q": "learning"}).text
    assert 'id="list-state"' not in ordinary and 'href="?q=learning&amp;series=' in ordinary


def test_completions_are_words_of_the_abstracts_never_pieces_of_their_links(
        tmp_path_factory: pytest.TempPathFactory):
    abstracts = [
        "Pangolinate networks scale. Code: https: //github.com/zorblax/quuxnet and a demo at "
        "http : //quuxdemo.example/run.",
        "Pangolinate sampling is fast. We open source this https URL, and the videos at "
        "https: / / youtu.be/Quuxvid and https:llgithub.comlQuuxlab/thing.",
    ]
    with served_list(tmp_path_factory, "ZORB 2026 Papers", *abstracts) as (_, client):
        def offered(typed: str) -> list[str]:
            return client.get("/api/suggest", params={"q": typed}).json()["suggestions"]

        assert "pangolinate" in offered("pangol")  # the abstracts' own words are offered
        for typed in ("htt", "quux", "youtu", "llgit", "comlq"):
            assert offered(typed) == [], typed


def _head(lines: int, path: str = "/healthz") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode() + b"X: y\r\n" * lines
            + b"\r\n")


def _ask(base: str, head: bytes) -> tuple[bytes, float]:
    """The status line a server answers a raw request head with, and how long it took; the
    head is sent while the answer is read, as a client that keeps sending would."""
    host, port = base.removeprefix("http://").split(":")
    started = time.perf_counter()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        def send() -> None:
            with contextlib.suppress(OSError):  # refused before the end: the rest is dropped
                sock.sendall(head)

        sender = threading.Thread(target=send)
        sender.start()
        answer = sock.makefile("rb").readline()
        elapsed = time.perf_counter() - started
        sender.join(timeout=10)
    return answer, elapsed


@sqlite_run  # the server's bound on a head, whatever the database: once is enough
def test_a_head_of_too_many_header_lines_is_a_431_at_once_and_stalls_no_search(fresh: Catalog):
    with running_server(fresh.env(), 60, "--workers", "2") as base:
        assert _ask(base, _head(99))[0].startswith(b"HTTP/1.1 200")  # with Host: 100 lines
        assert _ask(base, _head(100))[0].startswith(b"HTTP/1.1 431")
        answer, elapsed = _ask(base, _head(150_000))
        assert answer.startswith(b"HTTP/1.1 431") and elapsed < 1
        wide = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"y" * 70_000 + b"\r\n\r\n"
        assert _ask(base, wide)[0].startswith(b"HTTP/1.1 431")
        # The long address has its own allowance: answered by the app, not refused as a head.
        assert _ask(base, _head(20, "/search?q=" + "a" * 30_000))[0].startswith(b"HTTP/1.1 200")
        assert _ask(base, _head(20, "/search?q=" + "a" * 40_000))[0].startswith(b"HTTP/1.1 414")

        stop = threading.Event()

        def hostile() -> None:
            while not stop.is_set():
                _ask(base, _head(150_000))

        clients = [threading.Thread(target=hostile) for _ in range(4)]
        for client in clients:
            client.start()
        try:
            took = []
            with httpx.Client(base_url=base, timeout=30) as searcher:
                for word in ("learning", "diffusion", "graph", "policy", "kernel", "robot",
                             "language", "vision", "bandit", "proof", "memory"):
                    started = time.perf_counter()
                    assert searcher.get("/search", params={"q": word}).status_code == 200
                    took.append(time.perf_counter() - started)
        finally:
            stop.set()
            for client in clients:
                client.join()
        assert statistics.median(took) <= 0.3, took
