"""What’s new on the pages and in /api/whats-new (issue 24), on the seeds and the series of
tests/rising.py, whose 2023 edition brings "quantum widgets"."""

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import Catalog


@pytest.fixture(scope="module")
def client(delta: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(delta.settings), raise_server_exceptions=False) as test_client:
        yield test_client


def test_an_edition_against_its_series_previous_three(client: TestClient):
    body = client.get("/api/whats-new", params={"series": "delta", "year": 2023}).json()
    assert body["editions"] == ["delta-2023"] and body["papers"] == 20
    assert body["before_editions"] == ["delta-2020", "delta-2021", "delta-2022"]
    assert body["before_papers"] == 60
    widgets = next(t for t in body["rising"] if t["term"] == "quantum widgets")
    assert (widgets["papers"], widgets["share"], widgets["before"]) == (12, 0.6, 0)
    assert widgets["score"] >= 2
    assert widgets["trend_url"].endswith("/trends?q=%22quantum+widgets%22")
    assert "kernel machines" not in {t["term"] for t in body["rising"]}
    assert "quantum widgets" in {t["term"] for t in body["first_seen"]}


def test_every_count_is_what_its_search_finds(client: TestClient):
    checked = 0
    for params in ({"series": "delta", "year": 2023}, {"year": 2023}, {"series": "delta"}):
        body = client.get("/api/whats-new", params=params).json()
        for term in body["rising"] + body["first_seen"]:
            query = term["search_url"].split("/search?", 1)[1]
            assert client.get(f"/api/search?{query}").json()["total"] == term["papers"]
            checked += 1
    assert checked >= 6


def test_a_year_ranks_on_the_series_held_before(client: TestClient):
    body = client.get("/api/whats-new", params={"year": 2023}).json()
    assert body["editions"] == ["delta-2023", "omega-2023"] and body["papers"] == 50
    assert body["before_years"] == [2020, 2021, 2022]
    terms = {t["term"] for t in body["rising"]}
    assert "quantum widgets" in terms and not terms & {"omega", "frobnication", "lattices"}
    latest = client.get("/api/whats-new").json()  # the seeds' 2026
    assert latest["years"] == [2026] and latest["rising"] == []  # nothing before them


@pytest.mark.parametrize(("params", "status"), [
    ({"series": "nope"}, 404), ({"year": 1950}, 404), ({"year": "soon"}, 400),
    ({"limit": 0}, 400), ({"limit": 51}, 400)])
def test_what_cannot_be_answered_says_why(client: TestClient, params, status):
    response = client.get("/api/whats-new", params=params)
    assert response.status_code == status
    assert response.json()["error"]


def test_the_edition_page_and_its_twin(client: TestClient):
    page = client.get("/venues/delta-2023").text
    assert "What’s new at Delta 2023" in page
    assert re.search(r'href="/search\?q=%22quantum\+widgets%22&amp;venue=delta-2023">'
                     r"quantum widgets</a></th><td class=\"num\">12 <span", page)
    twin = client.get("/api/venues/delta-2023/papers").json()["whats_new"]
    assert twin == client.get("/api/whats-new", params={
        "series": "delta", "year": 2023, "limit": 12}).json()
    assert "What’s new" not in client.get("/venues/delta-2020").text  # nothing before it


def test_the_series_home_and_trends_pages(client: TestClient):
    series = client.get("/venues/delta").text
    assert "What’s new, edition by edition" in series and ">quantum widgets</a>" in series
    assert "Rising in" not in client.get("/").text  # the latest year (2026) has no before
    trends = client.get("/trends", params={"year": 2023}).text
    assert "What’s new in 2023" in trends and ">quantum widgets</a>" in trends
    at_series = client.get("/trends", params={"year": 2023, "series": "delta"}).text
    assert "What’s new in 2023 at Delta" in at_series
    assert "What’s new in" not in client.get("/trends", params={"q": "kernel"}).text


def test_an_acronym_is_shown_with_its_meaning_and_prose_is_not_shown(client: TestClient):
    body = client.get("/api/whats-new", params={"series": "delta", "year": 2023}).json()
    dm = next(t for t in body["rising"] if t["term"] == "DMs")
    assert dm["meaning"] == "diffusion models" and dm["papers"] == 12
    assert dm["search_url"].endswith("/search?q=dms&venue=delta-2023")
    assert next(t for t in body["rising"] if t["term"] == "quantum widgets")["meaning"] is None
    listed = {t["term"].lower() for t in body["rising"] + body["first_seen"]}
    assert not listed & {"significantly", "demonstrably", "outshines", "xy", "krr"}
    page = client.get("/venues/delta-2023").text
    assert ">DMs (diffusion models)</a>" in page
    assert ">significantly<" not in page and ">xy<" not in page and ">KRR<" not in page


def test_an_edition_is_compared_with_the_three_editions_just_before(multi_client: TestClient):
    body = multi_client.get("/api/whats-new", params={"series": "alpha", "year": 2021}).json()
    assert body["editions"] == ["alpha-2021"]  # its series held ten editions since 2012
    assert body["before_editions"] == ["alpha-2018", "alpha-2019", "alpha-2020"]
    assert body["before_papers"] == 66 + 72 + 78


def test_a_series_without_a_year_shows_what_is_new_at_its_newest_edition(
        client: TestClient, multi_client: TestClient):
    delta = client.get("/api/whats-new", params={"series": "delta"}).json()
    assert delta["editions"] == ["delta-2023"]
    assert "quantum widgets" in {t["term"] for t in delta["rising"]}
    alpha = multi_client.get("/api/whats-new", params={"series": "alpha"}).json()
    assert (alpha["editions"], alpha["before_years"]) == (["alpha-2021"], [2018, 2019, 2020])
    page = client.get("/trends", params={"series": "delta"}).text
    assert "What’s new in 2023 at Delta" in page and ">quantum widgets</a>" in page
