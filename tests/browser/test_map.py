"""The map of the papers in Chromium (issue 24): the papers drawn over the field, a title on
hover, a click opens the paper, a dragged box lists papers, and the image without script."""

import re

from tests.browser.conftest import screenshot

EDITION = "/venues/icml-2026"


def point_on_screen(page, paper: dict) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Where the map draws a paper, in the page's pixels (app/map/drawing.py's formula)."""
    figure = page.locator("figure.paper-map")
    page.locator("canvas.map-canvas").scroll_into_view_if_needed()
    size, margin = (int(figure.get_attribute(f"data-{name}")) for name in ("size", "margin"))
    box = page.locator("canvas.map-canvas").bounding_box()
    inner = size - 2 * margin - 1
    scale = box["width"] / size
    return (box["x"] + (margin + paper["x"] * inner) * scale,
            box["y"] + (margin + (1 - paper["y"]) * inner) * scale)


def test_hover_click_and_box(page):
    page.goto(EDITION)
    page.wait_for_selector("canvas.map-canvas")
    painted = page.evaluate("""() => {
        const canvas = document.querySelector('canvas.map-canvas');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0; for (let i = 3; i < data.length; i += 4) n += data[i] > 0; return n; }""")
    assert painted > 0
    papers = page.evaluate("async () => (await (await fetch('/api/map?venue=icml-2026')).json())"
                           ".papers")
    x, y = point_on_screen(page, papers[0])
    page.mouse.move(x, y)
    tip = page.locator(".map-tip")
    tip.wait_for(state="visible")
    assert tip.inner_text()
    screenshot(page, "map-hover-1280")
    box = page.locator("canvas.map-canvas").bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)
    page.mouse.up()
    selection = page.locator(".map-selection")
    selection.wait_for(state="visible")
    assert re.match(rf"{len(papers)} papers in the box", selection.inner_text())
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(r"/papers/[0-9a-f]{16}$"))


def test_colour_by_year_redraws(page):
    page.goto(EDITION)
    page.wait_for_selector("canvas.map-canvas")
    pixels = "() => document.querySelector('canvas.map-canvas').toDataURL()"
    before = page.evaluate(pixels)
    page.select_option(".map-colour", "year")
    assert page.evaluate(pixels) != before


def test_without_javascript_the_image_shows_the_papers(browser, server):
    context = browser.new_context(base_url=server, java_script_enabled=False)
    page = context.new_page()
    page.goto(EDITION)
    image = page.locator("figure.paper-map img")
    assert image.get_attribute("src") == "/map.png?venue=icml-2026"
    page.wait_for_function("document.querySelector('figure.paper-map img').complete")
    assert page.evaluate("document.querySelector('figure.paper-map img').naturalWidth") == 640
    context.close()
