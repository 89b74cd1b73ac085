"""What reference managers, browsers and crawlers read: citation tags, COinS, OpenSearch,
robots.txt and the sitemap, each checked against its format."""

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.web import discovery
from tests.conftest import TEST_HOSTS, Catalog, make_catalog
from tests.postgres import new_database_url

OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


class Tags(HTMLParser):
    """The page's <meta name content> pairs and the titles of its COinS spans."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.meta: list[tuple[str, str]] = []
        self.coins: list[dict[str, list[str]]] = []
        self.links: list[dict[str, str]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "meta" and "name" in values:
            self.meta.append((values["name"], values.get("content", "")))
        if tag == "span" and values.get("class") == "Z3988":
            self.coins.append(parse_qs(values["title"]))
        if tag == "link":
            self.links.append(values)


@pytest.fixture(scope="module")
def authored(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    """A catalog of JSON Lines records with titles, authors and a source URL."""
    catalog: Catalog = make_catalog(tmp_path_factory.mktemp("authored"))
    source = tmp_path_factory.mktemp("jsonl") / "conf.jsonl"
    rows = [{"venue": "CONF", "year": 2025, "title": f"Sparse {w} for graphs: a study",
             "authors": ["Ada Lovelace", "Émilie du Châtelet"], "url": f"https://example.org/{i}",
             "abstract": f"We study sparse {w} on graphs with 50% fewer edges & more."}
            for i, w in enumerate(["attention", "kernels", "flows"])]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    catalog.ingest(source)
    with TestClient(create_app(catalog.settings)) as client:
        yield client


def test_paper_page_carries_highwire_citation_tags(authored: TestClient):
    paper = authored.get("/api/venues/conf-2025/papers").json()["papers"][0]
    tags = Tags(authored.get(f"/papers/{paper['id']}").text)
    meta: dict[str, list[str]] = {}
    for name, content in tags.meta:
        meta.setdefault(name, []).append(content)
    assert meta["citation_title"] == [paper["title"]]
    assert meta["citation_author"] == ["Ada Lovelace", "Émilie du Châtelet"]
    assert meta["citation_conference_title"] == ["CONF 2025"]
    assert meta["citation_publication_date"] == ["2025"]
    assert meta["citation_abstract"][0].startswith("We study sparse") and "50%" in meta[
        "citation_abstract"][0]
    assert meta["citation_public_url"] == [paper["url"]]


def test_list_pages_expose_every_paper_as_coins(authored: TestClient):
    papers = authored.get("/api/venues/conf-2025/papers").json()["papers"]
    for path in ("/venues/conf-2025", "/search?q=sparse", "/saved?ids="
                 + ",".join(p["id"] for p in papers)):
        coins = Tags(authored.get(path).text).coins
        assert len(coins) >= len(papers), path
        titles = {c["rft.atitle"][0] for c in coins}
        assert {p["title"] for p in papers} <= titles
        first = next(c for c in coins if c["rft.atitle"][0] == papers[0]["title"])
        assert first["ctx_ver"] == ["Z39.88-2004"] and first["rft.genre"] == ["proceeding"]
        assert first["rft.au"] == ["Ada Lovelace", "Émilie du Châtelet"]
        assert first["rft.btitle"] == ["CONF 2025"] and first["rft.date"] == ["2025"]


def test_opensearch_description_is_valid_and_its_urls_work(client: TestClient):
    home = Tags(client.get("/").text)
    (link,) = [x for x in home.links if x.get("rel") == "search"]
    assert link["type"] == "application/opensearchdescription+xml"
    response = client.get(link["href"])
    assert response.headers["content-type"].startswith("application/opensearchdescription+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{OPENSEARCH}OpenSearchDescription"
    short = root.find(f"{OPENSEARCH}ShortName").text
    assert short and len(short) <= 16
    assert root.find(f"{OPENSEARCH}Description").text
    urls = {u.get("type"): u.get("template") for u in root.findall(f"{OPENSEARCH}Url")}
    html = urls["text/html"].replace("{searchTerms}", "diffusion")
    assert "{searchTerms}" in urls["application/x-suggestions+json"]
    found = client.get(urlsplit(html).path + "?" + urlsplit(html).query)
    assert found.status_code == 200 and "diffusion" in found.text
    suggest = urls["application/x-suggestions+json"].replace("{searchTerms}", "diffu")
    answer = client.get(urlsplit(suggest).path + "?" + urlsplit(suggest).query)
    assert answer.headers["content-type"].startswith("application/x-suggestions+json")
    query, completions = answer.json()
    assert query == "diffu" and completions and all(c.startswith("diffu") for c in completions)


def test_robots_points_at_the_sitemap_and_keeps_crawlers_out_of_endless_lists(
        client: TestClient):
    lines = client.get("/robots.txt").text.splitlines()
    assert lines[0] == "User-agent: *"
    assert {"Disallow: /api/", "Disallow: /search", "Disallow: /saved"} <= set(lines)
    assert "Sitemap: http://testserver/sitemap.xml" in lines


def sitemap_urls(client: TestClient, url: str) -> list[str]:
    root = ET.fromstring(client.get(urlsplit(url).path + (
        "?" + urlsplit(url).query if urlsplit(url).query else "")).content)
    if root.tag == f"{SITEMAP}sitemapindex":
        return [loc for sub in root.findall(f"{SITEMAP}sitemap")
                for loc in sitemap_urls(client, sub.find(f"{SITEMAP}loc").text)]
    assert root.tag == f"{SITEMAP}urlset"
    assert len(root) <= discovery.SITEMAP_URLS
    for entry in root:
        lastmod = entry.find(f"{SITEMAP}lastmod")
        assert lastmod is None or len(lastmod.text) == 10  # W3C date
    return [entry.find(f"{SITEMAP}loc").text for entry in root]


def test_sitemap_lists_every_paper_edition_series_and_topic(multi_client: TestClient,
                                                            monkeypatch: pytest.MonkeyPatch):
    whole = sitemap_urls(multi_client, "http://testserver/sitemap.xml")
    assert len(whole) == len(set(whole))
    paths = {urlsplit(url).path for url in whole}
    series = multi_client.get("/api/series").json()["series"]
    for found in series:
        assert f"/venues/{found['slug']}" in paths
        for edition in found["editions"]:
            assert f"/venues/{edition['slug']}" in paths
    papers = sum(s["papers"] for s in series)
    assert sum(path.startswith("/papers/") for path in paths) == papers
    assert {"/", "/venues", "/topics", "/topics/reinforcement-learning"} <= paths
    institutions = multi_client.get("/api/search?q=").json()["facets"]["institution"]
    assert {f"/institutions/{v['value']}" for v in institutions} == {
        p for p in paths if p.startswith("/institutions/")}
    assert {"/countries/china", "/countries/switzerland"} <= paths
    for path in list(paths)[:: max(1, len(paths) // 40)]:
        assert multi_client.get(path).status_code == 200, path
    # Beyond the limit per file: an index of files, a series split into parts, same URLs.
    monkeypatch.setattr(discovery, "SITEMAP_URLS", 50)
    index = ET.fromstring(multi_client.get("/sitemap.xml").content)
    assert index.tag == f"{SITEMAP}sitemapindex"
    assert any("part=2" in loc.text for loc in index.iter(f"{SITEMAP}loc"))
    assert sorted(sitemap_urls(multi_client, "http://testserver/sitemap.xml")) == sorted(whole)
    assert multi_client.get("/sitemaps/no-such-series.xml").status_code == 404
    assert multi_client.get("/sitemaps/_site.xml?part=9").status_code == 404


def test_an_empty_catalog_still_answers_valid_files(tmp_path: Path):
    settings = Settings(data_dir=tmp_path / "data", seeds_dir=tmp_path,
                        database=new_database_url(), allowed_hosts=TEST_HOSTS)
    with TestClient(create_app(settings)) as client:
        root = ET.fromstring(client.get("/sitemap.xml").content)
        assert root.tag == f"{SITEMAP}urlset" and len(root) >= 4
        assert client.get("/robots.txt").status_code == 200
        assert client.get("/opensearch.xml").status_code == 200
