"""What a researcher does, in Chromium: search, filter, page, read math, keyboard, phone."""

import re

import pytest

from tests.browser.conftest import AXE, screenshot, serious_violations


def heading_count(page) -> int:
    return int(re.match(r"(\d+)", page.locator("h1").inner_text())[1])


def test_search_from_home_and_open_a_result(page):
    page.goto("/")
    page.fill("#q", "memorization")
    page.press("#q", "Enter")
    page.wait_for_url(re.compile(r"/search\?q=memorization"))
    assert heading_count(page) > 5
    assert page.locator("ol.papers mark").count() > 0
    first = page.locator("ol.papers li.paper a.headline").first
    headline = first.inner_text()
    first.click()
    page.wait_for_url(re.compile(r"/papers/[0-9a-f]{16}"))
    assert page.locator("h1").inner_text() == headline
    screenshot(page, "search-and-open")


def test_a_pasted_abstract_is_searched_whole(page, browser_catalog):
    """The box takes an abstract as a reader pastes it: it had cut every paste to 500
    characters, so a long abstract was read as its first few sentences."""
    abstract = next(line for path in sorted(browser_catalog.settings.seeds_dir.glob("*.txt"))
                    for line in path.read_text(encoding="utf-8").splitlines()
                    if len(line) > 1_200 and "$" not in line)
    page.goto("/")
    page.focus("#q")
    page.keyboard.insert_text(abstract)
    assert page.input_value("#q") == abstract
    page.press("#q", "Enter")
    page.wait_for_url(re.compile(r"/search\?q="))
    words = len(abstract.split())
    assert f"This {words}-word query was read as a text" in page.content()
    first = page.locator("ol.papers li.paper a.headline").first
    first.click()
    page.wait_for_url(re.compile(r"/papers/[0-9a-f]{16}"))
    assert " ".join(abstract.split()[:12]) in " ".join(page.content().split())


def test_series_facet_changes_the_count(page):
    page.goto("/search?q=generalization")
    everything = heading_count(page)
    facet = page.locator(".facets a", has_text="ICLR")
    expected = int(facet.locator("xpath=..").locator(".count").inner_text())
    facet.click()
    page.wait_for_url(re.compile(r"series=iclr"))
    assert heading_count(page) == expected < everything
    assert page.locator(".chips .chip").inner_text().startswith("series: ICLR")
    page.locator(".chips .chip").click()
    assert heading_count(page) == everything
    screenshot(page, "facet")


def test_page_through_a_venue(page):
    page.goto("/venues/big-2026")
    assert "Page 1 of 3" in page.locator(".pager").inner_text()
    with page.expect_navigation():  # count() does not wait: the next page must have loaded
        page.click("a[rel=next]")
    assert "Page 2 of 3" in page.locator(".pager").inner_text()
    assert page.locator("ol.papers").get_attribute("start") == "51"
    with page.expect_navigation():
        page.click("a[rel=next]")
    assert "Page 3 of 3" in page.locator(".pager").inner_text()
    assert page.locator("ol.papers li.paper").count() == 20
    screenshot(page, "venue-paging")


def test_paper_page_renders_math(page):
    page.goto("/search?q=%22k-parity%22")
    page.locator("ol.papers a.headline").first.click()
    math = page.locator("math").first
    math.wait_for()
    box = math.bounding_box()
    assert box and box["width"] > 0 and box["height"] > 0
    assert page.locator("math").count() >= 3
    assert "$k$" not in page.locator(".abstract").inner_text()
    screenshot(page, "math")


def test_keyboard_only(page):
    page.goto("/venues")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("grokking")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q=grokking"))
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "brand"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "q"
    screenshot(page, "keyboard")


@pytest.mark.parametrize("path", ["/", "/search?q=generalization", "/venues/icml-2026", "/saved",
                                  "/topics", "/help/search"])
def test_phone_viewport_has_no_horizontal_scrolling(browser, server, path):
    context = browser.new_context(base_url=server, viewport={"width": 390, "height": 844},
                                  is_mobile=True)
    page = context.new_page()
    page.goto(path)
    width = page.evaluate("document.documentElement.scrollWidth")
    screenshot(page, "phone-" + (re.sub(r"\W+", "-", path).strip("-") or "home"))
    context.close()
    assert width <= 390, (path, width)


BROWSING_PAGES = {"home": "/", "series": "/venues/alpha", "topics": "/topics",
                  "topic": "/topics/robotics", "trends": "/trends?q=kernel&q=transformer&q=robot",
                  "edition": "/venues/alpha-2016", "author": "/authors/grace-hopper",
                  "institution": "/institutions/eth-zurich", "country": "/countries/china",
                  "institutions": "/institutions?series=alpha&from=2014&to=2018"}
