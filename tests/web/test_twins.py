"""Every page has a JSON twin that carries what the page shows (issue 25: one view per page,
rendered by the HTML route and returned by the JSON one)."""

import html
import re

from fastapi.testclient import TestClient

from app.main import RESOURCES

# Each page route (by name) and its twin: a page added without one fails here.
TWINS = {
    "home": "/api/series", "venues": "/api/venues", "venue": "/api/venues/{slug}/papers",
    "author": "/api/authors/{slug}", "authors": "/api/authors",
    "institution": "/api/institutions/{slug}", "institutions": "/api/institutions",
    "country": "/api/countries/{slug}", "countries": "/api/countries",
    "topics": "/api/topics", "topic": "/api/topics/{slug}/papers",
    "paper": "/api/papers/{paper_id}", "search": "/api/search", "trends": "/api/trends",
    "saved_page": "/api/recommendations",
    "related_page": "/api/papers/{paper_id}/related",
}
WITHOUT_TWIN = {"search_help"}  # a page of prose


def test_every_page_route_has_a_json_twin(multi_client: TestClient):
    api_paths = set(multi_client.app.openapi()["paths"])
    checked = set()
    for route in [route for resource in RESOURCES for route in resource.router.routes]:
        page = route.endpoint.__name__  # a page's downloads (/venues/x.csv) are its route's
        if page in WITHOUT_TWIN:
            continue
        assert page in TWINS, f"{route.path} has no JSON twin"
        assert TWINS[page] in api_paths, TWINS[page]
        checked.add(page)
    assert checked == set(TWINS)


def test_an_editions_twin_carries_its_topics_keyphrases_code_and_neighbours(
        multi_client: TestClient):
    page = html.unescape(multi_client.get("/venues/alpha-2016").text)
    twin = multi_client.get("/api/venues/alpha-2016/papers").json()
    assert twin["previous"]["slug"] == "alpha-2015" and twin["next"]["slug"] == "alpha-2017"
    for neighbour in (twin["previous"], twin["next"]):
        assert f'href="/venues/{neighbour["slug"]}"' in page
    assert f"{twin['with_code']} with code" in page
    assert twin["keyphrases"] and all(k["phrase"] in page for k in twin["keyphrases"])
    options = dict(re.findall(r'<option value="([a-z-]+)"[^>]*>[^<]*\((\d+)\)</option>', page))
    assert {slug: int(n) for slug, n in options.items()} == twin["topics"]
    # The same whatever page or topic is listed: they describe the whole edition.
    topic = next(iter(twin["topics"]))
    narrowed = multi_client.get(f"/api/venues/alpha-2016/papers?topic={topic}").json()
    assert narrowed["topics"] == twin["topics"] and narrowed["total"] == twin["topics"][topic]


def test_the_topics_twin_is_the_pages_matrix_over_the_same_years(multi_client: TestClient):
    everything = multi_client.get("/api/topics").json()
    ranged = multi_client.get("/api/topics?from=2018&to=2016").json()  # reversed: read right
    assert (ranged["first_year"], ranged["last_year"]) == (2016, 2018)
    assert sum(t["paper_count"] for t in ranged["topics"]) < sum(
        t["paper_count"] for t in everything["topics"])
    for topic in ranged["topics"]:
        assert topic["paper_count"] == sum(topic["papers_per_series"].values()) == sum(
            topic["papers_per_venue"].values())
        assert all(2016 <= int(slug.rsplit("-", 1)[1]) <= 2018
                   for slug in topic["papers_per_venue"])
    page = html.unescape(multi_client.get("/topics?from=2016&to=2018").text)
    shown = re.findall(r'<th scope="col" class="vertical"><span>(?:<a [^>]*>)?([^<]+)<', page)
    assert shown == [column["name"] for column in ranged["series"]]
    rows = re.findall(r'<th scope="row"><a href="/topics/([a-z-]+)', page)
    assert rows == [t["slug"] for t in ranged["topics"]][:len(rows)]


def test_the_series_and_trends_twins_compute_no_whats_new(multi_client: TestClient,
                                                          monkeypatch):
    """They answer what their pages show but what's new, and so do not compute it."""
    import app.web.trends
    import app.web.venues

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("what's new computed for a twin that does not return it")

    series = multi_client.get("/api/series").json()["series"][0]["slug"]
    monkeypatch.setattr(app.web.venues, "whats_new", refused)
    monkeypatch.setattr(app.web.trends, "whats_new", refused)
    assert multi_client.get(f"/api/series/{series}").status_code == 200
    assert multi_client.get("/api/trends").status_code == 200
    assert multi_client.get("/api/trends", params={"q": "learning"}).status_code == 200
