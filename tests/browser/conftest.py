"""A real server on 127.0.0.1 and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import PROJECT_ROOT
from tests.conftest import Catalog, make_catalog, write_list
from tests.multiseries import write_corpus
from tests.servers import running_server

# Debian's headless shell: the same Chromium, without the full browser that `--headless` starts
# since Chromium 132 (Playwright's own headless default is the shell as well). The suite's 122
# browser tests took Chromium 183 → 75 s of CPU and 129 → 85 s wall (docs/testing.md).
CHROMIUM = (shutil.which("chromium-headless-shell") or shutil.which("chromium")
            or "/usr/bin/chromium-headless-shell")
AXE = PROJECT_ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
BAD = PROJECT_ROOT / "tests" / "data" / "bad"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium-headless-shell is not installed (make test installs it with "
                "apt-get)",
                allow_module_level=True)


@pytest.fixture(scope="session")
def browser_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The seeds, a 120-paper venue to page through, the hostile files that load, and the
    generated series over the years (tests/multiseries.py)."""
    catalog = make_catalog(tmp_path_factory.mktemp("browser"))
    big = write_list(tmp_path_factory.mktemp("big") / "big.txt", "BIG 2026 Papers",
                     *(f"Paper {i} on sparse attention and kernel methods." for i in range(120)))
    generated = tmp_path_factory.mktemp("generated")
    write_corpus(generated)
    catalog.ingest(big, generated, *(BAD / name for name in ("script.txt", "javascript_link.txt",
                                                             "img_onerror.txt", "tex_href.txt")))
    return catalog


@pytest.fixture(scope="session")
def server(browser_catalog: Catalog) -> Iterator[str]:
    with running_server(browser_catalog.env()) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=FLAGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, server):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()


def screenshot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """What the reader sees first, to look at after a run. Not the full page: painting pages
    10,000 px tall took Chromium 0.6 s of CPU a screenshot, 35 s over the suite."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def serious_violations(page) -> list[tuple[str, str, list[object]]]:  # type: ignore[no-untyped-def]
    """axe-core's serious and critical findings on the page as it stands."""
    page.evaluate(AXE.read_text())
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def fits_the_screen(page) -> bool:  # type: ignore[no-untyped-def]
    return not page.evaluate("document.documentElement.scrollWidth > "
                             "document.documentElement.clientWidth")
