"""What the pages, the API and the features ask of a catalog's search, in one place:
`searcher.PaperSearch` answers it, on the live index generation.

The web layer and the features are typed against this, not the engine: a route module imports
the searcher itself, but what sits between the routes and the engine (web/deps.py, joined.py,
formats.py, whats_new/trend_lines.py) imports only this. Each method's docstring is on
PaperSearch (or LiveIndex, for the last two).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from app.search.index.opened import Identity, OpenIndex
from app.search.rank.similar import (
    ANY,
    RELATED_PAPERS,
    Choice,
    Recommendation,
    RelatedPaper,
    Texts,
)
from app.search.results import SearchRequest, SearchResult
from app.search.words.acronyms import Meaning

T = TypeVar("T")


class SearchService(Protocol):
    def search(self, request: SearchRequest, texts: Texts) -> SearchResult: ...

    def counts(self, request: SearchRequest) -> SearchResult: ...

    def ranked_ids(self, request: SearchRequest, texts: Texts, limit: int | None = None,
                   newest_first: bool = False) -> list[str]: ...

    def related(self, paper_id: str, plain: str, texts: Texts, limit: int = RELATED_PAPERS,
                choice: Choice = ANY) -> list[RelatedPaper]: ...

    def recommend(self, listed: list[str], texts: Texts, choice: Choice = ANY,
                  limit: int = 20) -> list[Recommendation]: ...

    def gated(self, work: Callable[[], T]) -> T: ...

    def learned_acronyms(self) -> list[Meaning]: ...

    def author_names(self, typed: str, limit: int) -> list[str]: ...

    def suggest(self, typed: str, limit: int = 8, series: Iterable[str] = ()) -> list[str]: ...

    def index_identity(self) -> Identity | None: ...

    def with_index(self, work: Callable[[OpenIndex], T], unavailable: T) -> T: ...
