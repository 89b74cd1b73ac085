"""Every facet of app/facets.py reaches every place a facet lives (issue 25: one facet table):
the index, the API's parameters, the page's links and sidebar, and the query language."""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.facets import EDITION, FACETS, Facet
from app.main import create_app
from app.models import Edition, Paper
from app.search.index.sync import build_schema
from tests.conftest import make_catalog


@pytest.fixture(scope="module")
def values(multiseries) -> dict[str, Counter[object]]:
    """Each facet's values over the catalog, counted from the database."""
    with multiseries.session() as session:
        rows = list(session.exec(select(Paper, Edition)
                                 .join(Edition, Edition.slug == Paper.edition_slug)))
    return {facet.name: Counter(value for paper, venue in rows
                                for value in _values(facet, facet.value(paper, venue)))
            for facet in FACETS}


def _values(facet: Facet, value: object) -> list[object]:
    """A paper's values of the facet: several for institutions and countries."""
    return str(value).split() if facet.kind.several else [value]


def _common(values: dict[str, Counter[object]], facet: Facet) -> tuple[object, int]:
    return next((value, n) for value, n in values[facet.name].most_common() if value != "")


def test_every_facet_is_an_api_parameter_as_the_table_describes_it(multi_client: TestClient):
    parameters = {p["name"]: p for p in
                  multi_client.get("/openapi.json").json()["paths"]["/api/search"]["get"]
                  ["parameters"]}
    for facet in FACETS:
        assert parameters[facet.name]["description"] == facet.description


def test_every_facet_is_an_index_column(multi_client: TestClient):
    schema = build_schema()
    assert all(schema[facet.name].column_type is not None for facet in FACETS)


@pytest.mark.parametrize("facet", FACETS, ids=lambda f: f.name)
def test_every_facet_filters_and_counts_what_the_database_holds(
        multi_client: TestClient, values, facet: Facet):
    value, papers = _common(values, facet)
    body = multi_client.get("/api/search?" + urlencode({"q": "", facet.name: value})).json()
    assert body["total"] == papers
    counted = {str(v["value"]): v["count"] for v in body["facets"].get(facet.name, [])}
    # A facet is counted without its own filter: the sidebar offers the other values too.
    assert counted[str(value)] == papers
    assert counted == {str(v): n for v, n in values[facet.name].items() if v != ""}


@pytest.mark.parametrize("facet", FACETS, ids=lambda f: f.name)
def test_every_facet_is_an_inline_filter(multi_client: TestClient, values, facet: Facet):
    value, papers = _common(values, facet)
    # An edition is named by its words inline ("venue:alpha 2016" is every ALPHA edition's
    # word "alpha" and 2016's), so its slug is what `venue:` matches exactly.
    written = str(value)
    body = multi_client.get("/api/search?" + urlencode(
        {"q": f'{facet.name}:"{written}"' if " " in written else f"{facet.name}:{written}"}
    )).json()
    assert "not a valid filter" not in (body.get("message") or "")
    if facet.kind is not EDITION:
        assert body["total"] == papers


@pytest.mark.parametrize("facet", [f for f in FACETS if f.in_sidebar], ids=lambda f: f.name)
def test_every_sidebar_facet_has_its_heading_and_a_chip_once_chosen(
        multi_client: TestClient, values, facet: Facet):
    value, _ = _common(values, facet)
    chosen = {facet.name: value, **{name: values[name].most_common(1)[0][0]
                                    for name in facet.shown_with if name != facet.name}}
    page = multi_client.get("/search?" + urlencode({"q": "", **chosen})).text
    assert f">{facet.title}<" in page
    assert 'class="chip' in page and f"{facet.name}=" in page


