"""Browsing at scale on the generated multi-series catalog: series, editions, the home grid,
topics across series and years, trends and the search sidebar."""

from __future__ import annotations

import html
import re
from collections import Counter

import pytest
from sqlmodel import select

from app.models import Edition, Paper
from app.search.words.analysis import analyze
from app.web.render import percent
from tests.multiseries import SERIES, TINY_SERIES


def _papers(multiseries) -> list[tuple[Paper, Edition]]:
    with multiseries.session() as session:
        return list(session.exec(select(Paper, Edition)
                                 .join(Edition, Edition.slug == Paper.edition_slug)))


def test_series_api_lists_every_series_with_its_editions(multi_client, multiseries):
    body = multi_client.get("/api/series").json()
    by_slug = {s["slug"]: s for s in body["series"]}
    assert len(by_slug) == len(SERIES) + TINY_SERIES
    alpha = by_slug["alpha"]
    assert alpha["name"] == "ALPHA"
    assert [e["year"] for e in alpha["editions"]] == list(range(2012, 2022))
    assert [e["slug"] for e in alpha["editions"]][:2] == ["alpha-2012", "alpha-2013"]
    assert alpha["papers"] == sum(e["papers"] for e in alpha["editions"])
    counts = Counter(venue.series_slug for _, venue in _papers(multiseries))
    assert {slug: s["papers"] for slug, s in by_slug.items()} == dict(counts)


def test_series_detail_gives_topics_per_year_that_add_up(multi_client, multiseries):
    body = multi_client.get("/api/series/beta").json()
    assert [y["year"] for y in body["years"]] == list(range(2014, 2023))
    topics: Counter[tuple[int, str]] = Counter(
        (venue.year, paper.topic) for paper, venue in _papers(multiseries)
        if venue.series_slug == "beta")
    for year in body["years"]:
        assert sum(year["topics"].values()) == year["papers"]
        assert year["topics"] == {t: n for (y, t), n in topics.items() if y == year["year"]}
    assert multi_client.get("/api/series/nope").status_code == 404
    assert multi_client.get("/api/series/nope").json()["error"]


def test_series_page_charts_years_and_topics_and_links_editions(multi_client):
    page = multi_client.get("/venues/alpha")
    assert page.status_code == 200
    html = page.text
    assert "<h1>ALPHA</h1>" in html
    for year in range(2012, 2022):
        assert f'href="/venues/alpha-{year}"' in html
    assert 'aria-labelledby="papers-per-year"' in html and 'class="heatmap"' in html
    assert 'name="series" value="alpha"' in html  # search within the series
    assert "Top keyphrases" in html
    assert multi_client.get("/venues/no-such-series").status_code == 404


def test_edition_page_links_its_series_and_neighbouring_editions(multi_client):
    html = multi_client.get("/venues/alpha-2015").text
    assert 'href="/venues/alpha">ALPHA, all years' in html
    assert 'rel="prev" href="/venues/alpha-2014"' in html
    assert 'rel="next" href="/venues/alpha-2016"' in html
    first = multi_client.get("/venues/alpha-2012").text
    assert 'rel="prev"' not in first.split("<h1>")[0]


def test_an_edition_of_more_than_fifty_papers_pages(multi_client):
    page2 = multi_client.get("/api/venues/alpha-2021/papers?page=2").json()
    assert page2["pages"] == 2 and len(page2["papers"]) == 84 - 50
    page = multi_client.get("/venues/alpha-2021?page=2").text
    assert "Page 2 of 2" in page and '<ol class="papers" start="51">' in page


def test_home_grid_has_a_row_per_series_and_a_cell_per_edition(multi_client, multiseries):
    html = multi_client.get("/").text
    editions = {venue.slug for _, venue in _papers(multiseries)}
    cells = set(re.findall(r'<td class="s\d"><a href="/venues/([a-z0-9-]+)"', html))
    assert cells == editions
    assert 'th scope="row"><a href="/venues/gamma-conf">Gamma Conf</a>' in html
    assert "Try a search" in html and 'href="/topics"' in html


