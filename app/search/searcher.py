"""PaperSearch: what the catalog asks of its search index (searches, counts, ranked IDs,
related papers, recommendations, completions), answered on the live index generation
(live.py) by the query pipeline (pipeline.py) and cached per generation.

Facet counts come from the matched document numbers and per-document arrays (venue, year,
code, topic) read once per opened index, not from Whoosh's `groupedby`, which scores and
loads every match.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from app.cache import ComputedOnce
from app.facets import BY_NAME
from app.faults import pause_point
from app.meaning.queries import QueryEncoder
from app.search.index.live import LiveIndex
from app.search.index.opened import Identity, OpenIndex
from app.search.pipeline import Search
from app.search.rank import by_meaning, similar
from app.search.rank.filters import unknown_filters
from app.search.rank.similar import Recommendation, RelatedPaper
from app.search.results import NOT_READY, SearchRequest, SearchResult
from app.search.words.acronyms import Meaning
from app.search.words.completions import AUTHOR_PREFIX
from app.words import in_another_script

RELATED_CACHE = 4096
RESULT_CACHE = 256  # pages are in the page cache; these serve twins (docs/performance.md)
# Searches computed at once per process; two, not one, so that a quick search is not held
# behind a slow one for its whole time (docs/performance.md).
SEARCHES_AT_ONCE = 2
IN_ENGLISH = ("The catalog's abstracts are in English, and none holds these words: search with "
              "English words, such as “depth estimation”.")
T = TypeVar("T")
Searched = tuple[Identity, SearchRequest]  # a search kept: per generation, request


class PaperSearch(LiveIndex):
    """The searches of one catalog's index, at most SEARCHES_AT_ONCE computed at once."""

    def __init__(self, index_path: Path, check_interval: float = 0.0,
                 result_cache: int = RESULT_CACHE, related_cache: int = RELATED_CACHE) -> None:
        super().__init__(index_path, check_interval)
        # One per process: the supervisor's (app/meaning/queries.py), else its own.
        self.encoder = QueryEncoder(index_path.parent / by_meaning.MODEL_DIR)
        self._working = threading.BoundedSemaphore(SEARCHES_AT_ONCE)
        self._related: ComputedOnce[tuple[object, ...], list[RelatedPaper]] = (
            ComputedOnce(related_cache))
        self._recommended: ComputedOnce[tuple[object, ...], list[Recommendation]] = (
            ComputedOnce(related_cache))
        self._results: ComputedOnce[Searched, SearchResult] = ComputedOnce(result_cache)
        self._counts: ComputedOnce[Searched, SearchResult] = ComputedOnce(result_cache)

    def search(
        self, request: SearchRequest, texts: Callable[[list[str]], dict[str, str]]
    ) -> SearchResult:
        """Rank papers for the request; `texts` gives the plain text of papers to highlight."""
        # Popular queries, paging back and forth and the same query again after a facet
        # click cost nothing: results are kept per index version, like related papers.
        return self._meaning_kept(self.encoder.problem, self.with_index(
            lambda current: self._results.get((current.identity, request), lambda: self.gated(
                lambda: _noted(Search(current, request, texts, self.encoder.vector).run(),
                               current, self.encoder.problem))),
            _not_ready(request)))

    def counts(self, request: SearchRequest) -> SearchResult:
        """The request's total and facet counts, exactly as `search` gives them, without
        ranking a page of hits (trends and charts need only the counts)."""
        return self._meaning_kept(self.encoder.problem, self.with_index(
            lambda current: self._counts.get((current.identity, request), lambda: self.gated(
                lambda: Search(current, request, lambda ids: {}, self.encoder.vector).run(
                    with_hits=False))),
            _not_ready(request)))

    def _meaning_kept(self, before: str | None, result: SearchResult) -> SearchResult:
        """The result; the results kept forgotten where the model was refused or mended while
        it was computed: they counted and ranked papers by meaning, or said it was off."""
        if self.encoder.problem != before:
            self._results.clear()
            self._counts.clear()
        return result

    def ranked_ids(self, request: SearchRequest, texts: similar.Texts, limit: int | None = None,
                   newest_first: bool = False) -> list[str]:
        """The IDs of every result of the request (for exports and feeds), in the order of its
        pages: `texts` gives plain texts by paper ID, as to `search`."""
        return self.with_index(lambda current: self.gated(
            lambda: Search(current, request, texts, self.encoder.vector).ranked_ids(
                limit, newest_first)),
            [])

    def related(self, paper_id: str, plain: str, texts: similar.Texts,
                limit: int = similar.RELATED_PAPERS,
                choice: similar.Choice = similar.ANY) -> list[RelatedPaper]:
        """The papers most like this one, as `choice` asks, each with the key terms they
        share. Cached per index until it changes."""
        return self.with_index(lambda current: self._related.get(
            (current.identity, paper_id, limit, choice), lambda: self.gated(
                lambda: similar.related_papers(current.searcher, current.ids, current.columns,
                                               paper_id, plain, texts, limit,
                                               _vectors(current), choice))),
            [])

    def recommend(self, listed: list[str], texts: similar.Texts,
                  choice: similar.Choice = similar.ANY,
                  limit: int = 20) -> list[Recommendation]:
        """The papers most like the listed ones as a whole, as `choice` asks, none of them
        listed; `texts` gives plain texts. Cached per index until it changes."""
        return self.with_index(lambda current: self._recommended.get(
            (current.identity, tuple(listed), choice, limit), lambda: self.gated(
                lambda: similar.recommendations(current.searcher, current.ids,
                                                current.columns, listed, texts, limit,
                                                _vectors(current), choice))),
            [])

    def gated(self, work: Callable[[], T]) -> T:
        """Run `work` in a searching slot. Searching is bound by the interpreter lock: past a
        few at once, more searches (or downloads being written) in parallel finish no sooner
        and only make everything else in the process, /healthz first, wait for the lock. The
        rest wait here, asleep."""
        with self._working:
            pause_point("search")  # tests: a search that never ends holds its thread
            return work()

    def learned_acronyms(self) -> list[Meaning]:
        """The acronyms the catalog defines often enough to expand in searches."""
        return self.with_index(lambda current: current.meanings, [])

    def author_names(self, typed: str, limit: int) -> list[str]:
        """Names of two papers or more whose name or a later part of it starts as typed."""
        return self.with_index(lambda current: current.completions.author(typed, limit), [])

    def suggest(self, typed: str, limit: int = 8, series: Iterable[str] = ()) -> list[str]:
        """Completions of what was typed, as it would be typed, most used first: after
        `author:`, author names; else phrases of titles and keywords that complete its end,
        then, for one word, the named `series` (as `series:` filters), then words that
        complete its last word, and author names (as `author:` filters) where little else
        does."""
        return self.with_index(lambda current: _suggestions(current, typed, limit, series), [])


