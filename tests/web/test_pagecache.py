"""Pages are rendered once per catalog version and index generation, never served stale."""

from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import catalog as catalog_module
from app.main import create_app
from app.web import formats
from app.web import pagecache as pagecache_module
from tests.conftest import Catalog, write_list


def test_a_page_is_served_again_from_the_cache_with_an_etag(client: TestClient,
                                                           monkeypatch: pytest.MonkeyPatch):
    # Rendered once: the ETag comes from the cache key, so only the count shows that the
    # second answer and the 304 came from the cache (issue 28, mutant 10).
    rendered = counted_renders(monkeypatch)
    url = "/venues/icml-2026?from-the-etag-test=1"  # a page no other test has cached
    first = client.get(url)
    again = client.get(url)
    assert first.status_code == again.status_code == 200
    assert again.text == first.text and again.headers["etag"] == first.headers["etag"]
    assert again.headers["content-security-policy"] == first.headers["content-security-policy"]
    assert again.headers["content-type"].startswith("text/html")
    revalidated = client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert revalidated.status_code == 304 and revalidated.content == b""
    assert rendered == ["venue.html"]
    other = client.get("/venues/icml-2026", params={"from-the-etag-test": 2})
    assert other.headers["etag"] != first.headers["etag"]


def test_downloads_errors_and_the_api_are_not_cached(client: TestClient):
    for url in ["/venues/icml-2026.csv", "/venues/icml-2026?format=bib", "/api/venues",
                "/venues/nowhere", "/venues/icml-2026?%66ormat=csv", "/search?q=&%66ormat=json",
                "/topics/optimization?f%6Frmat=bib"]:
        response = client.get(url)
        assert "etag" not in response.headers, url
    assert client.get("/venues/icml-2026?%66ormat=csv").headers["content-type"].startswith(
        "text/csv")


def test_an_ingest_changes_the_page_at_once(fresh: Catalog, tmp_path: Path):
    with TestClient(create_app(fresh.settings)) as client:
        before = client.get("/venues/iclr-2026")
        assert "Quokkas" not in before.text
        assert client.get("/venues/iclr-2026").headers["etag"] == before.headers["etag"]
        fresh.ingest(write_list(tmp_path / "more.txt", "ICLR 2026 Papers",
                                "Quokkas cooperate in multi-agent foraging."))
        after = client.get("/venues/iclr-2026", headers={"If-None-Match": before.headers["etag"]})
        assert after.status_code == 200 and "Quokkas" in after.text
        assert after.headers["etag"] != before.headers["etag"]


def counted_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The templates the page routes render from now on, in order (a view's page is
    rendered by formats.render_view)."""
    rendered: list[str] = []
    real = formats.render

    def counting(request, name, status_code=200, **context):  # type: ignore[no-untyped-def]
        rendered.append(name)
        return real(request, name, status_code=status_code, **context)

    monkeypatch.setattr(formats, "render", counting)
    return rendered


def test_two_gets_render_once_and_hosts_never_share_a_page(seeded: Catalog,
                                                           monkeypatch: pytest.MonkeyPatch):
    rendered = counted_renders(monkeypatch)
    settings = replace(seeded.settings, allowed_hosts=("testserver", "mirror.example"))
    with TestClient(create_app(settings)) as client:
        paper = client.get("/api/venues/icml-2026/papers").json()["papers"][0]
        first = client.get(f"/papers/{paper['id']}")
        again = client.get(f"/papers/{paper['id']}")
        assert rendered == ["paper.html"] and again.text == first.text
        mirror = client.get(f"/papers/{paper['id']}", headers={"host": "mirror.example"})
        assert rendered == ["paper.html", "paper.html"]
        assert f"http://mirror.example/papers/{paper['id']}" in mirror.text
        assert "mirror.example" not in first.text
        client.get(f"/papers/{paper['id']}", headers={"host": "mirror.example"})
        assert len(rendered) == 2


def test_security_headers_are_on_every_response_304s_too(client: TestClient):
    page = client.get("/venues/icml-2026")
    revalidated = client.get("/venues/icml-2026", headers={"If-None-Match": page.headers["etag"]})
    assert revalidated.status_code == 304
    paper = client.get("/api/venues/icml-2026/papers").json()["papers"][0]["id"]
    responses = [revalidated, page, client.get("/nowhere"), client.get("/api/nowhere"),
                 client.get("/search", params={"year": "soon"}), client.get("/static/style.css"),
                 client.get("/api/venues"), client.get("/venues/icml-2026.csv"),
                 client.get(f"/papers/{paper}.bib"), client.get("/robots.txt"),
                 client.get("/opensearch.xml"), client.get("/sitemap.xml"),
                 client.head("/venues/icml-2026"), client.get("/healthz")]
    for response in responses:
        assert response.headers["x-frame-options"] == "DENY", response.url
        assert response.headers["x-content-type-options"] == "nosniff", response.url
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_a_failing_dependency_is_a_500_without_a_trace_but_with_the_headers(
        seeded: Catalog, monkeypatch: pytest.MonkeyPatch):
    def broken(*args: object) -> object:
        raise RuntimeError("connection to /srv/secret/catalog.db lost")

    monkeypatch.setattr(catalog_module, "list_venues", broken)
    monkeypatch.setattr(catalog_module, "venues_by_slug", broken)
    with TestClient(create_app(seeded.settings), raise_server_exceptions=False) as client:
        for url in ("/api/venues", "/search?q=diffusion"):
            response = client.get(url)
            assert response.status_code == 500, url
            assert "Something went wrong" in response.text
            for leak in ("secret", "Traceback", "RuntimeError", ".py"):
                assert leak not in response.text, (url, leak)
            assert response.headers["x-frame-options"] == "DENY"
            assert "default-src 'self'" in response.headers["content-security-policy"]
            assert "etag" not in response.headers  # an error page is never cached


def test_a_new_release_changes_every_etag(seeded: Catalog, monkeypatch: pytest.MonkeyPatch):
    """Code that renders pages otherwise (a new release) must not answer 304 to a browser
    holding the older release's page of the same catalog version."""
    url = "/venues/icml-2026?from-the-release-test=1"
    with TestClient(create_app(seeded.settings)) as client:
        before = client.get(url)
    monkeypatch.setattr(pagecache_module, "code_identity", lambda: "the next release")
    with TestClient(create_app(seeded.settings)) as client:
        after = client.get(url, headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200 and after.text == before.text
    assert after.headers["etag"] != before.headers["etag"]
