"""The search page's filters: facet values with their labels, links and selected state, and
the chips of the filters in effect.

At 88,000 papers a query matches papers of ~60 editions; the sidebar shows conferences
first (the ten largest, the rest behind "show all"), years as a compact histogram, and
editions only once a conference or an edition is chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.facets import BY_NAME, FACETS
from app.search.results import SearchRequest, SearchResult
from app.web.urls import search_query_string

TOP_VALUES = 10
# The names a facet's values read as, where slugs will not do: {facet: {value: name}}.
ValueNames = dict[str, dict[str, str]]


@dataclass(frozen=True)
class SidebarValue:
    value: object
    label: str
    count: int
    url: str  # selects the value, or removes it when it is selected
    selected: bool


@dataclass(frozen=True)
class SidebarFacet:
    name: str
    title: str
    values: list[SidebarValue]

    @property
    def head(self) -> list[SidebarValue]:
        """The values shown at once: the largest, and any selected one."""
        return [v for i, v in enumerate(self.values) if i < TOP_VALUES or v.selected]

    @property
    def rest(self) -> list[SidebarValue]:
        return [v for i, v in enumerate(self.values) if i >= TOP_VALUES and not v.selected]


@dataclass(frozen=True)
class YearBar:
    year: int
    count: int
    height: int  # percent of the tallest bar
    url: str
    selected: bool


def _url(request: SearchRequest, name: str, value: object, selected: bool) -> str:
    removed = BY_NAME[name].kind.none
    return "?" + search_query_string(request, **{name: removed if selected else value})


def sidebar(result: SearchResult, names: ValueNames) -> list[SidebarFacet]:
    """The facets to show, in the table's order, each value labelled by its name."""
    request = result.request
    chosen = request.filters()
    facets = []
    for facet in FACETS:
        counts = result.facets.get(facet.name, [])
        shown = not facet.shown_with or any(name in chosen for name in facet.shown_with)
        if not (facet.in_sidebar and shown and counts):
            continue
        facets.append(SidebarFacet(facet.name, facet.title, [
            SidebarValue(value, facet.label(value, names.get(facet.name, {})), count,
                       _url(request, facet.name, value, chosen.get(facet.name) == value),
                       chosen.get(facet.name) == value)
            for value, count in counts]))
    return facets


@dataclass(frozen=True)
class Chip:
    """A filter in effect, shown above the results with a link that removes it."""

    name: str
    text: str  # "series: NeurIPS", "Has code"
    remove_url: str


def chips(request: SearchRequest, names: ValueNames) -> list[Chip]:
    return [Chip(name, BY_NAME[name].chip(value, names.get(name, {})),
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
