"""Every response carries the security headers; error pages and overlong addresses say only
what they must (generated queries: tests/search/test_generated_queries.py)."""

import http.client
import re

import pytest
from fastapi.testclient import TestClient

from app.web.middleware import MAX_ADDRESS_CHARS
from tests.postgres import postgresql_run
from tests.servers import running_server

SECURITY = {"x-content-type-options": "nosniff",
            "referrer-policy": "strict-origin-when-cross-origin"}


@pytest.mark.parametrize("url", ["/", "/venues/icml-2026", "/search?q=x", "/api/venues",
                                 "/nowhere", "/static/style.css", "/venues/icml-2026.csv",
                                 "/search?q=x&year=bad"])
def test_security_headers_on_every_response(client: TestClient, url: str):
    headers = client.get(url).headers
    for name, value in SECURITY.items():
        assert headers[name] == value
    policy = headers["content-security-policy"]
    script_src = re.search(r"script-src ([^;]*)", policy)[1]
    assert script_src == "'self'" and "unsafe-inline" not in script_src
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy


def test_pages_hold_no_inline_script(client: TestClient):
    for url in ["/", "/venues/icml-2026", "/search?q=learning", "/topics", "/help/search"]:
        page = client.get(url).text
        assert not re.search(r"<script(?![^>]*\bsrc=)", page)
        assert not re.search(r"<[a-z][^>]*\son[a-z]+=", page)


def test_error_pages_show_no_trace_or_path(client: TestClient):
    for url in ["/papers/%00", "/venues/" + "x" * 5000, "/search?page=-1", "/api/papers/x",
                "/search?q=a&venue=%00", "/api/authors/%00x", "/topics/x%00"]:
        response = client.get(url)
        assert response.status_code < 500
        assert "Traceback" not in response.text and "/work/" not in response.text
        assert ".py" not in response.text


def test_a_nul_in_a_query_is_dropped_and_in_a_path_is_a_clear_400(client: TestClient):
    plain = client.get("/api/search", params={"q": "graph", "venue": "icml-2026"}).json()
    nul = client.get("/api/search", params={"q": "gr\x00aph", "venue": "icml-2026\x00"})
    assert nul.status_code == 200 and nul.json()["total"] == plain["total"] > 0
    assert client.get("/topics/optimization", params={"venue": "\x00"}).status_code == 200
    page = client.get("/papers/%00")
    assert page.status_code == 400 and "NUL character" in page.text
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    api = client.get("/api/papers/%00")
    assert api.status_code == 400 and api.json()["error"].startswith("The address contains")


def test_a_redirect_within_the_site_is_relative_whatever_the_host(client: TestClient):
    response = client.get("/saved/?ids=x", headers={"host": "localhost:8000"},
                          follow_redirects=False)
    assert 300 <= response.status_code < 400
    assert response.headers["location"].startswith("/saved")


@pytest.mark.parametrize("url", ["/search?q=" + "learning+" * 5_000,
                                 "/api/search?q=" + "a" * 40_000, "/venues/" + "x" * 40_000])
def test_an_overlong_address_is_a_short_414(client: TestClient, url: str):
    response = client.get(url)
    assert response.status_code == 414
    assert "10,000 characters" in response.text and len(response.content) < 20_000


def test_every_api_operation_documents_the_414(client: TestClient):
    """An overlong address is refused before its parameters are read, on every route: the API
    says so (schemathesis found the 414 undocumented on /api/map), with its bound."""
    paths = client.app.openapi()["paths"]
    undocumented = [path for path, operations in paths.items() if path.startswith("/api/")
                    for operation in operations.values() if "414" not in operation["responses"]
                    or f"{MAX_ADDRESS_CHARS:,} characters" not in
                    operation["responses"]["414"]["description"]]
    assert not undocumented


@pytest.mark.parametrize("sentence", ["Überraschend viele Modelle lernen schnell.",
                                      "Πολλά μοντέλα μαθαίνουν γρήγορα."])
def test_a_pasted_abstract_is_not_too_long(client: TestClient, sentence: str):
    # In Greek, 10,000 characters are 55 KB percent-encoded: a 414 while bytes were counted.
    pasted = " ".join([sentence] * 320)[:10_000]
    assert client.get("/search", params={"q": pasted}).status_code == 200


@postgresql_run  # the server's bound on an address, whatever the database: once, in the shorter run
def test_a_served_overlong_address_gets_414_not_a_reset(fresh):
    with running_server(fresh.env()) as base:
        host, port = base.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.request("GET", "/search?q=" + "a" * 300_000)
        response = connection.getresponse()
        assert response.status == 414 and len(response.read()) < 20_000
        connection.close()