def test_topics_matrix_groups_small_series_and_filters_years(multi_client, multiseries):
    html = multi_client.get("/topics").text
    header = html.split("<tbody>")[0]
    assert header.count('<th scope="col" class="vertical">') == 25  # 24 series and "other"
    assert "Other series" in header
    papers = _papers(multiseries)
    robotics_alpha = sum(1 for p, v in papers if p.topic == "robotics" and v.series_slug == "alpha")
    assert f"ALPHA: {robotics_alpha} of" in html
    ranged = multi_client.get("/topics?from=2020&to=2021").text
    in_range = sum(1 for p, v in papers if p.topic == "robotics" and v.series_slug == "alpha"
                   and 2020 <= v.year <= 2021)
    assert f"ALPHA: {in_range} of" in ranged
    assert multi_client.get("/topics?from=2021&to=2020").status_code == 200  # swapped


def test_topic_page_shows_its_share_per_year_and_series_ranked(multi_client, multiseries):
    html = multi_client.get("/topics/robotics").text
    assert 'aria-labelledby="topic-share"' in html
    shares = re.findall(r'<a href="\?series=([a-z0-9-]+)#papers">', html)
    assert shares and shares == list(dict.fromkeys(shares))
    body = multi_client.get("/api/topics/robotics/papers?series=beta&year=2016").json()
    expected = sum(1 for p, v in _papers(multiseries)
                   if p.topic == "robotics" and v.slug == "beta-2016")
    assert body["total"] == expected and body["series"] == "beta"


def test_a_topics_share_stands_next_to_each_series_weight_and_the_median_series(
        multi_client, multiseries):
    """Issue 30: "robotics is a third of all papers" must read as the series that hold it."""
    papers = _papers(multiseries)
    by_series = Counter(v.series_slug for _, v in papers)
    on_topic = Counter(v.series_slug for p, v in papers if p.topic == "robotics")
    body = multi_client.get("/api/topics/robotics/papers?series=alpha").json()
    assert body["paper_count"] == sum(on_topic.values())  # the whole topic, whatever is listed
    assert body["share"] == pytest.approx(sum(on_topic.values()) / len(papers))
    shares = sorted(on_topic[s] / n for s, n in by_series.items())
    middle = len(shares) // 2
    median = shares[middle] if len(shares) % 2 else (shares[middle - 1] + shares[middle]) / 2
    assert body["typical_series_share"] == pytest.approx(median)
    rows = {row["slug"]: row for row in body["per_series"]}
    assert set(rows) == set(on_topic)
    for slug, row in rows.items():
        assert row["papers"] == on_topic[slug]
        assert row["share"] == pytest.approx(on_topic[slug] / by_series[slug])
        assert row["of_topic"] == pytest.approx(on_topic[slug] / sum(on_topic.values()))
        assert row["of_catalog"] == pytest.approx(by_series[slug] / len(papers))
    assert [row["slug"] for row in body["per_series"]] == sorted(
        on_topic, key=lambda s: (-on_topic[s], -on_topic[s] / by_series[s], s))
    page = multi_client.get("/topics/robotics").text
    alpha = rows["alpha"]
    assert f'<td class="num">{percent(alpha["of_topic"])}</td>' in page
    assert f"median conference gives it {percent(median)}" in html.unescape(page)
    everything = multi_client.get("/api/topics").json()
    robotics = next(t for t in everything["topics"] if t["slug"] == "robotics")
    assert robotics["typical_series_share"] == pytest.approx(median)
    assert robotics["share"] == pytest.approx(body["share"])
    listed = html.unescape(multi_client.get("/topics").text)
    assert f"{percent(median)}</td>" in listed


def _brute_force_years(multiseries, word: str) -> dict[int, int]:
    stem = analyze(word)[0]
    counts: Counter[int] = Counter()
    for paper, venue in _papers(multiseries):
        text = f"{paper.title}\n{paper.plain}" if paper.title else paper.plain
        if stem in analyze(text) or stem in analyze(paper.headline):
            counts[venue.year] += 1
    return counts


