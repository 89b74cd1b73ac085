"""What a search is asked (the request, its query and filters) and what it answers."""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from typing import Any

from app.facets import FACETS, NAMES, Facet
from app.paging import Page

PER_PAGE = 20


def _facet_field(facet: Facet) -> tuple[str, type, Any]:
    return facet.name, facet.kind.request_type, facet.kind.none


def _filters(self: Any) -> dict[str, object]:
    """The facet filters in effect, by facet name."""
    return {name: value for name in NAMES if (value := getattr(self, name))}


# What a search is asked: `q`, a value (or none) per facet of app/facets.py (`series`,
# `year`, `has`, ...), `sort` ("relevance" or "venue") and `page`. Built from the facet table,
# so that a new facet is a new field here, in the page's links and in the API's parameters.
SearchRequest = make_dataclass(
    "SearchRequest",
    [("q", str, ""), *map(_facet_field, FACETS), ("sort", str, "relevance"), ("page", int, 1)],
    namespace={"filters": _filters, "__module__": __name__}, frozen=True)


# What a search answers while the node has no index to rank from (web/deps.ready_search).
NOT_READY = "Search is not ready yet: the index is being built. Try again shortly."


@dataclass
class SearchHit:
    id: str
    score: float
    snippet: str  # HTML: escaped text with <mark> around matched terms
    partial: bool = False  # matches most of the query's parts, not all
    missing: list[str] = field(default_factory=list)  # the parts it lacks, as typed
    by_meaning: bool = False  # listed for its closeness in meaning alone (by_meaning.py)


@dataclass(frozen=True)
class QueryReading:
    """How a question or a description was read (search/query/question.py): the function words
    left out, its concepts (the parts that weigh), and how many papers hold every one."""

    kind: str  # "question" or "description"
    not_required: list[str]  # as typed
    concepts: list[str]  # as typed
    complete: int  # the papers (of the filters chosen) that hold every concept
    complete_first: bool = True  # they come first (Reading.complete_first)
    # The phrases that its closest papers share, where the encoder was unsure of a
    # description: its first page's papers writing them were raised (shared_terms.shown).
    borrowed: list[str] = field(default_factory=list)

    # What the result's total counts, in words (the JSON twin says it).
    counted = ("the papers holding every concept, then those holding at least half of the "
               "concepts' weight that the best papers hold, each concept weighing its IDF")


@dataclass
class SearchResult:
    request: SearchRequest
    query: str
    total: int = 0
    hits: list[SearchHit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    corrected: str | None = None  # "did you mean" query text
    showing_corrected: bool = False  # the hits are for `corrected`, the query had none
    pasted: bool = False  # the query was a pasted text: the hits are the papers most like it
    facets: dict[str, list[tuple[object, int]]] = field(default_factory=dict)
    # Words that acronyms learned from the catalog expanded: (word as typed, its meanings).
    expansions: list[tuple[str, list[str]]] = field(default_factory=list)
    # Compounds that also found their other spelling: (word as typed, "pre-training").
    spellings: list[tuple[str, str]] = field(default_factory=list)
    # Where the exact matches end before the page does: papers with most of the query's
    # parts, or, for one word, with words of its family (`related_words`). Not counted in
    # `total` or the facets, not exported.
    partial: list[SearchHit] = field(default_factory=list)
    related_words: list[str] = field(default_factory=list)
    # A question or a description: `total` counts every paper listed, those with every
    # concept and those holding most of the concepts' weight.
    reading: QueryReading | None = None
    # Of those, the papers listed for their closeness in meaning alone (by_meaning.py).
    near: int = 0

    @property
    def page(self) -> int:
        return self.request.page

    @property
    def paging(self) -> Page[SearchHit]:
        return Page(self.hits, self.request.page, self.total, PER_PAGE)

    @property
    def pages(self) -> int:
        return self.paging.pages

    @property
    def message(self) -> str | None:
        return " ".join(self.notes) or None
