"""Issue 23: author, institution and country pages, their rankings and twins, with counts
checked against the generated rows they were ingested from (counted here independently)."""

import html
import json
import random
import re
from collections import Counter
from collections.abc import Iterator

import bibtexparser
import pytest
from fastapi.testclient import TestClient

from app.ids import name_slug
from app.main import create_app
from tests.conftest import Catalog, make_catalog

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy"]
PLACES = {"ETH Zurich": "Switzerland", "MIT": "United States", "Tsinghua University": "China",
          "University of Oxford": "United Kingdom", "Stanford University": "United States"}
WORDS = "graph neural robot policy diffusion kernel bandit language vision proof".split()


def _rows() -> list[dict]:
    rng = random.Random(23)
    rows = []
    for k in range(240):
        venue, year = rng.choice([("QUOKKA", 2022), ("QUOKKA", 2023), ("QUOKKA", 2024),
                                  ("WOMBAT", 2023), ("WOMBAT", 2024)])
        people = rng.sample([f"{f} {last}" for f in FIRST for last in LAST], rng.randint(1, 4))
        if k % 3 == 0:
            people.insert(0, "Sergey Levine")
        places = rng.sample(sorted(PLACES), rng.randint(0, 2))
        words = " ".join(rng.choice(WORDS) for _ in range(30))
        rows.append({"venue": venue, "year": year, "title": f"Paper {k}",
                     "abstract": f"Abstract {k}: {words}.", "authors": people,
                     "affiliations": [places[0] if places else "" for _ in people],
                     "institutions": places,
                     "countries": sorted({PLACES[p] for p in places})})
    rows[0]["authors"] = ["<script>alert(1)</script> Mallory"]
    rows[1]["authors"] = ["李明", *rows[1]["authors"]]  # no letter transliterates: a hashed slug
    rows[1]["affiliations"] = [rows[1]["affiliations"][0], *rows[1]["affiliations"]]
    return rows


ROWS = _rows()


@pytest.fixture(scope="module")
def people_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    catalog = make_catalog(tmp_path_factory.mktemp("people"))
    path = tmp_path_factory.mktemp("people-input") / "people.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    catalog.ingest(path)
    return catalog


@pytest.fixture(scope="module")
def client(people_catalog: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(people_catalog.settings)) as test_client:
        yield test_client


def _papers_of(field: str, name: str) -> list[dict]:
    return [row for row in ROWS if name in row[field]]


def test_an_authors_page_counts_exactly(client: TestClient):
    mine = _papers_of("authors", "Sergey Levine")
    twin = client.get("/api/authors/sergey-levine").json()
    assert twin["name"] == "Sergey Levine" and twin["paper_count"] == len(mine) > 50
    years = Counter(row["year"] for row in mine)
    assert [(y["year"], y["papers"]) for y in twin["years"]] == sorted(years.items())
    per_series = Counter(row["venue"].lower() for row in mine)
    assert {s["slug"]: s["papers"] for s in twin["series"]} == per_series
    coauthors = Counter(a for row in mine for a in row["authors"] if a != "Sergey Levine")
    top = sorted(coauthors.items(), key=lambda kv: (-kv[1], name_slug(kv[0])))[:20]
    assert [(p["name"], p["papers"]) for p in twin["people"]] == top
    affiliations = Counter(row["affiliations"][0] for row in mine if row["affiliations"][0])
    assert {a["phrase"]: a["papers"] for a in twin["affiliations"]} == affiliations
    assert sum(twin["topics"].values()) == len(mine)
    assert len(twin["papers"]) == 50 and twin["pages"] == 2  # newest first, paged
    assert [p["year"] for p in twin["papers"]] == sorted(
        (p["year"] for p in twin["papers"]), reverse=True)
    page = html.unescape(client.get("/authors/sergey-levine").text)
    assert f"{len(mine)} papers in the catalog, 2022–2024, at 2 conferences" in page
    assert all(f'{p["name"]}</a> <span class="count">{p["papers"]} paper' in page
               for p in twin["people"])


def test_a_profile_filters_by_series_and_year_and_downloads_its_papers(client: TestClient):
    mine = _papers_of("authors", "Sergey Levine")
    chosen = [row for row in mine if row["venue"] == "QUOKKA" and row["year"] == 2023]
    twin = client.get("/api/authors/sergey-levine?series=quokka&year=2023").json()
    assert {p["title"] for p in twin["papers"]} == {row["title"] for row in chosen}
    assert twin["paper_count"] == len(mine)  # the summary is the whole profile's
    page = html.unescape(client.get("/authors/sergey-levine?series=quokka&year=2023").text)
    assert f'{len(chosen)} papers at QUOKKA from 2023, newest first' in page
    entries = bibtexparser.parse_string(client.get("/authors/sergey-levine.bib").text).entries
    assert len(entries) == len(mine)
    feed = client.get("/authors/sergey-levine?format=atom")
    assert feed.headers["content-type"].startswith("application/atom+xml")
    assert feed.text.count("<entry>") == 50  # the newest
    assert client.get("/authors/nobody-at-all").status_code == 404
    assert client.get("/api/institutions/nowhere").status_code == 404


