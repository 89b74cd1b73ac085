import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import select

from app.main import create_app
from app.models import Paper
from app.search.rank import similar
from app.search.searcher import PaperSearch
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
        related = re.findall(r'<li data-paper="([0-9a-f]{16})"', page)
        assert 1 <= len(related) <= 5 and paper["id"] not in related
        topics = {t["slug"] for t in paper["topics"]}
        shares_topic += any(topics & {t["slug"] for t in by_id[r]["topics"]} for r in related)
    assert shares_topic / len(papers) >= 0.9


def test_a_related_paper_of_the_papers_own_topic_rises_above_its_twin_of_another(
        fresh: Catalog, tmp_path: Path):
    """Two papers of one text, one at a vision conference (whose papers lean to the
    paper's topic, applications) and one at a general one (its topic read from the text):
    the twin of the paper's own topic is the more related."""
    def row(venue: str, title: str, abstract: str) -> str:
        return json.dumps({"venue": venue, "year": 2025, "title": title, "abstract": abstract})

    # Texts that name no topic: the vision conference's lean decides theirs there.
    twin = ("Quokka burrows counted", "Quokka wombat burrow foraging: counting burrows with a "
            "sparse tally for every burrow.")
    rows = [row("CVPR", "Quokka burrows mapped", "Quokka wombat burrow foraging: counting "
                "quokka burrows and wombat tunnels in the dunes."),
            row("Aleph", *twin), row("CVPR", *twin)]
    path = tmp_path / "twins.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    fresh.ingest(path)
    with TestClient(create_app(fresh.settings)) as client:
        found = {(hit["venue_slug"], hit["title"]): hit["id"] for hit in client.get(
            "/api/search", params={"q": "quokka wombat"}).json()["hits"]}
        paper = found["cvpr-2025", "Quokka burrows mapped"]
        same, other = found["cvpr-2025", twin[0]], found["aleph-2025", twin[0]]
        topic = {pid: client.get(f"/api/papers/{pid}").json()["topic"]
                 for pid in (paper, same, other)}
        related = [r["id"] for r in client.get(f"/api/papers/{paper}").json()["related"]]
    assert topic[same] == topic[paper] != topic[other]
    # Without the lift the twins tie, and the one indexed first (Aleph's) would lead.
    assert related[:2] == [same, other]


def test_related_papers_are_computed_once_for_simultaneous_requests(seeded: Catalog,
                                                                     monkeypatch):
    computed = []
    compute = similar.related_papers

    def slow_related(*args, **kwargs):
        computed.append(args[3])
        time.sleep(0.3)  # long enough that every thread asks while it runs
        return compute(*args, **kwargs)

    monkeypatch.setattr(similar, "related_papers", slow_related)
    search = PaperSearch(seeded.settings.index_path)
    with seeded.session() as session:
        paper = session.exec(select(Paper).limit(1)).one()

    def texts(ids: list[str]) -> dict[str, str]:
        return {}

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda _: search.related(paper.id, paper.plain, texts),
                                range(16)))
    assert computed == [paper.id]
    assert answers[0] and all(answer == answers[0] for answer in answers)
    search.related(paper.id, paper.plain, texts)  # later views: from the cache
    assert computed == [paper.id]


def test_a_title_with_math_shows_it_as_mathml_and_reads_as_text_elsewhere(
        fresh: Catalog, tmp_path):
    rows = tmp_path / "math.jsonl"
    rows.write_text(json.dumps({
        "venue": "MATH", "year": 2026, "title": r"Gradient $\ell_1$ Regularization for  Q* nets",
        "abstract": "We regularize gradients so that quantized networks stay robust."}) + "\n")
    assert fresh.ingest(rows).errors == []
    with TestClient(create_app(fresh.settings)) as client:
        (paper,) = client.get("/api/venues/math-2026/papers").json()["papers"]
        assert paper["headline"] == "Gradient ℓ1 Regularization for Q* nets"
        page = client.get(paper["url"]).text
        heading = re.search(r"<h1>(.*?)</h1>", page, re.S)[1]
        assert "<math " in heading and "$" not in heading and "Q* nets" in heading
        assert "<title>Gradient ℓ1 Regularization for Q* nets ·" in page
        listing = client.get("/venues/math-2026").text
        assert "<math " in listing and r"$\ell_1$" not in listing
        plain = "Gradient ℓ1 Regularization for Q* nets"
        assert f"TI  - {plain}" in client.get("/venues/math-2026.ris").text
        assert f"<title>{plain}</title>" in client.get("/venues/math-2026.atom").text
        assert "title = {{Gradient ℓ1 Regularization for Q* nets}}" in client.get(
            "/venues/math-2026.bib").text