def _suggestions(current: OpenIndex, typed: str, limit: int,
                 series: Iterable[str]) -> list[str]:
    text = " ".join(typed.split())
    if text.lower().startswith(AUTHOR_PREFIX):
        name = text[len(AUTHOR_PREFIX):].strip('" ')
        return _authors(current.completions.author(name, limit)) if len(name) >= 2 else []
    words = text.lower().split()
    if len(text) < 2:
        return []
    found = current.completions.phrase(text, limit // 2)
    if len(words) == 1:
        found += [f"series:{name}" for name in series if name.lower().startswith(text)]
    if len(words[-1]) >= 2 and (len(words) == 1 or not found):
        # After other words, a word that completes the last one alone ("graph need") is
        # offered only where no phrase goes on from them.
        head = text[: text.lower().rfind(words[-1])]
        found += [f"{head}{word}"
                  for word in current.vocabulary.completions(words[-1], limit)]
    if len(found) < limit // 2 and len(text) >= 3:
        found += _authors(current.completions.author(text, limit // 2))
    return list(dict.fromkeys(found))[:limit]


def _vectors(current: OpenIndex) -> similar.Vectors | None:
    return similar.Vectors.of(current.vectors, current.with_vectors, current.meaning)


def _not_ready(request: SearchRequest) -> SearchResult:
    return SearchResult(request, request.q, notes=[NOT_READY])


def _authors(names: list[str]) -> list[str]:
    return [f'{AUTHOR_PREFIX}"{name}"' for name in names]


def _noted(result: SearchResult, current: OpenIndex, problem: str | None) -> SearchResult:
    """The result, with what a search alone does not tell: where it read as if no abstract
    matched, or matched by meaning, and why."""
    result.notes += [*_unknown_filters(result, current), *_meaning_off(result, problem),
                     *_in_english(result)]
    return result


def _unknown_filters(result: SearchResult, current: OpenIndex) -> list[str]:
    """A filter that no paper of the catalog can pass, named (a venue typed in an address,
    or kept from another catalog's): it had read as if no abstract matched."""
    return [f"No paper in the catalog has the {BY_NAME[name].title.lower()} “{value}”: "
            "remove that filter to see the papers found."
            for name, value in unknown_filters(current.columns, result.request.filters())]


def _in_english(result: SearchResult) -> list[str]:
    """That the catalog is in English, where a query in another script found nothing: a
    Chinese abstract pasted (no spaces, so not read as a text) had read as "0 results", as
    if no paper were on its subject."""
    words = " ".join(word for word in result.query.split() if ":" not in word)  # not `year:`
    found = result.hits or result.partial
    return [IN_ENGLISH] if not found and in_another_script(words) else []


def _meaning_off(result: SearchResult, problem: str | None) -> list[str]:
    """That meaning is off, where the search would have used it and the model is refused or
    missing (`problem`): a description's or a pasted text's papers by words alone, else
    silently fewer (of 3,000 papers, 130 for a description became 30)."""
    wanted = (result.reading is not None or result.pasted) and by_meaning.switched(
        result.request.q)[1]
    return [by_meaning.UNAVAILABLE] if problem is not None and wanted else []