def test_trends_count_what_a_brute_force_count_finds(multi_client, multiseries):
    body = multi_client.get("/api/trends?q=kernel&q=transformer").json()
    assert [t["q"] for t in body["terms"]] == ["kernel", "transformer"]
    years = body["years"]
    assert years == sorted(years) and len(body["totals"]) == len(years)
    for term in body["terms"]:
        expected = _brute_force_years(multiseries, term["q"])
        assert dict(zip(years, term["counts"], strict=True)) == {
            year: expected.get(year, 0) for year in years}
        facet = multi_client.get(f"/api/search?q={term['q']}").json()["facets"]["year"]
        assert {f["value"]: f["count"] for f in facet} == {
            y: n for y, n in zip(years, term["counts"], strict=True) if n}
        for share, count, total in zip(term["shares"], term["counts"], body["totals"],
                                       strict=True):
            assert abs(share - count / total) < 1e-6
    kernel, transformer = body["terms"]
    assert kernel["shares"][0] > kernel["shares"][-1]  # the generated corpus' shape
    assert transformer["shares"][-1] > transformer["shares"][0]


def test_trends_page_draws_a_line_per_query_with_a_table(multi_client):
    html = multi_client.get("/trends?q=kernel&q=transformer&q=robot").text
    assert html.count('<polyline points=') == 3
    assert html.count('class="swatch') == 3
    assert '<th scope="col" class="num"><a href="/search?q=kernel">kernel</a></th>' in html
    too_many = multi_client.get("/api/trends?" + "&".join(f"q=w{i}" for i in range(8))).json()
    assert len(too_many["terms"]) == 6 and too_many["notes"]
    assert multi_client.get("/trends").status_code == 200
    assert multi_client.get("/trends?q=%22unclosed&q=-").status_code == 200


def test_search_facets_by_series_and_status_with_parameters_and_inline_filters(multi_client):
    everything = multi_client.get("/api/search?q=study").json()
    series = {f["value"]: f["count"] for f in everything["facets"]["series"]}
    status = {f["value"]: f["count"] for f in everything["facets"]["status"]}
    assert {"alpha", "beta", "gamma-conf"} <= set(series) and {"oral", "poster"} <= set(status)
    by_param = multi_client.get("/api/search?q=study&series=alpha&status=Oral").json()
    inline = multi_client.get("/api/search?q=study series:alpha status:oral").json()
    assert by_param["total"] == inline["total"] > 0
    assert by_param["total"] < min(series["alpha"], status["oral"])
    assert all(hit["series"] == "alpha" and hit["status"] == "Oral"
               for hit in by_param["hits"])


def test_search_sidebar_shows_ten_series_then_all_and_editions_once_a_series_is_chosen(
        multi_client):
    html = multi_client.get("/search?q=study").text
    sidebar = html.split('<aside class="facets"')[1].split("</aside>")[0]
    assert "<h2>Conference</h2>" in sidebar and "Show all" in sidebar
    assert "<h2>Edition</h2>" not in sidebar
    assert 'class="year-histogram"' in sidebar
    chosen = multi_client.get("/search?q=study&series=alpha").text
    sidebar = chosen.split('<aside class="facets"')[1].split("</aside>")[0]
    assert "<h2>Edition</h2>" in sidebar and "ALPHA 2021" in sidebar and "BETA 2020" not in sidebar
    assert 'href="/trends?q=study"' in html  # the per-year chart leads to trends


def test_feeds_list_the_later_ingest_first(multi_client):
    feed = multi_client.get("/search.atom?q=study").text
    first_entry = feed.split("<entry>")[1]
    assert "alpha-2021" in first_entry or "beta-2022" in first_entry


def test_a_share_of_a_few_papers_never_reads_as_none():
    assert percent(0.0) == "0.0%"
    assert percent(0.0004) == "<0.1%"  # 17 papers of ICRA's 17,520 are not 0.0 %
    assert percent(0.1234) == "12.3%"
