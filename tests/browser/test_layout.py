"""Layout at a phone's width (390 px) and a laptop's (1280 px): charts keep text of at least
11 px, wide tables and the heatmap scroll inside their own box with their first column in
view, no page scrolls sideways, the search's filters are a tap away, and the map says which
colour is which topic."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.topics import load_taxonomy
from app.web.urls import CARRIED_ONCE
from tests.browser.conftest import AXE, screenshot, serious_violations

PHONE = {"width": 390, "height": 844}
# The text of every SVG drawn on the page, in screen pixels (its font size in the chart's
# units times the chart's scale).
TEXT_SIZES = """selector => [...document.querySelectorAll(selector)]
    .filter(e => e.getBoundingClientRect().height > 0)
    .map(e => parseFloat(getComputedStyle(e).fontSize) * e.getScreenCTM().a)"""
BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; }"


@pytest.fixture
def phone(browser, server):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=server, viewport=PHONE, is_mobile=True)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("path", ["/", "/venues/alpha-2016"])
def test_topic_bar_chart_text_is_readable_on_a_phone(phone, path):
    phone.goto(path)
    sizes = phone.evaluate(TEXT_SIZES, "figure.bar-chart svg text")
    shown = phone.locator("figure.bar-chart svg:visible a").count()  # one drawing of two
    assert shown > 3 and shown == phone.locator("figure.bar-chart svg a").count() // 2
    assert sizes and min(sizes) >= 11, (path, min(sizes))
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_every_chart_on_a_phone_has_text_of_11_px_or_more(phone):
    for path in ["/venues/alpha", "/trends?q=kernel&q=transformer", "/search?q=kernel",
                 "/topics/robotics"]:
        phone.goto(path)
        sizes = phone.evaluate(TEXT_SIZES, "svg text")
        assert sizes and min(sizes) >= 11, (path, min(sizes))


def test_trends_table_scrolls_in_its_box_with_the_year_column_in_view(phone):
    phone.goto("/trends?q=kernel&q=transformer&q=robot&q=graph&q=bayes")
    wrap = phone.locator(".matrix-wrap")
    year = phone.locator("table.trend-table tbody th[scope=row]").first
    caption = phone.locator("table.trend-table caption")
    box = wrap.evaluate(BOX)
    assert wrap.evaluate("e => e.scrollWidth > e.clientWidth")  # five queries: it scrolls
    for left in (0, 10_000):
        wrap.evaluate(f"e => e.scrollLeft = {left}")
        cell, said = year.evaluate(BOX), caption.evaluate(BOX)
        assert box[0] - 1 <= cell[0] and cell[1] <= box[1] + 1, (left, box, cell)  # in view
        assert box[0] - 1 <= said[0] and said[1] <= box[1] + 1, (left, box, said)  # wrapped
    assert year.inner_text() in {str(y) for y in range(2000, 2030)}
    screenshot(phone, "layout-trends-390")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_heatmap_labels_stay_while_its_years_scroll(phone):
    phone.goto("/venues/alpha")
    figure = phone.locator("figure.heat-chart")
    labels, cells = phone.locator("svg.heat-labels"), phone.locator("svg.heatmap")
    assert figure.evaluate("e => e.scrollWidth > e.clientWidth")
    before = labels.evaluate(BOX), cells.evaluate(BOX)
    figure.evaluate("e => e.scrollLeft = 10000")
    after = labels.evaluate(BOX), cells.evaluate(BOX)
    assert after[0][0] == before[0][0]  # the labels stayed
    assert after[1][0] < before[1][0] - 50  # the cells moved under them
    sizes = phone.evaluate(TEXT_SIZES, "svg.heat-labels text")
    assert sizes and min(sizes) >= 11
    # each row is named in full, though its label is cut short on a phone
    names = phone.locator("svg.heat-labels a > title").all_text_contents()
    assert {topic.name for topic in load_taxonomy().topics} >= set(names) and names
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_search_filters_are_a_link_away_on_a_phone(phone, page):
    phone.goto("/search?q=kernel")
    link = phone.get_by_role("link", name="Filters")
    assert link.is_visible()
    facets = phone.locator("aside.facets")
    assert link.evaluate(BOX)[2] < 1000 < facets.evaluate(BOX)[2]  # at the top, and far above
    link.click()
    phone.wait_for_function("location.hash === '#filters'")
    top = facets.evaluate(BOX)[2]
    assert 0 <= top < PHONE["height"]
    page.goto("/search?q=kernel")  # 1280 px: the facets are beside the results
    assert not page.get_by_role("link", name="Filters").is_visible()


# A label's first line: where it starts, and how many lines it takes
LABEL_LINES = """buttons => buttons.map(b => { const r = document.createRange();
    r.selectNodeContents(b); const lines = [...r.getClientRects()];
    return [b.getBoundingClientRect().left, Math.min(...lines.map(x => x.left)),
            new Set(lines.map(x => Math.round(x.top))).size]; })"""


def test_a_wrapped_facet_label_starts_at_the_left_as_a_links_does(page):
    """A long pasted text rides in a form, so its sidebar offers the facets as buttons, and a
    button centres the lines of a label that wraps ("Reinforcement / learning" stood centred)."""
    text = ("we learn a policy for a robot arm from images and language with a diffusion model "
            "and a transformer over graphs of kernels ") * 6
    assert len(text) > CARRIED_ONCE
    page.goto("/search?" + urlencode({"q": text}))
    labels = page.locator("aside.facets li .link-button").evaluate_all(LABEL_LINES)
    assert any(lines > 1 for _, _, lines in labels), "no label wraps: nothing to check"
    assert all(abs(button - first) < 1 for button, first, _ in labels), labels


PAGES = ["/", "/venues", "/venues/alpha", "/venues/alpha-2016", "/topics/robotics",
         "/trends?q=transformer", "/trends?q=kernel&q=transformer&q=robot&q=graph&q=bayes",
         "/search?q=kernel", "/search?q=generalization", "/authors/grace-hopper", "/saved"]


def test_no_page_scrolls_sideways_on_a_phone(phone):
    phone.goto("/search?q=kernel")
    paper = phone.locator("li.paper a.headline").first.get_attribute("href")
    for path in [*PAGES, paper]:
        phone.goto(path)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (path, width)


def test_conference_grid_shows_its_totals_at_1280(page):
    for path in ["/", "/venues"]:
        page.goto(path)
        wrap = page.locator(".grid-wrap")
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), path
        total = page.locator("table.series-grid thead th").last
        assert total.inner_text() == "All"
        assert total.evaluate(BOX)[1] <= wrap.evaluate(BOX)[1]


def test_map_legend_names_each_topic_colour(page):
    page.goto("/venues/icml-2026")
    page.wait_for_selector("canvas.map-canvas")
    points = page.evaluate("async () => (await fetch('/api/map?venue=icml-2026')).json()")
    palette = points["palette"]
    topics = load_taxonomy().topics
    legend = page.locator(".map-legend li")
    names = legend.all_inner_texts()
    assert [name.strip() for name in names] == [topic.name for topic in topics]
    swatches = page.evaluate("() => [...document.querySelectorAll('.map-legend .map-swatch')]"
                             ".map(e => getComputedStyle(e).backgroundColor)")

    def rgb(colour: str) -> str:
        r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return f"rgb({r}, {g}, {b})"

    assert swatches == [rgb(palette[i % len(palette)]) for i in range(len(topics))]
    # each paper on the map is drawn in the colour its topic's legend entry shows
    for paper in points["papers"]:
        named = [topic.slug for topic in topics].index(paper["topic"])
        assert swatches[named] == rgb(palette[paper["colour"] % len(palette)])
    screenshot(page, "layout-map-legend-1280")
    page.select_option(".map-colour", "year")  # the legend is the topics'
    assert not page.locator(".map-legend").is_visible()
    page.select_option(".map-colour", "topic")
    assert page.locator(".map-legend").is_visible()


def test_the_site_has_an_icon(page):
    page.goto("/")
    icon = page.locator("link[rel=icon]")
    assert icon.get_attribute("type") == "image/svg+xml"
    for href in [icon.get_attribute("href"), "/favicon.ico"]:
        response = page.request.get(href)
        assert response.status == 200 and response.headers["content-type"] == "image/svg+xml"
        assert response.text().startswith("<svg")


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (make test runs npm)")
@pytest.mark.parametrize("path", ["/", "/venues/alpha", "/venues/alpha-2016", "/search?q=kernel",
                                  "/trends?q=kernel&q=transformer&q=robot&q=graph&q=bayes"])
def test_the_phone_layouts_have_no_serious_accessibility_violations(browser, server, path):
    context = browser.new_context(base_url=server, viewport=PHONE, is_mobile=True,
                                  bypass_csp=True)
    page = context.new_page()
    page.goto(path)
    serious = serious_violations(page)
    context.close()
    assert serious == [], serious
