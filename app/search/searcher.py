"""PaperSearch: the open index (a Whoosh searcher per request thread), reopened when a newer
one is in place, and the searches, related papers and recommendations it answers, cached per
index generation.

Facet counts come from the matched document numbers and per-document arrays (venue, year,
code, topic) read once per opened index, not from Whoosh's `groupedby`, which scores and
loads every match.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
from whoosh import index as whoosh_index
from whoosh.query import AndNot, Every, Not, Or, Query, Term
from whoosh.searching import Searcher
from whoosh.sorting import FieldFacet, MultiFacet, ScoreFacet

from app.cache import ComputedOnce
from app.facets import NAMES as FACET_NAMES
from app.faults import pause_point
from app.search import proximity, ranking, similar
from app.search.acronyms import AcronymCounts, Meaning
from app.search.analysis import analyze
from app.search.codec import use_decoded_lengths
from app.search.columns import FacetColumn, FacetFilter, as_array, as_mask, read_facet_columns
from app.search.completions import AUTHOR_PREFIX, Completions
from app.search.expand import Synonyms, text_query
from app.search.index import VERSION_FILE
from app.search.matches import Phrases, matching_docs
from app.search.query import (
    FILTER_INDEX_FIELDS,
    MAX_TEXT_CHARS,
    TEXT_FIELDS,
    ParsedQuery,
    QueryParser,
    is_pasted_text,
    matching_query,
    replace_word,
)
from app.search.ranking import match_scores, top_by_terms, top_matches
from app.search.results import PER_PAGE, SearchHit, SearchRequest, SearchResult
from app.search.similar import Recommendation, RelatedPaper
from app.search.snippets import make_snippet, query_terms
from app.search.vocabulary import Vocabulary

PREFIX_EXPANSIONS = 8  # the most frequent completions a `prefix*` stands for
RELATED_CACHE = 4096
RESULT_CACHE = 256  # pages are in the page cache; these serve twins (docs/performance.md)
# Searches computed at once per process; two, not one, so that a quick search is not held
# behind a slow one for its whole time (docs/performance.md).
SEARCHES_AT_ONCE = 2
T = TypeVar("T")
NOT_READY = "Search is not ready yet: the index is being built. Try again shortly."
# A pasted text is answered by this many papers most like it, the best of more candidates so
# that filters still leave them.
LIKE_TEXT_RESULTS = 100
LIKE_TEXT_CANDIDATES = 2000
LIKE_TEXT_NOTE = ("This {words}-word query was read as a text, not as words that must all "
                  "match: these are the {n} papers most like it as a whole (by the terms that "
                  "most set it apart), as related papers are found.")


class IndexUnavailable(RuntimeError):
    pass


@dataclass
class _OpenIndex:
    """One version of the index, its facet columns, and a searcher for each thread.

    Whoosh searchers are not safe to share between threads; opening one on a segment written
    with compound=False costs about a millisecond, so every request thread gets its own and
    no request waits for another's search.
    """

    index: whoosh_index.Index
    identity: tuple[str, float]
    columns: dict[str, FacetColumn]  # facet name → value per document number
    ids: list[str]  # paper ID per document number (Whoosh's stored fields unpickle a dict)
    vocabulary: Vocabulary
    completions: Completions
    meanings: list[Meaning]  # acronyms learned from the catalog
    synonyms: Synonyms
    local: threading.local = field(default_factory=threading.local)

    @property
    def searcher(self) -> Searcher:
        searcher = getattr(self.local, "searcher", None)
        if searcher is None:
            searcher = self.local.searcher = self.index.searcher(weighting=ranking.weighting())
        return searcher


class PaperSearch:
    """Holds the open index; checks at most every `check_interval` seconds for a newer one."""

    def __init__(self, index_path: Path, check_interval: float = 1.0,
                 result_cache: int = RESULT_CACHE) -> None:
        self.index_path = index_path
        self.check_interval = check_interval
        self._lock = threading.Lock()
        self._working = threading.BoundedSemaphore(SEARCHES_AT_ONCE)
        self._open: _OpenIndex | None = None
        self._checked_at = 0.0
        self._related: ComputedOnce[tuple[tuple[str, float], str], list[RelatedPaper]] = (
            ComputedOnce(RELATED_CACHE))
        self._recommended: ComputedOnce[tuple[object, ...], list[Recommendation]] = (
            ComputedOnce(RELATED_CACHE))
        self._results: ComputedOnce[tuple[tuple[str, float], SearchRequest], SearchResult] = (
            ComputedOnce(result_cache))
        self._counts: ComputedOnce[tuple[tuple[str, float], SearchRequest], SearchResult] = (
            ComputedOnce(result_cache))

    def index_identity(self) -> tuple[str, float] | None:
        """Which index generation is live: its directory and when its version was written."""
        try:
            target = self.index_path.resolve(strict=True)
            return str(target), (target / VERSION_FILE).stat().st_mtime
        except OSError:
            return None

    def _current(self) -> _OpenIndex:
        """The open index, reopened when a newer one is in place (checked every interval)."""
        with self._lock:
            now = time.monotonic()
            if self._open is not None and now - self._checked_at < self.check_interval:
                return self._open
            self._checked_at = now
            identity = self.index_identity()
            if identity is None:
                if self._open is not None:
                    return self._open
                raise IndexUnavailable("the search index has not been built yet")
            if self._open is None or identity != self._open.identity:
                # Threads still searching the previous version finish on their own searchers.
                use_decoded_lengths()
                index = whoosh_index.open_dir(identity[0])
                with index.searcher() as searcher:
                    columns = read_facet_columns(searcher, FACET_NAMES)
                    ids = list(searcher.reader().column_reader("id"))
                directory = Path(identity[0])
                meanings = AcronymCounts.read(directory).meanings()
                self._open = _OpenIndex(index, identity, columns, ids,
                                        Vocabulary.read(directory),
                                        Completions.read(directory), meanings,
                                        Synonyms.of(meanings))
            return self._open

    def close(self) -> None:
        with self._lock:
            self._open = None

    def opened(self) -> tuple[str, float] | None:
        """The identity of the index generation open now (None before the first)."""
        current = self._open
        return None if current is None else current.identity

    def warm(self) -> None:
        """Open the live index generation now, if it is new (0.8 s at L), so that a reader's
        first search after a start or an update does not wait for it."""
        with suppress(IndexUnavailable):
            self._current()

    def search(
        self, request: SearchRequest, texts: Callable[[list[str]], dict[str, str]]
    ) -> SearchResult:
        """Rank papers for the request; `texts` gives the plain text of papers to highlight."""
        try:
            current = self._current()
        except IndexUnavailable:
            return SearchResult(request, request.q, notes=[NOT_READY])
        # Popular queries, paging back and forth and the same query again after a facet
        # click cost nothing: results are kept per index version, like related papers.
        return self._results.get((current.identity, request),
                                 lambda: self._gated(_Search(current, request, texts).run))

    def counts(self, request: SearchRequest) -> SearchResult:
        """The request's total and facet counts, exactly as `search` gives them, without
        ranking a page of hits (trends and charts need only the counts)."""
        try:
            current = self._current()
        except IndexUnavailable:
            return SearchResult(request, request.q, notes=[NOT_READY])
        return self._counts.get((current.identity, request), lambda: self._gated(
            lambda: _Search(current, request, lambda ids: {}).run(with_hits=False)))

    def ranked_ids(self, request: SearchRequest, limit: int | None = None,
                   newest_first: bool = False) -> list[str]:
        """The IDs of every result of the request (for exports and feeds)."""
        try:
            current = self._current()
        except IndexUnavailable:
            return []
        return self._gated(lambda: _Search(current, request, lambda ids: {}).ranked_ids(
            limit, newest_first))

    def related(self, paper_id: str, plain: str, texts: similar.Texts,
                limit: int = similar.RELATED_PAPERS) -> list[RelatedPaper]:
        """The papers most like this one, each with the key terms they share. Cached per
        index until it changes."""
        try:
            current = self._current()
        except IndexUnavailable:
            return []
        topics = current.columns["topic"].codes if "topic" in current.columns else None
        return self._related.get((current.identity, paper_id), lambda: self._gated(
            lambda: similar.related_papers(current.searcher, current.ids, topics, paper_id,
                                           plain, texts, limit)))

    def recommend(self, listed: list[str], texts: similar.Texts, series: str = "",
                  year: int | None = None, limit: int = 20) -> list[Recommendation]:
        """The papers most like the listed ones as a whole (of a series and year when given),
        none of them listed; `texts` gives plain texts. Cached per index until it changes."""
        try:
            current = self._current()
        except IndexUnavailable:
            return []
        key = (current.identity, tuple(listed), series, year, limit)
        return self._recommended.get(key, lambda: self._gated(
            lambda: similar.recommendations(current.searcher, current.ids, current.columns,
                                            listed, texts, {"series": series, "year": year},
                                            limit)))

    def _gated(self, work: Callable[[], T]) -> T:
        """Searching is bound by the interpreter lock: past a few at once, more searches in
        parallel finish no sooner and only make everything else in the process wait for the
        lock. The rest wait here, asleep."""
        with self._working:
            pause_point("search")  # tests: a search that never ends holds its thread
            return work()

    def learned_acronyms(self) -> list[Meaning]:
        """The acronyms the catalog defines often enough to expand in searches."""
        try:
            return self._current().meanings
        except IndexUnavailable:
            return []

    def suggest(self, typed: str, limit: int = 8, series: Iterable[str] = ()) -> list[str]:
        """Completions of what was typed, as it would be typed, most used first: after
        `author:`, author names; else phrases of titles and keywords that complete its end,
        then, for one word, the named `series` (as `series:` filters), then words that
        complete its last word, and author names (as `author:` filters) where little else
        does."""
        text = " ".join(typed.split())
        try:
            current = self._current()
        except IndexUnavailable:
            return []
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


def _authors(names: list[str]) -> list[str]:
    return [f'{AUTHOR_PREFIX}"{name}"' for name in names]


def _excludes(query: Query) -> bool:
    return isinstance(query, (AndNot, Not)) or any(_excludes(q) for q in query.children())


class _Search:
    """One search request against one open index."""

    def __init__(self, current: _OpenIndex, request: SearchRequest,
                 texts: Callable[[list[str]], dict[str, str]]) -> None:
        self.current = current
        self.searcher = current.searcher
        self.request = request
        self.texts = texts
        self.phrases: Phrases = {}  # phrase matches, found while counting, used to rank
        self.parser = QueryParser(
            lambda prefix: current.vocabulary.completions(prefix, PREFIX_EXPANSIONS),
            lambda name: name in self.searcher.schema and (
                name not in FACET_NAMES or (name in current.columns
                                        and current.columns[name].has_values())),
            current.synonyms,
        )

    def run(self, with_hits: bool = True) -> SearchResult:
        result, query, docs, allowed = self._resolve()
        result.total = len(allowed)
        if query is None:
            return result
        result.facets = self._facet_counts(docs)
        start = (self.request.page - 1) * PER_PAGE
        if with_hits and start < result.total:
            result.hits = self._page(query, allowed, docs, start)
        room = start + PER_PAGE - result.total
        if (with_hits and 0 < room <= PER_PAGE and self.request.sort == "relevance"
                and not result.showing_corrected and not result.pasted):
            result.partial = self._partial(allowed, room)
            if not result.partial:
                result.related_words, result.partial = self._related_words(allowed, room)
        return result

    def ranked_ids(self, limit: int | None, newest_first: bool) -> list[str]:
        """IDs of the whole result set (not one page), by rank or newest first."""
        _, query, _, allowed = self._resolve()
        if query is None or not allowed:
            return []
        sortedby = (FieldFacet("added", reverse=True) if newest_first
                    else self._sort_order())
        results = self.searcher.search(query, limit=limit, filter=allowed, sortedby=sortedby)
        return [hit["id"] for hit in results]

    def _resolve(self) -> tuple[SearchResult, Query | None, set[int], set[int]]:
        """The query to rank (after corrections and fallbacks), its matches and what the
        filters allow of them."""
        request = self.request
        if is_pasted_text(request.q):
            return self._like_text()
        parsed = self.parsed = self.parser.parse(request.q)
        result = SearchResult(request, parsed.text, notes=list(parsed.notes),
                              expansions=parsed.expansions)
        query = parsed.query
        if query is None and parsed.text and not request.filters():
            return result, None, set(), set()
        if query is None:
            query = Every()
        result.corrected = self._did_you_mean(parsed)
        docs = self._matching(query)
        allowed = self._filtered(docs)
        if not allowed and parsed.text:
            query, docs = self._fallback(parsed, result, query, docs)
            allowed = self._filtered(docs)
        return result, query, docs, allowed

    def _like_text(self) -> tuple[SearchResult, Query | None, set[int], set[int]]:
        """A pasted text: the papers most like it as a whole, by its key terms, as related
        papers are found; the page says so."""
        text = " ".join(self.request.q[:MAX_TEXT_CHARS].split())
        self.parsed = ParsedQuery(text, None)
        result = SearchResult(self.request, text, pasted=True, notes=[LIKE_TEXT_NOTE.format(
            words=len(text.split()), n=LIKE_TEXT_RESULTS)])
        if len(self.request.q) > MAX_TEXT_CHARS:
            result.notes.append(f"The text was cut to its first {MAX_TEXT_CHARS:,} characters.")
        key_terms = similar.text_key_terms(self.searcher, text)
        if not key_terms:
            return result, None, set(), set()
        candidates = [doc for doc, _ in top_by_terms(self.searcher, "text", key_terms,
                                                     LIKE_TEXT_CANDIDATES)]
        allowed = self._filtered(set(candidates))
        query = Or([Term("text", term, boost=weight) for term, weight in key_terms])
        return (result, query, set(candidates[:LIKE_TEXT_RESULTS]),
                set([doc for doc in candidates if doc in allowed][:LIKE_TEXT_RESULTS]))

    def _sort_order(self) -> MultiFacet | None:
        if self.request.sort == "venue":
            return MultiFacet([FieldFacet("venue"), ScoreFacet()])
        return None

    def _matching(self, query: Query) -> set[int]:
        return matching_docs(self.searcher, matching_query(query), self.phrases)

    def _filtered(self, docs: set[int]) -> set[int]:
        filters = self.request.filters()
        if not filters:
            return docs
        return set(FacetFilter(self.current.columns, filters, as_array(docs)).allowed().tolist())

    def _facet_counts(self, docs: set[int]) -> dict[str, list[tuple[object, int]]]:
        return FacetFilter(self.current.columns, self.request.filters(), as_array(docs)).counts()

    def _did_you_mean(self, parsed: ParsedQuery) -> str | None:
        reader = self.searcher.reader()
        corrected = parsed.text
        changed = False
        for word in parsed.words:
            stems = analyze(word)
            if self.current.synonyms.key(word, stems) is not None or any(
                reader.doc_frequency(name, stem) for stem in stems for name in TEXT_FIELDS
            ):
                continue
            suggestion = self.current.vocabulary.suggest(word.lower())
            if suggestion:
                corrected = replace_word(corrected, word, suggestion)
                changed = True
        return corrected if changed else None

    def _fallback(self, parsed: ParsedQuery, result: SearchResult, query: Query,
                  docs: set[int]) -> tuple[Query, set[int]]:
        """No match: try the spelling correction (papers with some of the words follow on the
        page either way)."""
        if result.corrected:
            corrected = self.parser.parse(result.corrected)
            if corrected.query is not None:
                corrected_docs = self._matching(corrected.query)
                if self._filtered(corrected_docs):
                    result.showing_corrected = True
                    return corrected.query, corrected_docs
        return query, docs

    def _partial(self, exact: set[int], room: int) -> list[SearchHit]:
        """The best papers with most but not all of the query's parts (at least half of
        them), by how many they have, then by the score of the parts they have."""
        parts = self.parsed.parts if self.parsed.query is not None else None
        if parts is None:
            return []
        total = self.searcher.doc_count_all()
        has = np.zeros((len(parts.words), total), dtype=bool)
        for row, (_, query) in enumerate(parts.words):
            has[row, as_array(self._matching(query))] = True
        counts = has.sum(axis=0)
        wanted = counts >= max(1, math.ceil(ranking.WEIGHTS.partial_share * len(parts.words)))
        wanted[as_array(exact)] = False
        for required in parts.filters:
            wanted &= as_mask(self._matching(required), total)
        if parts.excluded is not None:
            wanted &= ~as_mask(self._matching(parts.excluded), total)
        candidates = self._filtered(set(np.flatnonzero(wanted).tolist()))
        if not candidates:
            return []
        return self._fill(Or([query for _, query in parts.words]), candidates, room, counts,
                          lambda doc: [label for row, (label, _) in enumerate(parts.words)
                                       if not has[row, doc]])

    def _related_words(self, exact: set[int], room: int) -> tuple[list[str], list[SearchHit]]:
        """For a query of one word whose matches end before the page does: the best papers
        with a word of its family that it does not find ("memorize" for "memorization"),
        and those words. Derivations are kept apart in counts, not out of reach."""
        parsed = self.parsed
        if (parsed.query is None or len(parsed.words) != 1 or _excludes(parsed.query)
                or any(leaf.field() in FILTER_INDEX_FIELDS for leaf in parsed.query.leaves())):
            return [], []  # only a plain word: no inline filter or exclusion to carry over
        words = self.current.vocabulary.family(parsed.words[0])
        own = analyze(parsed.words[0])
        forms = list(dict.fromkeys(form for form in map(analyze, words) if form and form != own))
        if not forms:
            return [], []
        either = Or([text_query(form) for form in forms])
        candidates = self._filtered(self._matching(either) - exact)
        if not candidates:
            return [], []
        return words, self._fill(either, candidates, room)

    def _fill(self, either: Query, candidates: set[int], room: int,
              more_first: np.ndarray | None = None,
              missing: Callable[[int], list[str]] = lambda doc: []) -> list[SearchHit]:
        """The best `room` of `candidates` as hits that follow the exact matches: those with
        the larger `more_first` (by document number) first when given, then by their score for
        `either`, whose terms the snippets mark."""
        scores = match_scores(self.searcher, either, candidates, self.phrases)
        docs = as_array(candidates)
        score = scores[docs] if scores is not None else np.zeros(len(docs))
        order = (docs, -score) if more_first is None else (docs, -score, -more_first[docs])
        best = docs[np.lexsort(order)[:room]].tolist()
        ids = [self.current.ids[doc] for doc in best]
        plain = self.texts(ids)
        terms = query_terms(either)
        return [SearchHit(paper_id, float(scores[doc]) if scores is not None else 0.0,
                          make_snippet(plain.get(paper_id, ""), terms), partial=True,
                          missing=missing(doc))
                for paper_id, doc in zip(ids, best, strict=True)]

    def _page(self, query: Query, allowed: set[int], docs: set[int],
              start: int) -> list[SearchHit]:
        ranked = self._ranked(query, allowed, docs, start + PER_PAGE)[start:]
        plain = self.texts([paper_id for paper_id, _ in ranked])
        terms = query_terms(query)
        return [SearchHit(paper_id, score, make_snippet(plain.get(paper_id, ""), terms))
                for paper_id, score in ranked]

    def _ranked(self, query: Query, allowed: set[int], docs: set[int],
                limit: int) -> list[tuple[str, float]]:
        """The IDs and scores of the best `limit` matches that the filters allow."""
        sortedby = self._sort_order()
        if sortedby is None:
            # Queries of plain words: the same scores as Whoosh's, summed over the posting
            # lists of the matches already found (a third of "learning" at L).
            best = top_matches(self.searcher, query, allowed, max(limit, proximity.RERANKED),
                               self.phrases)
            if best is not None:
                parts = self.parsed.parts if self.parsed.query is query else None
                if parts is not None:
                    best = proximity.rerank(self.searcher, parts.single_words(), best)
                return [(self.current.ids[doc], score) for doc, score in best[:limit]]
        # The exact matches as a filter when facets filter them, or when the query excludes
        # words: Whoosh's AndNot matcher can let through documents the excluded part matches
        # (tests/search/test_matches.py). Otherwise none: a filter costs Whoosh its skipping.
        exact = allowed != docs or _excludes(query)
        results = self.searcher.search(query, limit=limit, filter=allowed if exact else None,
                                       sortedby=sortedby)
        # Not list(results): that asks len(), which counts every match a second time.
        hits = [results[i] for i in range(results.scored_length())]
        # Sorted by venue, Whoosh reports the sort key where the score would be.
        return [(hit["id"], hit.score if isinstance(hit.score, float) else 0.0) for hit in hits]
