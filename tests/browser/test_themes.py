"""Dark and light themes and print, in Chromium (issue 26): the system's preference is
followed until the reader chooses, the choice is kept, both themes pass axe, and a paper
prints without navigation."""

import pytest

from tests.browser.conftest import AXE, screenshot, serious_violations
from tests.browser.test_flows import PAGE_TYPES

BACKGROUND = "getComputedStyle(document.documentElement).backgroundColor"


def themed_page(browser, server, scheme: str, width: int = 1280):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=server, color_scheme=scheme,
                                  viewport={"width": width, "height": 900})
    return context, context.new_page()


def open_paper(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/search?q=%22k-parity%22")
    page.locator("ol.papers a.headline").first.click()
    page.wait_for_load_state("load")


@pytest.mark.parametrize(("scheme", "theme", "background"), [
    ("dark", "dark", "rgb(20, 23, 29)"), ("light", "light", "rgb(255, 255, 255)")])
def test_the_system_preference_is_followed(browser, server, scheme, theme, background):
    context, page = themed_page(browser, server, scheme)
    page.goto("/")
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    assert page.evaluate(BACKGROUND) == background
    pressed = page.get_by_role("button", name="Dark").get_attribute("aria-pressed")
    assert pressed == ("true" if theme == "dark" else "false")
    context.close()


def test_the_readers_choice_is_kept_across_pages_and_tabs(browser, server):
    context, page = themed_page(browser, server, "dark")
    page.goto("/venues")
    toggle = page.get_by_role("button", name="Dark")
    toggle.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert toggle.get_attribute("aria-pressed") == "false"
    page.goto("/topics")
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    other = context.new_page()
    other.goto("/")
    assert other.evaluate("document.documentElement.dataset.theme") == "light"
    other.get_by_role("button", name="Dark").click()
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    context.close()


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (make test runs npm)")
@pytest.mark.parametrize("path", PAGE_TYPES + ["paper"])
def test_no_serious_accessibility_violations_in_the_dark(browser, server, path):
    context = browser.new_context(base_url=server, bypass_csp=True, color_scheme="dark")
    page = context.new_page()
    if path == "paper":
        open_paper(page)
    else:
        page.goto(path)
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    serious = serious_violations(page)
    context.close()
    assert serious == [], serious


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_screenshots_in_both_themes(browser, server, scheme, width):
    context, page = themed_page(browser, server, scheme, width)
    for name, path in (("home", "/"), ("search", "/search?q=generalization"),
                       ("edition", "/venues/icml-2026")):
        page.goto(path)
        screenshot(page, f"theme-{scheme}-{name}-{width}")
    open_paper(page)
    screenshot(page, f"theme-{scheme}-paper-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


def test_a_paper_prints_as_abstract_metadata_and_bibtex(browser, server):
    context, page = themed_page(browser, server, "light")
    open_paper(page)
    page.emulate_media(media="print")
    for hidden in ("header.site-header", "footer.site-footer", "nav", "button"):
        assert all(not element.is_visible() for element in page.locator(hidden).all()), hidden
    assert page.locator("h1").is_visible()
    assert page.locator(".abstract").is_visible()
    assert page.get_by_text("@inproceedings").is_visible()
    assert page.pdf(format="A4")[:4] == b"%PDF"
    context.close()
