"""The map of the papers (issue 24, part 2): one place per paper, the same on every page,
its image without JavaScript, its points and boxes as JSON, kept across updates."""

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.main import create_app
from app.map import routes
from app.map.layout import MAP_FILE
from app.map.routes import MapOut
from app.search.index.sync import SyncKind, sync_index
from app.topics import load_taxonomy
from tests.conftest import Catalog, make_catalog
from tests.rising import corpus, more


@pytest.fixture(scope="module")
def client(delta: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(delta.settings), raise_server_exceptions=False) as test_client:
        yield test_client


def places(client: TestClient, **params: object) -> dict[str, tuple[float, float]]:
    body = client.get("/api/map", params=params).json()
    return {p["id"]: (p["x"], p["y"]) for p in body["papers"]}


def test_an_editions_papers_on_the_map(client: TestClient):
    body = client.get("/api/map", params={"venue": "delta-2023"}).json()
    assert body["total"] == len(body["papers"]) == 20
    assert all(0 <= p["x"] <= 1 and 0 <= p["y"] <= 1 and p["year"] == 2023
               for p in body["papers"])
    # A paper's colour is its topic's place in the taxonomy, as the map's image draws it.
    order = {topic.slug: i for i, topic in enumerate(load_taxonomy().topics)}
    assert all(p["colour"] == order[p["topic"]] and p["status"] == "" for p in body["papers"])
    assert body["palette"][0].startswith("#")
    assert len(set(body["palette"])) >= len(order)  # a colour of its own for every topic


def test_a_paper_has_one_place_on_every_page(client: TestClient):
    edition = places(client, venue="delta-2023")
    searched = places(client, q='"quantum widgets"')
    assert len(searched) == 12 and all(edition[pid] == xy for pid, xy in searched.items())
    listed = list(searched)[:3]
    assert places(client, ids=",".join(listed)) == {pid: searched[pid] for pid in listed}


def test_the_total_counts_the_papers_in_question_the_catalog_holds(
        client: TestClient, monkeypatch: pytest.MonkeyPatch):
    """A reading list's IDs the catalog lacks had been counted: three unknown IDs read
    `total: 3` beside no paper; a search's total was the papers placed, at most 20,000."""
    listed = list(places(client, venue="delta-2023"))[:2]
    unknown = ["0000000000000000", "0000000000000001"]
    body = client.get("/api/map", params={"ids": ",".join(listed + unknown)}).json()
    assert body["total"] == len(body["papers"]) == 2
    assert client.get("/api/map", params={"ids": ",".join(unknown)}).json()["total"] == 0
    searched = client.get("/api/search", params={"q": "kernels"}).json()["total"]
    monkeypatch.setattr(routes, "MAX_POINTS", 1)  # a query no other test maps: not kept
    placed = client.get("/api/map", params={"q": "kernels"}).json()
    assert placed["total"] == searched > len(placed["papers"]) == 1


def png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n" and body[12:16] == b"IHDR"
    return struct.unpack(">II", body[16:24])


def test_the_image_without_javascript(client: TestClient):
    for params in ({"venue": "delta-2023"}, {"field": 1}, {"q": "kernel"}):
        response = client.get("/map.png", params=params)
        assert response.status_code == 200 and response.headers["content-type"] == "image/png"
        assert png_size(response.content) == (640, 640)
    page = client.get("/venues/delta-2023").text
    assert '<img src="/map.png?venue=delta-2023"' in page
    assert 'data-points="/api/map?venue=delta-2023"' in page


def test_a_box_lists_its_papers_and_keyphrases(client: TestClient):
    everything = client.get("/api/map/box", params={
        "venue": "delta-2023", "x0": 0, "x1": 1, "y0": 0, "y1": 1}).json()
    assert everything["total"] == 20 and len(everything["papers"]) == 20
    assert everything["terms"] and everything["papers"][0]["url"].startswith("http")
    xy = places(client, venue="delta-2023")
    pid, (x, y) = next(iter(xy.items()))
    one = client.get("/api/map/box", params={"venue": "delta-2023", "x0": x - 1e-4,
                                             "x1": x + 1e-4, "y0": y - 1e-4, "y1": y + 1e-4})
    assert pid in {p["id"] for p in one.json()["papers"]}


