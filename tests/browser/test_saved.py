"""The reading list in Chromium: save while browsing, keep, share, move, cite."""

import json
import re

import bibtexparser
import pytest

from tests.browser.conftest import AXE, fits_the_screen, screenshot, serious_violations

SAVE = re.compile(r"^Save")
LISTED = "ol.papers:not(.recommended) > li"


def saved_ids(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [item["id"] for item in json.loads(
        page.evaluate("localStorage.getItem('catalog.saved') || '[]'"))]


def save_from_search(page, query: str, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    page.goto(f"/search?q={query}")
    hits = page.locator("ol.papers > li")
    ids = []
    for i in range(count):
        button = hits.nth(i).get_by_role("button", name=SAVE)
        button.click()
        assert button.get_attribute("aria-pressed") == "true"
        assert button.inner_text().startswith("Saved")
        ids.append(button.get_attribute("data-save"))
    return ids


def test_save_from_search_and_paper_page_then_reload(page):
    ids = save_from_search(page, "generalization", 2)
    assert page.locator("#saved-link").inner_text() == "Saved (2)"
    page.locator("ol.papers a.headline").nth(4).click()
    page.wait_for_url(re.compile(r"/papers/"))
    own = page.locator(".paper-actions").get_by_role("button", name=SAVE)
    assert own.get_attribute("aria-pressed") == "false" and own.inner_text().startswith("Save")
    own.click()
    assert page.locator("#saved-link").inner_text() == "Saved (3)"
    page.reload()
    assert own.get_attribute("aria-pressed") == "true"
    assert page.locator("#saved-link").inner_text() == "Saved (3)"
    newest = page.url.rsplit("/", 1)[1]
    assert saved_ids(page) == [newest, *reversed(ids)]
    # Related papers carry the button too.
    assert page.locator("section.related").get_by_role("button", name=SAVE).count() >= 1
    page.goto("/saved")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    shown = [a.get_attribute("href").rsplit("/", 1)[1]
             for a in page.locator(f"{LISTED} a.headline").all()]
    assert shown == [newest, *reversed(ids)]  # newest first
    assert page.locator("ol.recommended > li").count() > 0
    screenshot(page, "saved-1280")


def test_another_tab_sees_the_list_change(browser, server):
    context = browser.new_context(base_url=server)
    first, second = context.new_page(), context.new_page()
    first.goto("/venues/icml-2026")
    second.goto("/venues/icml-2026")
    first.get_by_role("button", name=SAVE).first.click()
    second.wait_for_function("document.getElementById('saved-count').textContent === ' (1)'")
    assert second.get_by_role("button", name=SAVE).first.get_attribute("aria-pressed") == "true"
    context.close()


def test_remove_clear_and_move_the_list_through_a_file(page, tmp_path):
    ids = save_from_search(page, "diffusion", 3)
    page.goto("/saved")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    page.get_by_role("button", name=re.compile("^Remove")).first.click()
    page.wait_for_function("document.querySelectorAll('ol.papers:not(.recommended) > li')"
                           ".length === 2")
    assert saved_ids(page) == [ids[1], ids[0]]
    assert page.locator("#saved-link").inner_text() == "Saved (2)"
    with page.expect_download() as download:
        page.get_by_role("button", name="Export list (JSON)").click()
    exported = tmp_path / "list.json"
    download.value.save_as(exported)
    body = json.loads(exported.read_text())
    assert [p["id"] for p in body["papers"]] == [ids[1], ids[0]]
    page.get_by_role("button", name="Clear list…").click()
    assert page.evaluate("document.activeElement.id") == "saved-clear-no"
    page.get_by_role("button", name="Keep my list").click()
    assert saved_ids(page) == [ids[1], ids[0]]
    page.get_by_role("button", name="Clear list…").click()
    screenshot(page, "saved-clear")
    page.get_by_role("button", name="Yes, clear my list").click()
    page.wait_for_url(re.compile(r"/saved$"))
    assert saved_ids(page) == [] and page.locator("#saved-link").inner_text() == "Saved (0)"
    assert page.dialogs == []  # the confirmation is on the page, not a confirm() dialog
    page.set_input_files("#saved-import", str(exported))
    page.wait_for_url(re.compile(r"/saved\?ids="))
    assert saved_ids(page) == [ids[1], ids[0]]
    assert page.locator(LISTED).count() == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"papers": [{"id": "<img src=x onerror=alert(1)>"}]}')
    page.set_input_files("#saved-import", str(bad))
    page.wait_for_function(  # the file is read asynchronously
        "document.getElementById('saved-status').textContent.includes('nothing imported')")
    assert saved_ids(page) == [ids[1], ids[0]]
    page.get_by_role("button", name="Clear list…").click()
    page.get_by_role("button", name="Yes, clear my list").click()
    page.wait_for_url(re.compile(r"/saved$"))
    numeric = tmp_path / "numeric.json"
    numeric.write_text(json.dumps([{"id": ids[0], "saved_at": 1}, {"id": ids[1], "saved_at": 2},
                                   {"id": "nope"}]))
    page.set_input_files("#saved-import", str(numeric))
    page.wait_for_url(re.compile(r"/saved\?ids="))
    assert saved_ids(page) == [ids[1], ids[0]]


def test_a_shared_list_opens_without_javascript_and_can_be_added(browser, server):
    context = browser.new_context(base_url=server)
    page = context.new_page()
    ids = save_from_search(page, "attention", 2)
    shared = f"/saved?ids={','.join(ids)}"
    context.close()
    plain = browser.new_context(base_url=server, java_script_enabled=False)
    page = plain.new_page()
    page.goto(shared)
    shown = [a.get_attribute("href").rsplit("/", 1)[1]
             for a in page.locator(f"{LISTED} a.headline").all()]
    assert shown == ids
    assert page.locator("button[data-save]:visible").count() == 0
    assert page.locator("ol.recommended > li").count() > 0
    with page.expect_download() as download:
        page.get_by_role("link", name="BibTeX").click()
    library = bibtexparser.parse_string(download.value.path().read_text(encoding="utf-8"))
    assert not library.failed_blocks and len(library.entries) == 2
    plain.close()
    colleague = browser.new_context(base_url=server)
    page = colleague.new_page()
    page.goto(shared)
    add = page.get_by_role("button", name=re.compile("^Add these 2"))
    add.click()
    assert saved_ids(page) == ids
    assert page.locator("#saved-link").inner_text() == "Saved (2)"
    colleague.close()


def test_keyboard_only_saving(page):
    page.goto("/search?q=generalization")
    page.evaluate("document.activeElement.blur()")
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.save !== undefined"):
            break
    else:
        pytest.fail("no Save button is reachable with Tab")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"
    page.keyboard.press(" ")
    assert page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "false"
    page.keyboard.press("Enter")
    assert len(saved_ids(page)) == 1


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (make test runs npm)")
def test_saved_page_has_no_serious_accessibility_violations(browser, server):
    context = browser.new_context(base_url=server, bypass_csp=True)
    page = context.new_page()
    save_from_search(page, "generalization", 3)
    page.goto("/saved")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    page.get_by_role("button", name="Clear list…").click()
    serious = serious_violations(page)
    context.close()
    assert serious == [], serious


def test_saved_list_fits_a_phone(browser, server):
    context = browser.new_context(base_url=server, viewport={"width": 390, "height": 844},
                                  is_mobile=True)
    page = context.new_page()
    save_from_search(page, "generalization", 3)
    page.goto("/saved")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    assert fits_the_screen(page)
    screenshot(page, "saved-390")
    context.close()


def test_less_like_this_is_kept_with_the_list_and_taken_back(page):
    """A recommendation marked "less like this" leaves, its mark stays when the reader's list
    reopens (from the header's link, after saving another paper), and "undo" takes it back."""
    save_from_search(page, "generalization", 2)
    page.goto("/saved")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    first = page.locator("ol.recommended > li").first
    marked = first.get_attribute("data-paper")
    first.get_by_role("link", name="Less like this").click()
    page.wait_for_url(re.compile(rf"less={marked}"))
    assert page.locator(f'ol.recommended > li[data-paper="{marked}"]').count() == 0
    assert page.locator("#less-marked a").count() == 1  # its undo
    page.goto("/")
    page.locator("#saved-link").click()
    page.wait_for_url(re.compile(rf"/saved\?ids=.*less={marked}"))
    assert page.locator(f'ol.recommended > li[data-paper="{marked}"]').count() == 0
    page.locator("#less-marked").get_by_role("link", name=re.compile("undo|Take back")).click()
    page.wait_for_url(re.compile(r"/saved\?ids="))
    assert "less=" not in page.url
    page.goto("/saved")
    page.wait_for_url(re.compile(r"/saved\?ids="))
    assert "less=" not in page.url