@pytest.mark.parametrize(("kind", "field", "name"), [
    ("institution", "institutions", "ETH Zurich"), ("country", "countries", "United States")])
def test_institution_and_country_pages_count_exactly(client: TestClient, kind: str,
                                                     field: str, name: str):
    mine = _papers_of(field, name)
    base = "/api/institutions/" if kind == "institution" else "/api/countries/"
    twin = client.get(base + name_slug(name)).json()
    assert (twin["name"], twin["paper_count"]) == (name, len(mine))
    assert {s["slug"]: s["papers"] for s in twin["series"]} == Counter(
        row["venue"].lower() for row in mine)
    authors = Counter(a for row in mine for a in row["authors"])
    assert {p["name"]: p["papers"] for p in twin["people"]}.items() <= authors.items()
    assert twin["people"][0]["papers"] == max(authors.values())


@pytest.mark.parametrize("url", ["/authors/sergey-levine", "/institutions/eth-zurich",
                                 "/countries/china"])
def test_a_profile_page_is_cached_with_an_etag_and_revalidated_with_a_304(client: TestClient,
                                                                          url: str):
    first = client.get(url)
    assert first.status_code == 200 and first.headers["etag"]
    assert client.get(url).headers["etag"] == first.headers["etag"]
    revalidated = client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert revalidated.status_code == 304 and revalidated.content == b""


def test_the_ranking_counts_shares_and_changes_against_the_edition_before(client: TestClient):
    ranked = client.get("/api/institutions?series=quokka&from=2024&to=2024").json()
    now = [row for row in ROWS if (row["venue"], row["year"]) == ("QUOKKA", 2024)]
    then = [row for row in ROWS if (row["venue"], row["year"]) == ("QUOKKA", 2023)]
    assert ranked["papers"] == len(now) and ranked["before"] == "QUOKKA 2023"
    assert ranked["known"] == sum(bool(row["institutions"]) for row in now)
    counts = Counter(i for row in now for i in row["institutions"])
    earlier = Counter(i for row in then for i in row["institutions"])
    assert {r["name"]: r["papers"] for r in ranked["ranked"]} == counts
    for row in ranked["ranked"]:
        assert row["share"] == pytest.approx(counts[row["name"]] / len(now))
        assert row["previous"] == earlier[row["name"]]
        assert row["change"] == pytest.approx(row["share"] - earlier[row["name"]] / len(then))
    page = html.unescape(client.get("/institutions?series=quokka&from=2024&to=2024").text)
    assert all(f'{r["name"]}</a></td><td class="num">{r["papers"]}<' in page
               for r in ranked["ranked"])
    # With no years asked: the series' latest year
    assert client.get("/api/countries?series=wombat").json()["first_year"] == 2024


def test_who_publishes_at_an_edition_equals_the_ranking(client: TestClient):
    twin = client.get("/api/venues/wombat-2023/papers").json()
    ranked = client.get("/api/institutions?series=wombat&from=2023&to=2023").json()
    assert [(i["name"], i["papers"]) for i in twin["institutions"]] == [
        (r["name"], r["papers"]) for r in ranked["ranked"]][:10]
    page = html.unescape(client.get("/venues/wombat-2023").text)
    assert "Who publishes here" in page
    assert all(f'{c["name"]}</a> <span class="count">{c["papers"]}<' in page
               for c in twin["countries"])


def test_authors_are_found_by_name_and_by_surname(client: TestClient):
    by_surname = client.get("/api/authors?q=turing").json()["authors"]
    expected = Counter(a for row in ROWS for a in row["authors"] if a.endswith(" Turing"))
    assert {a["name"]: a["papers"] for a in by_surname} == expected
    by_start = [a["name"] for a in client.get("/api/authors?q=serg").json()["authors"]]
    assert by_start == ["Sergey Levine"]
    page = client.get("/authors?q=hopper").text
    assert "Grace Hopper</a>" in page and "Alan Turing" not in page


def test_names_are_escaped_everywhere(client: TestClient):
    evil = client.get("/api/authors?q=mallory").json()["authors"]
    assert len(evil) == 1
    for url in (evil[0]["url"], "/venues/" + client.get("/api/search", params={
            "q": "author:mallory"}).json()["hits"][0]["venue_slug"]):
        body = client.get(url).text
        assert "<script>alert(1)</script>" not in body


def test_search_facets_count_what_the_pages_count(client: TestClient):
    everything = client.get("/api/search", params={"q": ""}).json()["facets"]
    for kind, base in (("institution", "/api/institutions/"), ("country", "/api/countries/")):
        counted = {v["value"]: v["count"] for v in everything[kind]}
        assert counted and all(client.get(base + slug).json()["paper_count"] == n
                               for slug, n in counted.items())
    inline = client.get("/api/search", params={"q": 'institution:"ETH Zurich" country:china'})
    both = [row for row in ROWS
            if "ETH Zurich" in row["institutions"] and "China" in row["countries"]]
    assert inline.json()["total"] == len(both) > 0
    page = html.unescape(client.get("/search", params={"institution": "eth-zurich"}).text)
    assert "institution: ETH Zurich" in page and ">Institution<" in page


