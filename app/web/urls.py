"""Where things live: the paths of papers, venues (editions and series), topics and authors,
and search URLs, whose whole result-list state lives in the query string so lists are
shareable. Templates, charts, the sitemap and the page cache build paths only here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from urllib.parse import quote, urlencode

from starlette.requests import Request

from app.models import Paper
from app.search.results import SearchRequest

PAPERS, VENUES, TOPICS, SEARCH, TRENDS = ("/papers", "/venues", "/topics", "/search", "/trends")
# Where the profiles of each kind (app/people/) live.
PROFILES = {"author": "/authors", "institution": "/institutions", "country": "/countries"}
# The HTML pages (rendered once per catalog version by the page cache), by path prefix.
PAGE_PREFIXES = (VENUES, PAPERS + "/", TOPICS, SEARCH, TRENDS,
                 *(base + "/" for base in PROFILES.values()))
_DEFAULTS = {f.name: f.default for f in fields(SearchRequest)}
# A query longer than this (a pasted text) is carried once per results page, by a form that
# its filters, sort, pages and downloads submit, not in each of their links: a 10.8 KB query
# was repeated ~100 times, a page of 1.08 MB. Shorter ones keep their links.
CARRIED_ONCE = 500  # characters


def _path(base: str, name: str, params: dict[str, object]) -> str:
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"{base}/{quote(name, safe='')}" + (f"?{query}" if query else "")


def paper_path(paper_id: str) -> str:
    return _path(PAPERS, paper_id, {})


def related_path(paper_id: str) -> str:
    """More papers like a paper than its page shows, to filter (app/web/likeness.py)."""
    return f"{paper_path(paper_id)}/related"


def venue_path(slug: str, **params: object) -> str:
    """An edition's page (neurips-2018) or a series' (neurips)."""
    return _path(VENUES, slug, params)


def topic_path(slug: str, **params: object) -> str:
    return _path(TOPICS, slug, params)


def profile_path(kind: str, slug: str, **params: object) -> str:
    """The page of an author, an institution or a country."""
    return _path(PROFILES[kind], slug, params)


def paper_url_for(request: Request) -> Callable[[Paper], str]:
    """Absolute URLs of paper pages at the address the request came to (exports, citation
    tags and JSON carry them)."""
    base = str(request.url_for("paper", paper_id="x"))[:-1]
    return lambda paper: base + paper.id


def search_path(q: str, **filters: object) -> str:
    """A search for `q` with facet filters (series=, venue=, year=, ...)."""
    return f"{SEARCH}?{search_query_string(SearchRequest(q=q, **filters))}"


def trends_path(*queries: str) -> str:
    return f"{TRENDS}?{urlencode([('q', q) for q in queries])}"


def search_query_string(request: SearchRequest, **changes: object) -> str:
    """The query string for `request` with `changes`; any change of filter resets the page."""
    return urlencode(search_params(request, **changes))


def search_params(request: SearchRequest, **changes: object) -> dict[str, object]:
    """The parameters of `request` with `changes` that differ from their defaults (what its
    query string holds)."""
    if changes and "page" not in changes:
        changes["page"] = 1
    if unknown := changes.keys() - _DEFAULTS.keys():
        raise TypeError(f"not a search field: {sorted(unknown)}")
    # Every field is a plain value: asdict's deep copy cost a search page ~4 % of its time.
    state = {key: changes[key] if key in changes else getattr(request, key) for key in _DEFAULTS}
    return {key: value for key, value in state.items()
            if value not in (None, "") and value != _DEFAULTS[key]}
