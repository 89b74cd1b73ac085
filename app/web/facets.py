"""The search page's filters: facet values with their labels, links and selected state, and
the chips of the filters in effect.

At 88,000 papers a query matches papers of ~60 editions; the sidebar shows conferences
first (the ten largest, the rest behind "show all"), years as a compact histogram, and
editions only once a conference or an edition is chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.search.results import SearchRequest, SearchResult
from app.web.render import topic_name
from app.web.urls import search_query_string

TOP_VALUES = 10
TITLES = {"series": "Conference", "venue": "Edition", "topic": "Topic", "status": "Status",
          "has": "Code"}


@dataclass(frozen=True)
class FacetValue:
    value: object
    label: str
    count: int
    url: str  # selects the value, or removes it when it is selected
    selected: bool


@dataclass(frozen=True)
class Facet:
    name: str
    title: str
    values: list[FacetValue]

    @property
    def head(self) -> list[FacetValue]:
        """The values shown at once: the largest, and any selected one."""
        return [v for i, v in enumerate(self.values) if i < TOP_VALUES or v.selected]

    @property
    def rest(self) -> list[FacetValue]:
        return [v for i, v in enumerate(self.values) if i >= TOP_VALUES and not v.selected]


@dataclass(frozen=True)
class YearBar:
    year: int
    count: int
    height: int  # percent of the tallest bar
    url: str
    selected: bool


def _url(request: SearchRequest, name: str, value: object, selected: bool) -> str:
    removed = None if name == "year" else ""
    return "?" + search_query_string(request, **{name: removed if selected else value})


def sidebar(result: SearchResult, label: Callable[[str, object], str]) -> list[Facet]:
    """The facets to show, in order, each value labelled by `label(facet, value)`."""
    request = result.request
    chosen = request.filters()
    names = ["series", *(["venue"] if request.series or request.venue else []),
             "topic", "status", "has"]
    facets = []
    for name in names:
        counts = result.facets.get(name, [])
        if not counts:
            continue
        facets.append(Facet(name, TITLES[name], [
            FacetValue(value, label(name, value), count,
                       _url(request, name, value, chosen.get(name) == value),
                       chosen.get(name) == value)
            for value, count in counts]))
    return facets


@dataclass(frozen=True)
class Chip:
    """A filter in effect, shown above the results with a link that removes it."""

    name: str
    text: str  # "series: NeurIPS", "Has code"
    remove_url: str


def chips(request: SearchRequest, label: Callable[[str, object], str]) -> list[Chip]:
    return [Chip(name, label(name, value) if name == "has" else f"{name}: {label(name, value)}",
                 _url(request, name, value, selected=True))
            for name, value in request.filters().items()]


def year_histogram(result: SearchResult) -> list[YearBar]:
    """The matches per year, oldest first, as bars relative to the busiest year."""
    counts = sorted((int(str(year)), count) for year, count in result.facets.get("year", []))
    top = max((count for _, count in counts), default=0) or 1
    selected = result.request.year
    return [YearBar(year, count, max(4, round(100 * count / top)),
                    _url(result.request, "year", year, year == selected), year == selected)
            for year, count in counts]


def labeller(series_names: dict[str, str],
             edition_labels: dict[str, str]) -> Callable[[str, object], str]:
    """How a facet value reads on the page: names and labels instead of slugs."""
    def label(name: str, value: object) -> str:
        text = str(value)
        if name == "series":
            return series_names.get(text, text)
        if name == "venue":
            return edition_labels.get(text, text)
        if name == "topic":
            return topic_name(text)
        if name == "status":
            return text.replace("-", " ").capitalize()
        if name == "has":
            return "Has code"
        return text

    return label
