"""Pages are rendered once per catalog version and index generation, never served stale."""

from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import Catalog, write_list


def test_a_page_is_served_again_from_the_cache_with_an_etag(client: TestClient):
    first = client.get("/venues/icml-2026")
    again = client.get("/venues/icml-2026")
    assert first.status_code == again.status_code == 200
    assert again.text == first.text and again.headers["etag"] == first.headers["etag"]
    assert again.headers["content-security-policy"] == first.headers["content-security-policy"]
    assert again.headers["content-type"].startswith("text/html")
    revalidated = client.get("/venues/icml-2026", headers={"If-None-Match": first.headers["etag"]})
    assert revalidated.status_code == 304 and revalidated.content == b""
    other = client.get("/venues/icml-2026", params={"page": 2})
    assert other.headers["etag"] != first.headers["etag"]


def test_downloads_errors_and_the_api_are_not_cached(client: TestClient):
    for url in ["/venues/icml-2026.csv", "/venues/icml-2026?format=bib", "/api/venues",
                "/venues/nowhere"]:
        assert "etag" not in client.get(url).headers


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
