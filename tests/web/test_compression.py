"""Bytes on the wire: pages, JSON and exports gzipped for clients that accept it; static
files under fingerprinted addresses that browsers keep."""

from __future__ import annotations

import hashlib
import re

import pytest
from fastapi.testclient import TestClient

from app.web.assets import STATIC_DIR

GZIP = {"accept-encoding": "gzip"}
PLAIN = {"accept-encoding": "identity"}


def test_pages_are_gzipped_once_with_their_own_etag(client: TestClient):
    plain = client.get("/venues/icml-2026", headers=PLAIN)
    zipped = client.get("/venues/icml-2026", headers=GZIP)
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.text == plain.text
    assert zipped.num_bytes_downloaded < len(plain.content) / 3
    assert zipped.headers["etag"] != plain.headers["etag"]
    assert zipped.headers["vary"] == "Accept-Encoding"
    for response, headers in ((zipped, GZIP), (plain, PLAIN)):
        again = client.get("/venues/icml-2026",
                           headers={**headers, "if-none-match": response.headers["etag"]})
        assert again.status_code == 304
    # An ETag of one encoding does not validate the other.
    crossed = client.get("/venues/icml-2026",
                         headers={**PLAIN, "if-none-match": zipped.headers["etag"]})
    assert crossed.status_code == 200 and crossed.text == plain.text


def test_json_and_streamed_exports_are_gzipped(client: TestClient):
    for path in ("/api/search?q=learning", "/venues/icml-2026.csv", "/search.json?q=learning"):
        plain = client.get(path, headers=PLAIN)
        zipped = client.get(path, headers=GZIP)
        assert zipped.headers["content-encoding"] == "gzip", path
        assert zipped.content == plain.content and len(plain.content) > 1000, path
        assert zipped.num_bytes_downloaded < len(plain.content) / 2, path


def test_small_and_error_responses_are_left_alone(client: TestClient):
    assert "content-encoding" not in client.get("/api/suggest?q=zz", headers=GZIP).headers
    missing = client.get("/venues/nowhere-1999", headers=GZIP)
    assert missing.status_code == 404 and "There is no venue" in missing.text


def test_static_files_have_fingerprinted_addresses_kept_for_a_year(client: TestClient):
    page = client.get("/").text
    for name in ("style.css", "app.js"):
        digest = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:12]
        url = f"/static/{name}?v={digest}"
        assert url in page
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    unversioned = client.get("/static/style.css")
    assert "immutable" not in unversioned.headers.get("cache-control", "")
    assert not re.search(r'href="/static/style\.css"', page)


@pytest.mark.parametrize("url", ["/", "/api/search?q=generalization", "/venues/icml-2026.csv"])
def test_a_coding_the_client_refuses_is_not_sent(client: TestClient, url: str):
    for refused in ("gzip;q=0, identity", "gzip; q=0.0", "identity, gzip;q=0"):
        response = client.get(url, headers={"accept-encoding": refused})
        assert "content-encoding" not in response.headers, (url, refused)
    assert client.get(url, headers={"accept-encoding": "gzip;q=0.5"}).headers.get(
        "content-encoding") == "gzip"


def test_a_method_not_allowed_says_which_are(client: TestClient):
    for url in ("/search", "/api/search"):
        response = client.post(url)
        assert response.status_code == 405 and "GET" in response.headers["allow"]
    # The page is headed by what went wrong: it had read "Bad request"
    assert "<h1>Not a method this page answers</h1>" in client.post("/saved").text
