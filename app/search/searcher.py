"""PaperSearch: one Whoosh searcher shared by all requests, reopened when the index changes."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh.highlight import ContextFragmenter, HtmlFormatter
from whoosh.query import Term
from whoosh.searching import Searcher

from app.search.index import VERSION_FILE
from app.search.query import parse_query

PER_PAGE = 20


@dataclass
class SearchHit:
    id: str
    score: float
    snippet: str  # HTML: escaped text with <mark> around matched terms


@dataclass
class SearchResult:
    query: str
    page: int
    total: int = 0
    hits: list[SearchHit] = field(default_factory=list)
    message: str | None = None

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / PER_PAGE))


class IndexUnavailable(RuntimeError):
    pass


class PaperSearch:
    """Holds the open index; checks at most every `check_interval` seconds for a newer one."""

    def __init__(self, index_path: Path, check_interval: float = 1.0) -> None:
        self.index_path = index_path
        self.check_interval = check_interval
        self._lock = threading.Lock()
        self._searcher: Searcher | None = None
        self._opened: tuple[str, float] | None = None  # (index directory, version file mtime)
        self._checked_at = 0.0

    def _index_identity(self) -> tuple[str, float] | None:
        try:
            target = self.index_path.resolve(strict=True)
            return str(target), (target / VERSION_FILE).stat().st_mtime
        except OSError:
            return None

    def _current(self) -> Searcher:
        now = time.monotonic()
        if self._searcher is not None and now - self._checked_at < self.check_interval:
            return self._searcher
        self._checked_at = now
        identity = self._index_identity()
        if identity is None:
            if self._searcher is not None:
                return self._searcher
            raise IndexUnavailable("the search index has not been built yet")
        if self._searcher is None or identity != self._opened:
            previous = self._searcher
            self._searcher = whoosh_index.open_dir(identity[0]).searcher()
            self._opened = identity
            if previous is not None:
                previous.close()
        return self._searcher

    def close(self) -> None:
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None

    def search(
        self,
        raw_query: str,
        texts: Callable[[list[str]], dict[str, str]],
        venue: str | None = None,
        page: int = 1,
    ) -> SearchResult:
        """Rank papers for the query; `texts` gives the plain text of papers to highlight."""
        page = max(1, page)
        with self._lock:
            try:
                searcher = self._current()
            except IndexUnavailable:
                return SearchResult(raw_query, page, message="Search is not ready yet: the "
                                    "index is being built. Try again in a moment.")
            parsed = parse_query(raw_query, searcher.schema)
            result = SearchResult(parsed.text, page, message=parsed.message)
            if parsed.query is None:
                return result
            results = searcher.search_page(
                parsed.query, page, pagelen=PER_PAGE,
                filter=Term("venue", venue) if venue else None,
            )
            result.total = results.total
            if (page - 1) * PER_PAGE >= results.total:
                return result
            hits = list(results)
            plain = texts([hit["id"] for hit in hits])
            results.results.fragmenter = ContextFragmenter(maxchars=300, surround=60)
            results.results.formatter = HtmlFormatter(tagname="mark", between=" … ")
            for hit in hits:
                snippet = hit.highlights("text", text=plain.get(hit["id"], ""), top=2)
                result.hits.append(SearchHit(hit["id"], hit.score, snippet))
            return result
