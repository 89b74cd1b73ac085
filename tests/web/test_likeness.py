"""Papers like a paper or a list, as a reader chooses them (issue 59): of a series and a
year, newest first, and none like the papers marked "less like this"; through the real app."""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from fastapi.testclient import TestClient
from sqlmodel import select

from app.main import create_app
from app.models import Paper
from tests.conftest import Catalog


def _paper(client: TestClient, q: str) -> str:
    return client.get("/api/search", params={"q": q}).json()["hits"][0]["id"]


def _related(client: TestClient, paper: str, **params: object) -> list[dict]:
    response = client.get(f"/api/papers/{paper}/related", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_related_papers_narrow_to_a_series_and_a_year_and_read_newest_first(
        multi_client: TestClient):
    paper = _paper(multi_client, "graph neural network message passing")
    alike = _related(multi_client, paper, limit=20)
    assert len(alike) == 20 and paper not in {other["id"] for other in alike}
    assert len({other["year"] for other in alike}) > 1  # else the filters below prove nothing
    year = alike[-1]["year"]
    of_year = _related(multi_client, paper, year=year, limit=20)
    assert of_year and {other["year"] for other in of_year} == {year}
    # The most alike of that year come first, as they do among all years
    assert [o["id"] for o in alike if o["year"] == year] == [
        o["id"] for o in of_year][:len([o for o in alike if o["year"] == year])]
    of_series = _related(multi_client, paper, series="beta", limit=20)
    assert of_series and {o["venue_slug"].rsplit("-", 1)[0] for o in of_series} == {"beta"}
    newest = _related(multi_client, paper, sort="newest", limit=20)
    assert {o["id"] for o in newest} == {o["id"] for o in alike}  # the most alike, reordered
    years = [o["year"] for o in newest]
    assert years == sorted(years, reverse=True) and years != [o["year"] for o in alike]


def test_the_related_page_is_linked_from_the_paper_and_keeps_its_choices(
        multi_client: TestClient):
    paper = _paper(multi_client, "bayesian posterior inference")
    page = multi_client.get(f"/papers/{paper}").text
    assert f'href="/papers/{paper}/related"' in page
    year = _related(multi_client, paper)[0]["year"]
    related = multi_client.get(f"/papers/{paper}/related",
                               params={"year": year, "sort": "newest"})
    assert related.status_code == 200
    assert f'<option value="{year}" selected>' in related.text
    assert '<option value="newest" selected>' in related.text
    listed = related.text.count('class="paper"')
    assert listed == len(_related(multi_client, paper, year=year))
    assert multi_client.get(f"/papers/{paper}/related", params={"sort": "oldest"}
                            ).status_code == 400


def test_a_series_and_a_year_it_has_no_edition_of_say_so(multi_client: TestClient):
    """The year menu offers every year of the catalog: of BETA (2014-2022) in 2012 no paper
    can be listed, and the page says why rather than that none is like the paper."""
    paper = _paper(multi_client, "kernel methods with a positive definite kernel")
    assert _related(multi_client, paper, series="beta", year=2012) == []
    assert _related(multi_client, paper, series="alpha", year=2012)  # the year exists
    why = "The catalog has no BETA papers of 2012: its BETA papers are of 2014 to 2022."
    for page, kept in ((f"/papers/{paper}/related", {}), ("/saved", {"ids": paper})):
        answer = multi_client.get(page, params={**kept, "series": "beta", "year": 2012}).text
        assert why in answer and "No other paper" not in answer, page
        assert why not in multi_client.get(page, params={**kept, "series": "beta",
                                                         "year": 2020}).text


def test_a_series_or_a_year_the_catalog_lacks_is_named(multi_client: TestClient):
    """An address typed, or kept from another catalog: it had read "No other paper of these
    filters is like this one", as if none were alike."""
    paper = _paper(multi_client, "kernel methods with a positive definite kernel")
    years = sorted({o["year"] for o in _related(multi_client, paper, limit=50)})
    assert years[0] > 1990
    for page, kept in ((f"/papers/{paper}/related", {}), ("/saved", {"ids": paper})):
        answer = multi_client.get(page, params={**kept, "series": "nosuch"}).text
        assert "The catalog has no series “nosuch”." in answer, page
        answer = multi_client.get(page, params={**kept, "year": 1990}).text
        assert "The catalog has no papers of 1990: its papers are of " in answer, page
        assert "No other paper" not in answer


def test_a_form_left_at_all_years_lists_every_year(multi_client: TestClient):
    """The forms' "All years", "first" and "last" send an empty field: no choice, not a bad
    integer (each was a 400 page)."""
    paper = _paper(multi_client, "graph neural network message passing")
    every_year = {"series": "beta", "year": "", "sort": "alike"}
    related = multi_client.get(f"/papers/{paper}/related", params=every_year)
    assert related.status_code == 200
    assert related.text.count('class="paper"') == len(_related(multi_client, paper,
                                                               series="beta"))
    assert multi_client.get("/saved", params={"ids": paper, **every_year}).status_code == 200
    assert multi_client.get(f"/api/papers/{paper}/related", params=every_year).json() == (
        _related(multi_client, paper, series="beta"))
    topics = multi_client.get("/topics", params={"from": "", "to": ""})
    assert topics.status_code == 200 and topics.text == multi_client.get("/topics").text
    assert multi_client.get("/trends", params={"year": "", "series": ""}).status_code == 200
    searched = multi_client.get("/api/search", params={"q": "graph", "year": ""})
    assert searched.status_code == 200
    assert searched.json()["total"] == multi_client.get("/api/search", params={"q": "graph"}
                                                        ).json()["total"]
    assert multi_client.get("/api/search", params={"q": "graph", "year": 1800}
                            ).status_code == 400  # no catalog holds it
    assert multi_client.get(f"/papers/{paper}/related", params={"year": "last"}
                            ).status_code == 400  # a word is still no year


def _rows(path: Path) -> Path:
    """A list paper on tide pools; two twins on coral reefs, close to it; others on tide
    pools, further from the twins."""
    def row(title: str, abstract: str) -> str:
        return json.dumps({"venue": "Reef", "year": 2025, "title": title, "abstract": abstract})

    twin = ("Coral reef bleaching tallied by drones", "Coral reef bleaching and tide pool "
            "urchins: drones tally bleaching of coral reefs beside tide pool urchin counts.")
    rows = [row("Tide pool urchins counted", "Tide pool urchin counts: we count urchins and "
                "anemones in tide pools at low tide, and coral reef bleaching nearby."),
            row(*twin), row(twin[0] + " again", twin[1]),
            *(row(f"Tide pool census {n}", f"Tide pool urchin and anemone census {n}: urchins "
                  "and anemones counted in tide pools at every low tide.") for n in range(4))]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_paper_marked_less_like_this_leaves_and_its_twin_falls(fresh: Catalog,
                                                                  tmp_path: Path):
    fresh.ingest(_rows(tmp_path / "reef.jsonl"))
    with TestClient(create_app(fresh.settings)) as client:
        found = {hit["title"]: hit["id"] for hit in client.get(
            "/api/search", params={"q": "urchins OR coral"}).json()["hits"]}
        listed = found["Tide pool urchins counted"]
        twins = [found["Coral reef bleaching tallied by drones"],
                 found["Coral reef bleaching tallied by drones again"]]

        def recommended(**params: object) -> list[str]:
            answer = client.get("/api/recommendations", params={"ids": listed, **params})
            assert answer.status_code == 200, answer.text
            return [paper["id"] for paper in answer.json()["papers"]]

        before = recommended()
        assert set(twins) <= set(before[:3])
        after = recommended(less=twins[0])
        assert twins[0] not in after and listed not in after
        assert twins[1] not in after or after.index(twins[1]) > before.index(twins[1])
        bad = client.get("/api/recommendations", params={"ids": listed, "less": "nope"})
        assert bad.status_code == 400 and "less" in bad.json()["error"]


def test_the_reading_list_marks_less_like_this_and_takes_it_back(fresh: Catalog,
                                                                  tmp_path: Path):
    fresh.ingest(_rows(tmp_path / "reef.jsonl"))
    with TestClient(create_app(fresh.settings)) as client:
        listed = _paper(client, "tide pool urchins counted")
        page = client.get("/saved", params={"ids": listed}).text
        marks = [a.split('"')[0] for a in page.split('class="less-like" href="')[1:]]
        assert marks, "no recommendation offers “Less like this”"
        mark = marks[0].replace("&amp;", "&")
        marked = parse_qs(urlsplit(mark).query)["less"][0]
        after = client.get(mark).text
        assert 'id="less-marked"' in after and f'data-paper="{marked}"' not in after
        undo = after.split('id="less-marked"')[1].split('href="')[1].split('"')[0]
        back = client.get(undo.replace("&amp;", "&")).text
        assert 'id="less-marked"' not in back and f'data-paper="{marked}"' in back
        # Every other paper marked: it had read as if none shared enough words
        with fresh.session() as session:
            others = [pid for pid in session.exec(select(Paper.id)) if pid != listed]
        every = client.get("/saved", params={"ids": listed, "less": ",".join(others)}).text
        assert "shares enough words with your list besides those marked" in html.unescape(every)


def test_a_mark_past_the_most_a_list_holds_drops_the_oldest(multi_client: TestClient):
    """A reading list holds 100 marks: the 101st "Less like this" had led to a 400 page."""
    listed = _paper(multi_client, "graph neural network message passing")
    marked = [f"{number:016x}" for number in range(1, 101)]
    page = multi_client.get("/saved", params={"ids": listed, "less": ",".join(marked)})
    assert page.status_code == 200
    marks = [a.split('"')[0].replace("&amp;", "&")
             for a in page.text.split('class="less-like" href="')[1:]]
    assert marks, "no recommendation offers “Less like this”"
    less = parse_qs(urlsplit(marks[0]).query)["less"][0].split(",")
    assert len(less) == 100 and less[:-1] == marked[1:] and less[-1] not in marked
    assert multi_client.get(marks[0]).status_code == 200
