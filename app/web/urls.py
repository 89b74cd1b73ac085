"""Search URLs: the whole result-list state lives in the query string, so lists are shareable."""

from __future__ import annotations

from dataclasses import asdict, replace
from urllib.parse import urlencode

from app.search.results import SearchRequest

_DEFAULTS = asdict(SearchRequest())


def search_query_string(request: SearchRequest, **changes: object) -> str:
    """The query string for `request` with `changes`; any change of filter resets the page."""
    if changes and "page" not in changes:
        changes["page"] = 1
    state = asdict(replace(request, **changes))  # type: ignore[arg-type]
    params = {key: value for key, value in state.items()
              if value not in (None, "") and value != _DEFAULTS[key]}
    return urlencode(params)