@pytest.mark.parametrize(("params", "status"), [
    ({"ids": "nope"}, 400), ({"venue": "delta-2023", "x0": "a", "x1": 1, "y0": 0, "y1": 1}, 400)])
def test_bad_requests_say_why(client: TestClient, params, status):
    path = "/api/map/box" if "x0" in params else "/api/map"
    response = client.get(path, params=params)
    assert response.status_code == status and response.json()["error"]


def test_an_update_keeps_every_place_and_places_the_new(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(corpus(tmp_path / "delta.jsonl"))
    with TestClient(create_app(catalog.settings)) as client:
        before = places(client, venue="delta-2023")
    with catalog.session() as session:
        ingest_paths(session, [more(tmp_path / "more.jsonl", 3)], ON_INGEST)
        assert sync_index(catalog.settings, session).kind is SyncKind.UPDATED
    with TestClient(create_app(catalog.settings)) as client:
        after = places(client, venue="delta-2023")
    assert len(after) == 23 and all(after[pid] == xy for pid, xy in before.items())


def test_before_the_map_is_drawn_pages_say_so(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    (catalog.settings.index_path.resolve() / MAP_FILE).unlink()
    with TestClient(create_app(catalog.settings)) as client:
        assert client.get("/api/map", params={"venue": "icml-2026"}).status_code == 404
        assert client.get("/map.png").status_code == 404
        assert "it is not ready yet" in client.get("/venues/icml-2026").text


def test_an_image_is_drawn_once_per_index(client: TestClient, monkeypatch):
    from app.map import routes as maps  # noqa: PLC0415 - the module whose drawing is counted
    drawn = []
    draw = maps.render
    monkeypatch.setattr(maps, "render", lambda *args: drawn.append(1) or draw(*args))
    first = client.get("/map.png", params={"topic": "learning-theory"}).content
    assert client.get("/map.png", params={"topic": "learning-theory"}).content == first
    assert len(drawn) == 1


def test_points_are_made_once_per_index_as_the_api_declares_them(client: TestClient,
                                                                  monkeypatch):
    """The points of 20,000 papers cost 0.5-0.9 s of CPU at L, made anew for every request."""
    from app.map import routes as maps  # noqa: PLC0415 - the module whose points are counted
    made = []
    choose = maps.chosen_points
    monkeypatch.setattr(maps, "chosen_points", lambda *args: made.append(1) or choose(*args))
    first = client.get("/api/map", params={"topic": "learning-theory"})
    assert client.get("/api/map", params={"topic": "learning-theory"}).content == first.content
    assert len(made) == 1 and first.headers["content-type"] == "application/json"
    declared = MapOut.model_validate_json(first.content)
    assert declared.total == len(declared.papers) > 0 and declared.papers[0].topic


def test_a_paper_removed_since_the_layout_has_no_place(tmp_path: Path):
    """A removed paper keeps its ID in the index until a rebuild, without a place: its point
    was NaN, drawn in the image's corner."""
    catalog = make_catalog(tmp_path)
    catalog.ingest(corpus(tmp_path / "delta.jsonl"), more(tmp_path / "more.jsonl", 3))
    with TestClient(create_app(catalog.settings)) as client:
        removed = places(client, q='"quantum widgets again 2"')
    assert len(removed) == 1
    with catalog.session() as session:
        ingest_paths(session, [more(tmp_path / "more.jsonl", 2)], ON_INGEST)
        assert sync_index(catalog.settings, session).kind is SyncKind.UPDATED
    with TestClient(create_app(catalog.settings)) as client:
        assert places(client, ids=",".join(removed)) == {}
