"""The Host header (issue 43): the catalog answers only for the hosts it is configured for,
names only its public address, and never serves one host's page to another."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import Catalog
from tests.postgres import sqlite_run
from tests.servers import running_server

PUBLIC = "https://papers.example.org"
# One route of each kind: pages (cached and not), their downloads and feeds, the JSON API,
# discovery files, static files, the API explorer, health, a redirect and a missing page.
ROUTES = ["/", "/venues/icml-2026", "/search?q=learning", "/search?q=learning&format=atom",
          "/venues/icml-2026.atom", "/venues/icml-2026.csv", "/api/search?q=learning",
          "/api/venues", "/robots.txt", "/sitemap.xml", "/sitemaps/_site.xml",
          "/opensearch.xml", "/static/style.css", "/docs", "/openapi.json", "/healthz",
          "/saved/?ids=x", "/saved.bib?ids=x", "/nowhere", "/api/nowhere"]
FOREIGN_HOSTS = ["evil.example", "EVIL.example:80", "testserver.evil.example",
                 "evil.example.testserver", "testserver:80@evil.example",
                 "testserver/evil.example", "testserver:evil", "testserver:99999",
                 "[::1].evil.example", "localhost\\@evil.example", ""]


@pytest.fixture(scope="module")
def paper_id(client: TestClient) -> str:
    return client.get("/api/venues/icml-2026/papers").json()["papers"][0]["id"]


def every_route(paper_id: str) -> list[str]:
    return [*ROUTES, f"/papers/{paper_id}", f"/papers/{paper_id}.bib",
            f"/api/papers/{paper_id}"]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_gets_400_on_every_route_and_is_never_echoed(client: TestClient,
                                                                     paper_id: str, host: str):
    for url in every_route(paper_id):
        for method in ("GET", "HEAD", "POST", "OPTIONS"):
            response = client.request(method, url, headers={"host": host},
                                      follow_redirects=False)
            assert response.status_code == 400, (method, url, host)
            assert "evil" not in response.text.lower() and "evil" not in str(
                response.headers).lower(), (method, url, host)
    refused = client.get("/api/venues", headers={"host": "evil.example"}).json()
    assert refused["status"] == 400 and "host" in refused["error"]


@pytest.mark.parametrize(("host", "site"), [
    ("testserver", "testserver"), ("TESTSERVER:8000", "testserver:8000"),
    ("localhost:8000", "localhost:8000"), ("127.0.0.1", "127.0.0.1"),
    ("[::1]:8000", "[::1]:8000"), ("localhost.", "localhost")])
def test_the_allowed_hosts_are_answered_as_their_plain_names(client: TestClient, host: str,
                                                             site: str):
    response = client.get("/robots.txt", headers={"host": host})
    assert response.status_code == 200
    assert response.text.splitlines()[-1] == f"Sitemap: http://{site}/sitemap.xml"


@pytest.fixture(scope="module")
def behind_a_proxy(seeded: Catalog) -> Iterator[TestClient]:
    """The seed catalog with a public URL and one more host the proxy may pass on."""
    settings = replace(seeded.settings, public_url=PUBLIC,
                       allowed_hosts=("testserver", "catalog.internal"))
    with TestClient(create_app(settings)) as client:
        yield client


def test_every_absolute_link_names_the_public_url_whatever_allowed_host_was_asked(
        behind_a_proxy: TestClient, paper_id: str):
    urls = ["/robots.txt", "/sitemap.xml", "/sitemaps/_site.xml", "/opensearch.xml",
            "/search?q=learning&format=atom", "/search.atom?q=learning",
            "/venues/icml-2026.atom", "/venues/icml-2026.bib", f"/papers/{paper_id}",
            f"/papers/{paper_id}.bib", f"/api/papers/{paper_id}", "/api/venues",
            f"/saved?ids={paper_id}", f"/saved.bib?ids={paper_id}", "/api/search?q=learning"]
    for host in ("catalog.internal", "localhost:8000", "papers.example.org"):
        for url in urls:
            response = behind_a_proxy.get(url, headers={"host": host})
            assert response.status_code == 200, (host, url)
            assert f"{PUBLIC}/" in response.text, (host, url)
            assert "catalog.internal" not in response.text, (host, url)
            assert "localhost" not in response.text, (host, url)
        redirect = behind_a_proxy.get("/saved/?ids=x", headers={"host": host},
                                      follow_redirects=False)
        assert redirect.headers["location"].startswith("/saved")
    assert behind_a_proxy.get("/", headers={"host": "evil.example"}).status_code == 400


def test_a_page_is_never_served_to_another_host_than_it_was_rendered_for(
        client: TestClient, paper_id: str):
    url = f"/papers/{paper_id}?for-the-host-test=1"  # a page no other test has cached
    first = client.get(url, headers={"host": "localhost:8000"})
    assert f"http://localhost:8000/papers/{paper_id}" in first.text
    other = client.get(url, headers={"host": "127.0.0.1:8000", "if-none-match": first.headers[
        "etag"]})
    assert other.status_code == 200 and other.headers["etag"] != first.headers["etag"]
    assert f"http://127.0.0.1:8000/papers/{paper_id}" in other.text
    assert "localhost" not in other.text
    shouted = client.get(url, headers={"host": "LOCALHOST:8000"})
    assert shouted.headers["etag"] == first.headers["etag"] and shouted.text == first.text


def raw_request(base: str, head: bytes) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(head)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


@sqlite_run  # the server's check of the Host header, whatever the database: once is enough
def test_a_served_catalog_refuses_foreign_hosts_and_names_its_own_address(fresh: Catalog):
    with running_server(fresh.env()) as base:
        port = base.rsplit(":", 1)[1]
        evil = raw_request(base, b"GET /robots.txt HTTP/1.1\r\nHost: evil.example\r\n"
                                 b"Connection: close\r\n\r\n")
        assert evil.startswith(b"HTTP/1.1 400") and b"evil" not in evil
        twice = raw_request(base, b"GET /robots.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  b"Host: evil.example\r\nConnection: close\r\n\r\n")
        assert twice.startswith(b"HTTP/1.1 400") and b"evil" not in twice
        absolute = raw_request(base, b"GET http://evil.example/robots.txt HTTP/1.1\r\n"
                                     b"Host: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert b"evil" not in absolute
        without = raw_request(base, b"GET /robots.txt HTTP/1.0\r\n\r\n")
        assert without.startswith(b"HTTP/1.1 200")
        assert f"Sitemap: http://127.0.0.1:{port}/sitemap.xml".encode() in without