def test_the_json_names_each_facet_value_as_the_sidebar_does(multi_client: TestClient):
    body = multi_client.get("/api/search", params={"q": "", "series": "alpha"}).json()
    page = multi_client.get("/search", params={"q": "", "series": "alpha"}).text
    shown = [facet for facet in FACETS if facet.in_sidebar and body["facets"].get(facet.name)]
    assert {"series", "venue", "topic", "by", "institution", "country"} <= {
        facet.name for facet in shown}
    for facet in shown:
        for value in body["facets"][facet.name]:
            assert f">{html.escape(value['label'])}<" in page, (facet.name, value)
    authors = body["facets"]["by"]  # names, as their pages write them, not slugs
    assert all(a["label"] != a["value"] and " " in a["label"] for a in authors)


def test_every_facet_the_table_names_shows_names_not_slugs(multi_client: TestClient):
    body = multi_client.get("/api/search", params={"q": "", "series": "alpha"}).json()
    named = [facet for facet in FACETS if facet.names is not None]
    assert {facet.name for facet in named} == {
        "series", "venue", "topic", "by", "institution", "country"}
    for facet in named:  # some value reads otherwise than its slug would
        assert any(value["label"] != facet.label(value["value"], {})
                   for value in body["facets"][facet.name]), facet.name


# Facets of several values a paper (authors: 124,000 values at L) list the 15 most held.
CAPPED = [facet for facet in FACETS if facet.listed is not None]
CAP = 15
MANY = 20  # values of each capped facet, value k held by k papers: more than the cap


@pytest.fixture(scope="module")
def capped_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The seeds and MANY papers on quokkas, the k-th holding the k-th to last of MANY
    authors, institutions and countries."""
    catalog = make_catalog(tmp_path_factory.mktemp("capped"))
    rows = []
    for k in range(1, MANY + 1):
        held = range(k, MANY + 1)
        rows.append({"venue": "Capped", "year": 2025, "title": f"Quokka census {k}",
                     "abstract": f"Quokka census number {k} of the dunes.",
                     "authors": [f"Ada Quokka{n:02d}" for n in held],
                     "institutions": [f"Quokka Institute {n:02d}" for n in held],
                     "countries": [f"Quokkaland {n:02d}" for n in held]})
    path = tmp_path_factory.mktemp("capped-input") / "capped.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    catalog.ingest(path)
    with TestClient(create_app(catalog.settings)) as client:
        yield client
    catalog.close()


@pytest.mark.parametrize("facet", CAPPED, ids=lambda f: f.name)
def test_a_capped_facet_lists_its_most_held_values_up_to_its_cap(capped_client: TestClient,
                                                                 facet: Facet):
    body = capped_client.get("/api/search", params={"q": "quokka census"}).json()
    assert body["total"] == MANY
    counts = [value["count"] for value in body["facets"][facet.name]]
    assert counts == list(range(MANY, MANY - CAP, -1))  # the most held, most first
    page = capped_client.get("/search", params={"q": "quokka census"}).text
    section = page.split(f"<h2>{facet.title}</h2>")[1].split("</section>")[0]
    assert section.count('class="count"') == CAP and f"Show all {CAP}<" in section


@pytest.mark.parametrize("typed", ["venue:nosuch-1999", "series:nosuch", "topic:nosuch",
                                   "year:1899", "year:2026-2020"])
def test_an_inline_filter_no_paper_passes_is_named(multi_client: TestClient, typed: str):
    """It had read "No abstract matches … Try fewer or different words", as if the words were
    at fault. A filter that some papers pass, with words none of them holds, is not named."""
    assert multi_client.get("/api/search", params={"q": "grasping"}).json()["total"] > 0
    body = multi_client.get("/api/search", params={"q": f"{typed} grasping"}).json()
    assert body["total"] == 0
    assert f"No paper in the catalog passes “{typed}”: remove it" in body["message"]
    page = multi_client.get("/search", params={"q": f"grasping {typed}"}).text
    assert html.escape(f"No paper in the catalog passes “{typed}”") in page
    passed = multi_client.get("/api/search", params={"q": "year:2020 zzqxv"}).json()
    assert passed["total"] == 0 and "No paper in the catalog passes" not in (
        passed["message"] or "")