def test_the_author_facet_counts_what_author_pages_count(client: TestClient):
    everything = client.get("/api/search", params={"q": ""}).json()["facets"]["by"]
    counted = Counter({v["value"]: v["count"] for v in everything})
    written = Counter(name_slug(a) for row in ROWS for a in dict.fromkeys(row["authors"]))
    assert len(counted) == 15 and counted["sergey-levine"] == written["sergey-levine"] > 50
    assert all(written[slug] == n == client.get(f"/api/authors/{slug}").json()["paper_count"]
               for slug, n in counted.items())
    assert min(counted.values()) >= sorted(written.values(), reverse=True)[14]  # the top 15
    robots = [row for row in ROWS if "Sergey Levine" in row["authors"]
              and "robot" in re.findall(r"\w+", row["abstract"])]
    inline = client.get("/api/search", params={"q": 'robot by:"Sergey Levine"'}).json()
    assert inline["total"] == len(robots) > 0
    page = html.unescape(client.get("/search", params={"q": "robot",
                                                       "by": "sergey-levine"}).text)
    assert "by: Sergey Levine" in page and ">Author<" in page
    evil = client.get("/search", params={"by": name_slug("<script>alert(1)</script> Mallory")})
    assert "by: &lt;script&gt;alert(1)&lt;/script&gt; Mallory" in evil.text


def test_a_name_without_latin_letters_has_a_page_its_papers_link_to(client: TestClient):
    slug = name_slug("李明")
    profile = client.get(f"/api/authors/{slug}").json()
    assert profile["name"] == "李明" and [p["title"] for p in profile["papers"]] == ["Paper 1"]
    assert f'href="/authors/{slug}">李明</a>' in client.get(profile["papers"][0]["url"]).text


def test_ranking_choices_are_checked_and_read_whole(client: TestClient):
    assert client.get("/institutions?series=no-such-series").status_code == 404
    assert client.get("/api/countries?series=no-such-series").status_code == 404
    named = client.get("/api/institutions?series=QUOKKA&from=2024&to=2024").json()
    assert named["series"] == "quokka" and named["papers"] > 0  # a name reads as its slug
    opened = client.get("/api/institutions?series=quokka&from=2023").json()
    assert (opened["first_year"], opened["last_year"]) == (2023, 2024)  # the series' last
    assert "2023–2024" in html.unescape(client.get("/institutions?series=quokka&from=2023").text)


def test_a_profile_downloads_newest_first_as_its_page_lists(client: TestClient):
    rows = client.get("/authors/sergey-levine.json").json()
    years = [row["year"] for row in rows]
    assert years == sorted(years, reverse=True) and len(set(years)) > 1


def test_a_paper_page_names_each_authors_affiliation_or_one_shared_once(client: TestClient):
    shared = next(row for row in ROWS[2:] if len(row["authors"]) > 1 and row["affiliations"][0])
    slug = name_slug(shared["authors"][0])
    paper = next(p for p in client.get(f"/authors/{slug}.json").json()
                 if p["title"] == shared["title"])
    page = html.unescape(client.get(paper["url"]).text)
    assert page.count(f'({shared["affiliations"][0]})') == 0
    assert f'<span class="affiliation">— {shared["affiliations"][0]}</span>' in page


def test_an_author_is_named_by_the_spelling_most_of_their_papers_write(tmp_path):
    """Lists named an author by the alphabetically first spelling: "Wei ZHANG", written on
    one of the 111 papers that write "Wei Zhang" on the rest, named him in the author search
    and among co-authors, while his page said "Wei Zhang"."""
    catalog = make_catalog(tmp_path)
    path = tmp_path / "spellings.jsonl"
    spellings = ["Wei Zhang", "Wei ZHANG", "Wei Zhang"]
    path.write_text("".join(json.dumps({
        "venue": "QUOKKA", "year": 2024, "title": f"Paper {n}", "abstract": f"Kernels {n}.",
        "authors": [name, "Ada Lovelace"]}) + "\n" for n, name in enumerate(spellings)))
    catalog.ingest(path)
    with TestClient(create_app(catalog.settings)) as client:
        found = client.get("/api/authors", params={"q": "zhang"}).json()["authors"]
        assert [(a["name"], a["papers"]) for a in found] == [("Wei Zhang", 3)]
        assert client.get("/api/authors/wei-zhang").json()["name"] == "Wei Zhang"
        people = client.get("/api/authors/ada-lovelace").json()["people"]
        assert [(p["name"], p["papers"]) for p in people] == [("Wei Zhang", 3)]
        assert "Wei Zhang</a>" in client.get("/authors", params={"q": "zhang"}).text
