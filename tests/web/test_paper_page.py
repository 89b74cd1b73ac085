import re

from fastapi.testclient import TestClient

from tests.conftest import Catalog


def seed_papers(client: TestClient) -> list[dict]:
    papers = []
    for slug in ("icml-2026", "iclr-2026", "neurips-2026"):
        papers += client.get(f"/api/venues/{slug}/papers").json()["papers"]
    return papers


def test_paper_page_renders_math_as_mathml(client: TestClient):
    paper = next(p for p in seed_papers(client) if "$k$-parity" in p["abstract"])
    page = client.get(paper["url"]).text
    assert page.count("<math ") >= 3 and "$k$" not in page


def test_code_links_show_on_page_and_as_list_badges(client: TestClient):
    paper = next(p for p in seed_papers(client) if "SmartFed" in p["abstract"])
    assert paper["code_urls"] == ["https://github.com/benmagnifico/SmartFed"]
    page = client.get(paper["url"]).text
    assert 'class="badge" href="https://github.com/benmagnifico/SmartFed"' in page
    venue_page = client.get(f"/venues/{paper['venue_slug']}").text
    assert venue_page.count('class="badge"') == sum(
        1 for p in seed_papers(client) if p["venue_slug"] == paper["venue_slug"] and p["code_urls"])


def test_tricky_seed_code_urls_are_clean(client: TestClient):
    urls = {u for p in seed_papers(client) for u in p["code_urls"]}
    assert "https://github.com/yuchang97/GFG-public" in urls
    assert "https://github.com/benmagnifico/SmartFed" in urls
    assert not any(u.endswith((".", "}", ")", ",")) for u in urls)


def test_related_papers_are_listed_with_shared_terms(client: TestClient):
    papers = seed_papers(client)
    by_id = {p["id"]: p for p in papers}
    shares_topic = 0
    for paper in papers:
        page = client.get(paper["url"]).text
        related = re.findall(r'<li><a href="[^"]*/papers/([0-9a-f]{16})">', page)
        assert 1 <= len(related) <= 5 and paper["id"] not in related
        topics = {t["slug"] for t in paper["topics"]}
        shares_topic += any(topics & {t["slug"] for t in by_id[r]["topics"]} for r in related)
    assert shares_topic / len(papers) >= 0.9


def test_related_papers_are_cached(seeded: Catalog, client: TestClient):
    paper = seed_papers(client)[0]
    search = client.app.state.search
    client.get(paper["url"])
    cached = len(search._related)
    client.get(paper["url"])
    assert len(search._related) == cached
