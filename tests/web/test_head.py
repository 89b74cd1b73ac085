"""HEAD on every GET route: the GET's status and headers, no body."""

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

from app.main import create_app


def sample_path(path: str, paper_id: str) -> str:
    """The route's path with real values for its parameters."""
    slug = ("icml" if path.startswith(("/api/series", "/sitemaps")) else
            "optimization" if "/topics/" in path else
            "nobody" if "/authors/" in path else "icml-2026")
    values = {"slug": slug, "paper_id": paper_id, "format": "csv", "name": "icml"}
    if path.startswith("/papers/{paper_id}.{format}"):
        values["format"] = "bib"
    if path.startswith("/saved.{format}"):
        values["format"] = "ris"
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


def test_head_hands_the_server_no_body_bytes(seeded):
    """What the app sends for HEAD, at the ASGI level: httpx drops a HEAD response's body and
    uvicorn's h11 refuses to send one, so neither shows a body the app wrongly sends (issue 28,
    mutant 7: 75,515 body bytes on HEAD /venues/icml-2026, under another HTTP server)."""
    app = create_app(seeded.settings)

    async def head(path: str) -> tuple[int, int]:
        sent: list[dict] = []

        requested = asyncio.Event()

        async def receive() -> dict:
            if requested.is_set():  # then the client stays connected until the response ends
                await asyncio.Event().wait()
            requested.set()
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        path, _, query = path.partition("?")
        await app({"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                   "method": "HEAD", "scheme": "http", "path": path, "raw_path": path.encode(),
                   "query_string": query.encode(), "root_path": "",
                   "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 1),
                   "server": ("testserver", 80)}, receive, send)
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        return status, sum(len(m.get("body", b"")) for m in sent
                           if m["type"] == "http.response.body")

    # In a thread of its own: the browser tests' Playwright may hold this thread's loop.
    with ThreadPoolExecutor(1) as thread:
        for path in ("/venues/icml-2026", "/api/venues", "/venues/icml-2026.csv",
                     "/search?q=x"):
            assert thread.submit(asyncio.run, head(path)).result() == (200, 0), path
