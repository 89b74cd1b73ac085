"""Keyboard triage, seen marks and hidden papers in Chromium (issue 26): each key on a list
page and its effect, keys typed into a field doing nothing, and the marks kept in the browser."""

import json
import re

import pytest

from tests.browser.conftest import AXE, screenshot, serious_violations

BIG = "/venues/big-2026"  # 120 papers: three pages
ITEMS = "[data-paper]"


def current(page) -> str | None:  # type: ignore[no-untyped-def]
    """The paper ID of the item that has the focus and is marked current."""
    return page.evaluate("""() => {
        const item = document.activeElement.closest('[data-paper]');
        return item && item.getAttribute('aria-current') === 'true' ? item.dataset.paper : null;
    }""")


def visible_ids(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.evaluate(f"""Array.from(document.querySelectorAll('{ITEMS}'))
        .filter((item) => !item.hidden).map((item) => item.dataset.paper)""")


def stored(page, key: str) -> list:  # type: ignore[no-untyped-def]
    return json.loads(page.evaluate(f"localStorage.getItem('{key}') || '[]'"))


def test_j_and_k_move_a_focus_that_is_announced_and_scrolled_into_view(page):
    page.goto(BIG)
    ids = visible_ids(page)
    assert len(ids) > 20
    page.keyboard.press("k")  # nothing current yet: k starts at the last
    assert current(page) == ids[-1]
    page.keyboard.press("j")  # past the end: stays
    assert current(page) == ids[-1]
    page.goto(BIG)
    for _ in range(3):
        page.keyboard.press("j")
    assert current(page) == ids[2]
    page.keyboard.press("k")
    assert current(page) == ids[1]
    assert page.locator(f"{ITEMS}[aria-current]").count() == 1
    for _ in range(20):
        page.keyboard.press("j")
    assert current(page) == ids[21]
    box = page.locator(f"{ITEMS}.current").bounding_box()
    assert box["y"] >= 0 and box["y"] + 20 <= page.viewport_size["height"]
    screenshot(page, "triage-focus-1280")


@pytest.mark.parametrize("key", ["o", "Enter"])
def test_o_or_enter_opens_the_current_paper(page, key):
    page.goto(BIG)
    page.keyboard.press("j")
    page.keyboard.press("j")
    second = visible_ids(page)[1]
    page.keyboard.press(key)
    page.wait_for_url(re.compile(rf"/papers/{second}$"))


def test_s_saves_and_unsaves_as_the_button_does(page):
    page.goto(BIG)
    page.keyboard.press("j")
    first = current(page)
    page.keyboard.press("s")
    assert page.locator("#saved-link").inner_text() == "Saved (1)"
    button = page.locator(f'button[data-save="{first}"]')
    assert button.get_attribute("aria-pressed") == "true"
    assert [item["id"] for item in stored(page, "catalog.saved")] == [first]
    page.keyboard.press("s")
    assert page.locator("#saved-link").inner_text() == "Saved (0)"
    assert button.get_attribute("aria-pressed") == "false"


def test_x_hides_for_this_list_u_undoes_and_one_click_shows_them_again(page):
    page.goto(BIG)
    ids = visible_ids(page)
    page.keyboard.press("j")
    page.keyboard.press("x")
    assert visible_ids(page) == ids[1:]
    assert current(page) == ids[1]  # the focus moves on to the next paper
    page.keyboard.press("x")
    page.keyboard.press("x")
    assert visible_ids(page) == ids[3:]
    assert page.locator(".hidden-bar").inner_text() == "3 hidden — Show them"
    page.keyboard.press("u")
    assert visible_ids(page) == [ids[2], *ids[3:]]
    assert current(page) == ids[2]
    page.reload()  # remembered in this browser, for this list
    assert visible_ids(page) == ids[2:]
    assert page.locator(".hidden-bar").inner_text() == "2 hidden — Show them"
    page.goto(f"/search?q=sparse+attention&venue={BIG.rsplit('/', 1)[1]}")
    assert ids[0] in visible_ids(page)  # another list shows them
    page.goto(BIG)
    page.get_by_role("button", name="Show them").click()
    assert visible_ids(page) == ids
    assert page.locator(".hidden-bar").is_hidden()
    assert stored(page, "catalog.hidden") == []


def test_n_and_p_go_to_the_next_and_previous_page(page):
    page.goto(BIG)
    page.keyboard.press("n")
    page.wait_for_url(re.compile(r"page=2"))
    page.keyboard.press("n")
    page.wait_for_url(re.compile(r"page=3"))
    page.keyboard.press("n")  # the last page: no next
    page.keyboard.press("p")
    page.wait_for_url(re.compile(r"page=2"))


def test_question_mark_shows_the_keys(page):
    page.goto(BIG)
    help_box = page.locator("#keys-help")
    assert help_box.is_hidden()
    page.keyboard.press("?")
    assert help_box.is_visible()
    assert "j / k" in help_box.inner_text()
    page.keyboard.press("j")  # keys wait while the help is open
    assert current(page) is None
    page.keyboard.press("Escape")
    assert help_box.is_hidden()
    page.get_by_role("button", name="Keyboard shortcuts").click()
    assert help_box.is_visible()
    page.get_by_role("button", name="Close").click()
    assert help_box.is_hidden()


def test_keys_typed_into_the_search_box_trigger_nothing(page):
    page.goto(BIG)
    page.keyboard.press("/")
    page.keyboard.type("jjkosxun?p")
    assert page.input_value("#q") == "jjkosxun?p"
    assert current(page) is None
    assert page.locator("#keys-help").is_hidden()
    assert page.locator("#saved-link").inner_text() == "Saved (0)"
    assert stored(page, "catalog.hidden") == [] and page.url.endswith(BIG)
    page.keyboard.press("Control+a")
    page.keyboard.type("sparse")
    page.keyboard.press("Enter")  # Enter in the box searches, as always
    page.wait_for_url(re.compile(r"/search\?q=sparse"))


def test_related_papers_are_a_list_too(page):
    page.goto(BIG)
    page.keyboard.press("j")
    page.keyboard.press("o")
    page.wait_for_url(re.compile(r"/papers/"))
    related = page.locator("section.related [data-paper]")
    assert related.count() > 0
    page.keyboard.press("j")
    assert current(page) == related.first.get_attribute("data-paper")


def test_opened_papers_are_marked_seen_counted_and_cleared(page):
    page.goto(BIG)
    ids = visible_ids(page)
    for n in (1, 2):
        for _ in range(n):
            page.keyboard.press("j")
        page.keyboard.press("o")
        page.wait_for_url(re.compile(r"/papers/"))
        page.go_back()
    seen = page.locator(f"{ITEMS}.seen")
    assert [item.get_attribute("data-paper") for item in seen.all()] == ids[:2]
    assert page.locator(f'[data-paper="{ids[0]}"] .seen-mark').inner_text() == "seen"
    page.reload()
    assert page.locator("#seen-count").inner_text() == "2 of 120 seen in this browser"
    assert [entry[0] for entry in stored(page, "catalog.seen")] == [ids[1], ids[0]]
    page.goto("/venues/icml-2026")  # another edition: none of its papers opened
    assert page.locator("#seen-count").is_hidden()
    page.goto("/saved")
    assert page.locator("#seen-total").inner_text().startswith("You have opened 2 papers")
    page.get_by_role("button", name="Clear seen marks").click()
    assert stored(page, "catalog.seen") == []
    page.goto(BIG)
    assert page.locator(f"{ITEMS}.seen").count() == 0


def test_seen_marks_reach_another_tab(page):
    page.goto(BIG)
    other = page.context.new_page()
    other.goto(BIG)
    page.keyboard.press("j")
    page.keyboard.press("o")
    page.wait_for_url(re.compile(r"/papers/"))
    opened = page.url.rsplit("/", 1)[1]
    other.wait_for_selector(f'[data-paper="{opened}"].seen')
    assert other.locator("#seen-count").inner_text() == "1 of 120 seen in this browser"


def test_seen_marks_are_bounded(page):
    page.goto(BIG)
    limit = int(page.evaluate("document.body.dataset.seenMax"))
    page.evaluate("""(limit) => localStorage.setItem('catalog.seen', JSON.stringify(
        Array.from({length: limit}, (_, i) => [i.toString(16).padStart(16, '0'), 'x'])))""",
                  limit)
    page.keyboard.press("j")
    page.keyboard.press("o")
    page.wait_for_url(re.compile(r"/papers/"))
    entries = stored(page, "catalog.seen")
    assert len(entries) == limit
    assert entries[0][0] == page.url.rsplit("/", 1)[1]


def test_from_the_home_page_to_a_saved_list_without_a_mouse(page):
    page.goto("/")
    page.keyboard.press("/")
    page.keyboard.type("sparse attention")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q=sparse"))
    page.keyboard.press("j")
    page.keyboard.press("s")
    page.keyboard.press("j")
    page.keyboard.press("s")
    wanted = [item["id"] for item in stored(page, "catalog.saved")]
    assert len(wanted) == 2
    page.keyboard.press("/")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "saved-link":
            break
    else:
        pytest.fail("the Saved link is not reachable with Tab from the search box")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    page.keyboard.press("j")
    assert current(page) in wanted
    shown = page.locator("ol.papers:not(.recommended) > li").evaluate_all(
        "items => items.map((item) => item.dataset.paper)")
    assert sorted(shown) == sorted(wanted)


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (make test runs npm)")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_marks_focus_and_help_pass_axe_in_both_themes(browser, server, scheme):
    context = browser.new_context(base_url=server, bypass_csp=True, color_scheme=scheme)
    page = context.new_page()
    page.goto(BIG)
    page.keyboard.press("j")
    page.keyboard.press("o")
    page.wait_for_url(re.compile(r"/papers/"))
    page.go_back()
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.reload()
    page.keyboard.press("j")
    assert page.locator(f"{ITEMS}.seen").count() == 1 and page.locator(".hidden-bar").is_visible()
    list_violations = serious_violations(page)
    screenshot(page, f"triage-{scheme}-1280")
    page.keyboard.press("?")
    help_violations = serious_violations(page)
    screenshot(page, f"triage-help-{scheme}-1280")
    context.close()
    assert list_violations == [] and help_violations == [], (list_violations, help_violations)