WITHOUT_CHARTS = {"topics", "institutions"}  # a matrix; a ranked table


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("name", list(BROWSING_PAGES))
def test_browsing_pages_fit_the_screen(browser, server, name, width):
    context = browser.new_context(base_url=server, viewport={"width": width, "height": 900},
                                  is_mobile=width < 500)
    page = context.new_page()
    page.goto(BROWSING_PAGES[name])
    overflow = page.evaluate("document.documentElement.scrollWidth")
    charts = page.locator("svg").count()
    headings = page.locator("h1").count()
    screenshot(page, f"browse-{name}-{width}")
    context.close()
    assert overflow <= width, (name, width, overflow)
    assert headings == 1 and (charts > 0 or name in WITHOUT_CHARTS)


def test_hostile_abstracts_never_run(page):
    for query in ["alert", "injection", "images", "math"]:
        page.goto(f"/search?q={query}&venue=hostile-2026")
        for link in page.locator("ol.papers a.headline").all():
            href = link.get_attribute("href")
            page.goto(href)
            page.wait_for_load_state("load")
            page.go_back()
    page.goto("/venues/hostile-2026")
    assert page.dialogs == []
    assert page.evaluate("document.querySelectorAll('script:not([src])').length") == 0
    screenshot(page, "hostile")


PAGE_TYPES = ["/", "/venues", "/venues/icml-2026", "/search?q=generalization", "/search",
              "/topics", "/topics/learning-theory", "/help/search", "/nowhere",
              "/venues/alpha", "/trends?q=kernel&q=transformer", "/search?q=grokking+federated",
              "/authors?q=hop", "/authors/grace-hopper", "/institutions", "/countries/china",
              "/search?q=&institution=eth-zurich"]


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (make test runs npm)")
@pytest.mark.parametrize("path", PAGE_TYPES + ["paper"])
def test_no_serious_accessibility_violations(browser, server, path):
    context = browser.new_context(base_url=server, bypass_csp=True)
    page = context.new_page()
    if path == "paper":
        page.goto("/search?q=%22k-parity%22")
        page.locator("ol.papers a.headline").first.click()
        page.wait_for_load_state("load")
    else:
        page.goto(path)
    serious = serious_violations(page)
    context.close()
    assert serious == [], serious


ACTIVE_MARKUP = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
    }
  }
  const foreign = 'img, svg:not([role=group]):not([role=img]), iframe, object, embed';
  for (const el of document.querySelectorAll(foreign)) {
    if (!el.matches('figure.paper-map > img')) found.push(el.tagName);  // the map: ours
  }
  for (const a of document.querySelectorAll('a[href]')) {
    const href = (a.getAttribute('href') || '').trim().toLowerCase();
    if (href.startsWith('javascript:')) found.push('javascript: ' + href);
  }
  return found;
}"""


def test_hostile_pages_hold_nothing_active_even_without_csp(browser, server):
    """With the CSP bypassed, only the escaping stands between an abstract and the reader."""
    context = browser.new_context(base_url=server, bypass_csp=True)
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto("/venues/hostile-2026")
    papers = [a.get_attribute("href") for a in page.locator("ol.papers a.headline").all()]
    assert len(papers) >= 4
    for path in ["/venues/hostile-2026", "/search?q=alert", "/search?q=images&venue=hostile-2026",
                 *papers, "/saved?ids=" + ",".join(p.rsplit("/", 1)[1] for p in papers)]:
        page.goto(path)
        page.wait_for_load_state("load")
        assert page.evaluate(ACTIVE_MARKUP) == [], path
        for link in page.locator("a[href^='javascript:' i]").all():
            link.click()
    assert dialogs == []
    context.close()


def test_the_api_explorer_works_offline_under_the_site_policy(page, server):
    """Swagger UI from the package, started by our own script: no inline script, nothing
    fetched from another address, no policy violation (issue 29, item 10)."""
    problems: list[str] = []
    foreign: list[str] = []
    page.on("console", lambda message: problems.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda request: foreign.append(request.url)
            if not request.url.startswith(server) else None)
    page.goto("/docs")
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() >= 20
    page.locator(".opblock-summary", has_text="/api/search").first.click()
    page.locator("button.try-out__btn").first.click()
    page.locator("button.execute").first.click()
    status = page.locator(".live-responses-table tr.response .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip().startswith("200")
    assert problems == [] and foreign == []
    screenshot(page, "api-docs")


@pytest.mark.parametrize(("url", "width", "box"), [
    ("/search?q=kernel", 390, "figure.wide-chart"),
    ("/trends?q=kernel&q=transformer", 390, "figure.wide-chart"),
    ("/topics", 1280, ".matrix-wrap"),
])
def test_charts_and_the_matrix_fit_without_sideways_scrolling(browser, server, url, width, box):
    """The year chart scales to a phone's width (it scrolled 589 px wide in 364); the
    topic × series matrix fits a 1280 px screen (issue 25)."""
    context = browser.new_context(base_url=server, viewport={"width": width, "height": 900},
                                  is_mobile=width < 500)
    page = context.new_page()
    page.goto(url)
    element = page.locator(box).first
    sizes = element.evaluate("e => [e.scrollWidth, e.clientWidth]")
    context.close()
    assert sizes[0] <= sizes[1], (url, width, sizes)
