"""Jinja2 set-up: one environment, the templates directory, shared globals."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import FileSystemBytecodeCache
from jinja2.bccache import Bucket
from markupsafe import Markup, escape

from app.config import PROJECT_ROOT
from app.exports import WRITERS, coins, paper_title
from app.ids import MAX_LISTED, PAPER_ID, name_slug
from app.ingest.normalize import title_html
from app.map import drawing
from app.map.layout import opened_layout
from app.search.query.pasted import MAX_TEXT_CHARS
from app.topics import load_taxonomy
from app.web.assets import static_url
from app.web.urls import (
    paper_path,
    profile_path,
    related_path,
    search_path,
    topic_path,
    trends_path,
    venue_path,
)

templates = Jinja2Templates(directory=str(PROJECT_ROOT / "templates"))
# Templates ship with the code: checking each one's file time on every render was 4 % of a
# worker's time under load (profiled). A changed template needs a restart.
templates.env.auto_reload = False


class _CompiledTemplates(FileSystemBytecodeCache):
    """The templates as one process compiled them, for the next to load: compiling all of them
    took each worker 0.27 s of its start, loading them 0.01 s. In the system's temporary
    directory (Jinja's, one per user); a stale file is known by its source's checksum and
    compiled again. A store that cannot be read or written (a full or damaged disk) only costs
    the compiling."""

    def load_bytecode(self, bucket: Bucket) -> None:
        with suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        with suppress(OSError):
            super().dump_bytecode(bucket)


with suppress(OSError, RuntimeError):  # no temporary directory of this user's to keep them in
    templates.env.bytecode_cache = _CompiledTemplates()


def topic_name(slug: str) -> str:
    topic = load_taxonomy().topic(slug)
    return topic.name if topic else slug


def headline_html(paper: Any) -> Markup:
    """A paper's headline as HTML: a title's math as MathML, as in abstracts."""
    title = getattr(paper, "title", "")
    return Markup(title_html(title)) if title else escape(paper.headline)


# A paper's second topic is shown in lists when it scores at least this share of the primary's:
# a paper between two areas is found under either.
CLOSE_SECOND = 0.8


def close_second(paper: Any) -> str | None:
    """The slug of the paper's second topic when it is close to the primary one."""
    ranked = paper.topic_list
    if len(ranked) > 1 and ranked[0][1] > 0 and ranked[1][1] >= CLOSE_SECOND * ranked[0][1]:
        return ranked[1][0]
    return None


def percent(share: float) -> str:
    """A share as a percentage to one decimal; a share that rounds to 0 but is not reads
    "<0.1%", so that a handful of papers never reads as none."""
    if 0 < share < 0.0005:
        return "<0.1%"
    return f"{100 * share:.1f}%"


templates.env.filters["headline_html"] = headline_html
templates.env.filters["percent"] = percent
templates.env.globals["topic_name"] = topic_name
templates.env.globals["close_second"] = close_second
templates.env.globals["name_slug"] = name_slug
templates.env.globals["static_url"] = static_url
templates.env.globals["coins"] = coins
templates.env.globals["paper_title"] = paper_title
# The search boxes take a pasted abstract whole (search reads up to this much of a pasted text;
# a query of words it cuts far sooner, and says so): a box of 500 cut every abstract pasted.
templates.env.globals["query_max"] = MAX_TEXT_CHARS
# What a reader's browser keeps (static/app.js reads them from <body data-…>): the bounds and
# the ID pattern the server checks, said once.
templates.env.globals["browser_limits"] = {
    "paper-id": PAPER_ID.pattern, "saved-max": MAX_LISTED, "seen-max": 20_000, "hidden-max": 5_000,
}
for path in (paper_path, related_path, venue_path, topic_path, profile_path, search_path,
             trends_path):
    templates.env.globals[path.__name__] = path


def map_ready(request: Request) -> bool:
    """Whether the live index has its map (app/map/drawing.py): pages show it from then on."""
    return request.app.state.search.with_index(
        lambda current: opened_layout(current.parts) is not None, False)


templates.env.globals["map_ready"] = map_ready
templates.env.globals["map_size"] = drawing.SIZE
templates.env.globals["map_margin"] = drawing.MARGIN


def map_legend() -> list[tuple[str, str]]:
    """The map's topic colours, as map/routes.chosen_points and the palette give them (the
    taxonomy's order, the palette cycled): each topic's name and its "#rrggbb"."""
    colours = drawing.palette()
    return [(topic.name, colours[i % len(colours)])
            for i, topic in enumerate(load_taxonomy().topics)]


templates.env.globals["map_legend"] = map_legend


def compile_templates() -> None:
    """Compile every template now (0.2 s at start), not in the first request for each page."""
    for name in templates.env.list_templates(extensions=["html"]):
        templates.env.get_template(name)


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def error_response(request: Request, status: int, message: str,
                   retry_after: str | None = None) -> Response:
    """The error in the format the address asks for: JSON under /api/ and for a JSON download,
    plain text for the other downloads (what a script reading a CSV or a reference manager
    reading BibTeX can show), else a page in the site's layout (which, told when to ask
    again, reloads itself then)."""
    asked = _download_format(request)
    if request.url.path.startswith("/api/") or asked == "json":
        return JSONResponse({"error": message, "status": status}, status_code=status)
    if asked is not None:
        return PlainTextResponse(f"{message}\n", status_code=status)
    if status == 404 and message == "Not Found":
        message = "There is no page at this address."
    return render(request, "error.html", status_code=status, status=status, message=message,
                  retry_after=retry_after)


def _download_format(request: Request) -> str | None:
    """The download format the address names, as a page's routes read it (formats.answer):
    its suffix (`/search.csv`) or `?format=`. Read from the address itself, as an error can
    come before any route has matched, or from outside the router (a 500)."""
    name = request.url.path.rpartition("/")[2]
    stem, dot, suffix = name.rpartition(".")
    asked = suffix if dot and stem else request.query_params.get("format")
    return asked if asked in WRITERS else None
