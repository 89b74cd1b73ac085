"""The institutions' and countries' rankings as a researcher reads them: which years a ranking
without years shows, which series its page names, what its change is measured against, and
an edition whose papers name no institution. Each test fails on mutants of
app/people/rankings.py that survived mutmut's catalog set (docs/testing.md)."""

import html
import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import Catalog, make_catalog

# QUOKKA at three years, NUMBAT at seven, its first without any institution named.
PLACES = ["ETH Zurich", "MIT", "Tsinghua University"]
EDITIONS = [("QUOKKA", year) for year in (2022, 2023, 2024)] + [
    ("NUMBAT", year) for year in range(2017, 2024)]


def _rows() -> list[dict]:
    rows = []
    for venue, year in EDITIONS:
        for k in range(3):
            named = [] if (venue, year) == ("NUMBAT", 2017) else PLACES[:k + 1]
            rows.append({"venue": venue, "year": year, "title": f"{venue} {year} paper {k}",
                         "abstract": f"Abstract {k} of {venue} {year}: graph kernels.",
                         "authors": [f"Ada Lovelace{k}"], "affiliations": [""],
                         "institutions": named, "countries": []})
    return rows


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    catalog: Catalog = make_catalog(tmp_path_factory.mktemp("rankings"))
    path = tmp_path_factory.mktemp("rankings-input") / "rankings.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in _rows()))
    catalog.ingest(path)
    with TestClient(create_app(catalog.settings)) as test_client:
        yield test_client


def test_a_ranking_without_years_is_its_series_latest_year(client: TestClient):
    """Not the first year, not an empty window, not every series."""
    asked = client.get("/api/institutions?series=quokka").json()
    assert (asked["first_year"], asked["last_year"], asked["before"]) == (
        2024, 2024, "QUOKKA 2023")
    assert asked == client.get("/api/institutions?series=quokka&from=2024&to=2024").json()
    assert asked["papers"] == 3 and [r["papers"] for r in asked["ranked"]] == [3, 2, 1]
    opened = client.get("/api/institutions?series=numbat&to=2019").json()
    assert (opened["first_year"], opened["last_year"]) == (2017, 2019)  # the series' first


def test_a_ranking_page_names_its_series_and_the_years_it_is_compared_with(
        client: TestClient):
    page = html.unescape(client.get("/institutions?series=numbat&from=2021&to=2023").text)
    assert '<option value="numbat" selected>' in page
    lead = re.search(r'<p class="lead">(.*?)</p>', page, re.S)[1]
    assert lead.startswith("NUMBAT, 2021–2023: 9 papers")
    assert "Change against NUMBAT 2018–2020." in lead  # the three years just before
    # Across series, the change is against years, whatever series held them.
    assert client.get("/api/institutions?from=2023&to=2023").json()["before"] == "2022"


def test_an_edition_whose_papers_name_no_institution_is_ranked_empty(client: TestClient):
    ranked = client.get("/api/institutions?series=numbat&from=2017&to=2017").json()
    assert (ranked["papers"], ranked["known"], ranked["ranked"]) == (3, 0, [])
    assert ranked["before"] is None  # nothing is before the series' first year
    page = client.get("/institutions?series=numbat&from=2017&to=2017")
    assert page.status_code == 200
    assert "No paper of this selection names its institutions." in page.text
