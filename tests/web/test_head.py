"""HEAD on every GET route: the GET's status and headers, no body."""

import re

from fastapi.testclient import TestClient


def sample_path(path: str, paper_id: str) -> str:
    """The route's path with real values for its parameters."""
    slug = ("icml" if path.startswith(("/api/series", "/sitemaps")) else
            "optimization" if "/topics/" in path else
            "nobody" if "/authors/" in path else "icml-2026")
    values = {"slug": slug, "paper_id": paper_id, "fmt": "csv", "name": "icml"}
    if path.startswith("/papers/{paper_id}.{fmt}"):
        values["fmt"] = "bib"
    if path.startswith("/saved.{fmt}"):
        values["fmt"] = "ris"
    return re.sub(r"\{(\w+)\}", lambda m: values[m[1]], path)


def test_every_get_route_answers_head(client: TestClient):
    paper_id = client.get("/api/venues/icml-2026/papers").json()["papers"][0]["id"]
    paths = [path for path, operations in client.app.openapi()["paths"].items()
             if "get" in operations]
    assert len(paths) >= 30
    for path in paths:
        url = sample_path(path, paper_id)
        params = {"ids": paper_id, "q": "diffusion"}
        get = client.get(url, params=params)
        head = client.head(url, params=params)
        assert head.status_code == get.status_code, url
        assert head.content == b"", url
        for name in ("content-type", "etag", "x-frame-options", "content-security-policy"):
            assert head.headers.get(name) == get.headers.get(name), (url, name)
    assert client.head("/static/style.css").status_code == 200
    assert client.head("/no/such/page").status_code == 404
