"""The query pipeline: one search request against one open index. The request's query is
parsed (or read as a pasted text), matched as masks over the documents, filtered by the facet
columns and counted; then a page is ranked (ranking.py, proximity.py), and where the exact
matches end before the page does, papers with most of the query's parts or with words of its
family follow. What was parsed travels with what it resolved to (`Resolved`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from whoosh.query import Every, Or, Query, Term
from whoosh.sorting import FieldFacet, MultiFacet, ScoreFacet

from app.facets import NAMES as FACET_NAMES
from app.search.index.opened import OpenIndex
from app.search.query import pasted
from app.search.query.clauses import text_query
from app.search.query.expand import with_family
from app.search.query.language import ParsedQuery, QueryParser, did_you_mean
from app.search.query.parts import (
    FILTER_INDEX_FIELDS,
    QueryParts,
    excludes,
    phrase_words,
    query_parts,
)
from app.search.query.question import Reading, is_function_word
from app.search.rank import by_meaning, proximity, question_ranking, shared_terms, similar, weights
from app.search.rank.filters import FacetFilter
from app.search.rank.matches import (
    Phrases,
    docs_mask,
    matching_docs,
    matching_query,
    whoosh_filter,
    whoosh_query,
)
from app.search.rank.question_ranking import PartMatches
from app.search.rank.ranking import match_scores, top_matches
from app.search.rank.snippets import make_snippet, query_terms
from app.search.results import PER_PAGE, QueryReading, SearchHit, SearchRequest, SearchResult
from app.search.words.analysis import analyze
from app.words import FILLER_WORDS

PREFIX_EXPANSIONS = 8  # the most frequent completions a `prefix*` stands for

@dataclass
class Resolved:
    """What a request resolved to: the result so far, the parsed query, the query to rank
    (after corrections and fallbacks; None when nothing can match), its matches and what the
    filters allow of them (masks over the documents)."""

    result: SearchResult
    parsed: ParsedQuery
    query: Query | None
    docs: np.ndarray
    allowed: np.ndarray
    # A question or a description: its parts' matches and weights, which list and rank it.
    bag: PartMatches | None = None
    # A pasted text: the papers listed, most like it first, and their likeness.
    likeness: list[tuple[int, float]] | None = None
    # Listed for their closeness in meaning alone (a question, a description, a pasted text)
    near: np.ndarray | None = None
    closeness: by_meaning.Closeness | None = None  # each document's, to the query
    joinable: np.ndarray | None = None  # a question's papers `near` is chosen from, unfiltered
    borrowed: list[shared_terms.Concept] = field(default_factory=list)  # shared_terms.borrowed


class Search:
    """One search request against one open index."""

    def __init__(self, current: OpenIndex, request: SearchRequest,
                 texts: Callable[[list[str]], dict[str, str]],
                 encode: Callable[[str], np.ndarray | None] = lambda text: None) -> None:
        self.current = current
        self.searcher = current.searcher
        self.request = request
        self.texts = texts
        # `meaning:off` in the query: the words alone.
        self.q, meaning_on = by_meaning.as_read(request.q)
        self._closeness = partial(by_meaning.closeness_to, current.meaning if meaning_on
                                  else None, encode)
        self.phrases: Phrases = {}  # phrase matches, found while counting, used to rank
        self.parser = QueryParser(
            lambda prefix: current.vocabulary.completions(prefix, PREFIX_EXPANSIONS),
            lambda name: name in self.searcher.schema and (
                name not in FACET_NAMES or (name in current.columns
                                        and current.columns[name].has_values())),
            current.synonyms,
        )

    def run(self, with_hits: bool = True) -> SearchResult:
        resolved = self._resolve()
        result, query, allowed = resolved.result, resolved.query, resolved.allowed
        result.total = int(np.count_nonzero(allowed))
        if query is None:
            return result
        result.facets = self._facet_counts(resolved)
        start = (self.request.page - 1) * PER_PAGE
        if with_hits and start < result.total:
            result.hits = self._page(resolved, start)
        room = start + PER_PAGE - result.total
        if (with_hits and 0 < room <= PER_PAGE and self.request.sort == "relevance"
                and not result.pasted and resolved.bag is None):
            result.partial = self._partial(resolved.parsed, allowed, room,
                                           with_meaning=not result.total)
            if not result.partial:
                result.related_words, result.partial = self._related_words(
                    resolved.parsed, allowed, room)
        if not result.total and not result.partial:
            result.notes += pasted.impassable(resolved.parsed.filters, self.parser.parse,
                                              self._matching)
        return result

    def ranked_ids(self, limit: int | None, newest_first: bool) -> list[str]:
        """IDs of the whole result set (not one page), by rank or newest first."""
        resolved = self._resolve()
        query, allowed = resolved.query, resolved.allowed
        if query is None or not allowed.any():
            return []
        if not newest_first and (resolved.bag is not None or resolved.likeness is not None):
            ranked = self._own_order(resolved, limit or int(np.count_nonzero(allowed)))
            return [self.current.ids[doc] for doc, _ in ranked]
        sortedby = (FieldFacet("added", reverse=True) if newest_first
                    else self._sort_order())
        results = self.searcher.search(whoosh_query(query), limit=limit,
                                       filter=whoosh_filter(allowed), sortedby=sortedby)
        return [self.current.ids[hit.docnum] for hit in results]

    def _resolve(self) -> Resolved:
        request = self.request
        if pasted.is_pasted_text(self.q):
            return self._like_text()
        parsed = self.parser.parse(self.q)
        result = SearchResult(request, parsed.text, notes=list(parsed.notes),
                              expansions=parsed.expansions, spellings=parsed.spellings)
        query = parsed.query
        if query is None and parsed.text and not request.filters():
            nothing = docs_mask(self.searcher, ())
            return Resolved(result, parsed, None, nothing, nothing)
        if query is None:
            query = Every()
        result.corrected = did_you_mean(parsed, self.current.synonyms,
                                        self.searcher.doc_frequency,
                                        self.current.vocabulary.suggest)
        if parsed.reading is not Reading.KEYWORDS and parsed.parts is not None:
            return self._bag(parsed, parsed.parts, result)
        docs = self._matching(query)
        allowed = self._filtered(docs)
        if not allowed.any() and parsed.text:
            parsed, query, docs = self._fallback(parsed, result, query, docs)
            allowed = self._filtered(docs)
        if not allowed.any() and not result.showing_corrected:
            if parsed.reading is Reading.KEYWORDS:
                parsed = self.parser.parse(self.q, unmatched=True)  # a short description?
            # A question of one phrase no paper writes: weighed as the phrase's words.
            parts = parsed.parts or phrase_words(parsed.query, parsed.text)
            if parsed.reading is not Reading.KEYWORDS and parts is not None:
                return self._bag(parsed, parts, result)
        if parsed.reading is not Reading.KEYWORDS and (  # one concept: ordered as a bag's
                one := query_parts(query, parsed.text, least=1)) is not None:
            return self._bag(parsed, one, result)
        return Resolved(result, parsed, query, docs, allowed)

    def _bag(self, parsed: ParsedQuery, parts: QueryParts, result: SearchResult) -> Resolved:
        """A question or a description: its papers listed and counted (question_ranking.py)."""
        family = self.current.vocabulary.family
        related = [with_family(query, label, family) for label, query in parts.words]
        bag = question_ranking.part_matches(self.searcher, parts, self._matching,
                                            parsed.reading is Reading.QUESTION, related)
        passing = question_ranking.required(parts, self._matching, len(bag.complete))
        found = question_ranking.listing(bag, passing, self._filtered, self._closeness(self.q))
        complete = int(np.count_nonzero(self._filtered(bag.complete & passing)))
        borrowed = shared_terms.borrowed(self.searcher, self.current.ids, self.texts,
                                         found.closeness, parsed.reading)
        result.reading = QueryReading(parsed.reading.value, parsed.dropped, bag.labels,
                                      complete, parsed.reading.complete_first,
                                      shared_terms.shown(borrowed))
        if found.near is not None:
            result.near = int(np.count_nonzero(found.near))
        return Resolved(result, parsed, Or(related + parsed.scored), found.listed,
                        self._filtered(found.listed), bag, near=found.near,
                        closeness=found.closeness, joinable=found.joinable, borrowed=borrowed)

    def _own_order(self, resolved: Resolved, limit: int) -> list[tuple[int, float]]:
        """The best `limit` of a pasted text's or a question's papers, in their own order;
        sorted by venue, all of them by edition, in that order within each (Whoosh's sort
        would list only the papers holding a word, not those close in meaning)."""
        by_venue = self.request.sort == "venue"
        listed = int(np.count_nonzero(resolved.allowed)) if by_venue else limit
        ranked = (resolved.likeness[:listed] if resolved.likeness is not None
                  else self._bag_ranked(resolved, listed))
        if by_venue:
            edition = self.current.columns["venue"].codes
            ranked = sorted(ranked, key=lambda hit: edition[hit[0]])
        return ranked[:limit]

    def _bag_ranked(self, resolved: Resolved, limit: int) -> list[tuple[int, float]]:
        """The best `limit` of a question's listed papers (question_ranking.ordered)."""
        assert resolved.bag is not None and resolved.query is not None
        words = resolved.parsed.parts.single_words() if resolved.parsed.parts else []
        reversed_by = (proximity.REVERSED_IN_QUESTION
                       if resolved.parsed.reading is Reading.QUESTION else proximity.REVERSED)
        return shared_terms.raised(self.searcher, question_ranking.ordered(
            resolved.bag, resolved.closeness, np.flatnonzero(resolved.allowed),
            match_scores(self.searcher, resolved.query, resolved.allowed, self.phrases),
            partial(proximity.rerank, self.searcher, words, reversed_by=reversed_by),
            proximity.RERANKED, max(limit, shared_terms.HEAD), resolved.parsed.reading),
            resolved.borrowed, self.phrases)[:limit]

    def _like_text(self) -> Resolved:
        """A pasted text: the papers most like it as a whole, by its key terms, as related
        papers are found, of those that the filters typed with it pass; the page says so."""
        shown = " ".join(self.q[:pasted.MAX_TEXT_CHARS].split())  # in the box, with its filters
        text, runs = pasted.typed_filters(shown)
        typed = pasted.TypedFilters.read(runs, self.parser.parse)
        parsed, key_terms = (ParsedQuery(text, None, filters=typed.filters),
                             similar.text_key_terms(self.searcher, text))
        result = SearchResult(self.request, shown, pasted=True, notes=list(typed.notes))
        if len(self.q) > pasted.MAX_TEXT_CHARS:
            result.notes.append(f"The text was cut to its first {pasted.MAX_TEXT_CHARS:,} "
                                "characters.")
        if not key_terms:
            result.notes.insert(0, pasted.NO_KEY_TERMS_NOTE.format(words=len(text.split())))
            nothing = docs_mask(self.searcher, ())
            return Resolved(result, parsed, None, nothing, nothing)
        allowed_by = typed.passing(self._matching, self.searcher.doc_count_all())

        def filtered(docs: np.ndarray) -> np.ndarray:
            return self._filtered(docs & allowed_by)

        ranked = similar.like_text(self.searcher, key_terms, text, pasted.LIKE_TEXT_CANDIDATES,
                                   similar.Vectors.of(self.current.vectors,
                                                      self.current.with_vectors),
                                   self.current.vector_model)
        closeness, near = self._closeness(text), None
        if closeness is not None:  # beside the papers most like it in words, in meaning
            ranked, near = by_meaning.with_near(ranked, closeness.of, filtered)
        found = [doc for doc, _ in ranked if allowed_by[doc]]
        allowed = filtered(docs_mask(self.searcher, found))
        listed = [(doc, score) for doc, score in ranked if allowed[doc]][:pasted.LIKE_TEXT_RESULTS]
        result.notes.insert(0, pasted.like_text_note(text, len(listed), typed.applied))
        result.near = 0 if near is None else sum(bool(near[doc]) for doc, _ in listed)
        # What the snippets mark: the key terms that name something ("without", "enables" rank,
        # but marked they only clutter the snippet).
        query = Or([Term("text", term, boost=weight) for term, weight in key_terms
                    if not is_function_word(term) and term not in FILLER_WORDS])
        return Resolved(result, parsed, query,
                        docs_mask(self.searcher, found[:pasted.LIKE_TEXT_RESULTS]),
                        docs_mask(self.searcher, [doc for doc, _ in listed]), likeness=listed,
                        near=near)

    def _sort_order(self) -> MultiFacet | None:
        by_venue = self.request.sort == "venue"
        return MultiFacet([FieldFacet("venue"), ScoreFacet()]) if by_venue else None

    def _matching(self, query: Query) -> np.ndarray:
        return matching_docs(self.searcher, matching_query(query), self.phrases)

    def _filtered(self, docs: np.ndarray) -> np.ndarray:
        filters = self.request.filters()
        return FacetFilter(self.current.columns, filters, docs).allowed() if filters else docs

    def _facet_counts(self, resolved: Resolved) -> dict[str, list[tuple[object, int]]]:
        near = resolved.near if resolved.joinable is not None else None  # counted as joinable
        return FacetFilter(self.current.columns, self.request.filters(), resolved.docs if near
                           is None else resolved.docs & ~near).counts(resolved.joinable)

    def _fallback(self, parsed: ParsedQuery, result: SearchResult, query: Query,
                  docs: np.ndarray) -> tuple[ParsedQuery, Query, np.ndarray]:
        """No match: try the spelling correction, whose matches are then ranked and followed
        on the page as its own would be (papers with some of the words follow either way)."""
        if result.corrected:
            corrected = self.parser.parse(result.corrected)
            if corrected.query is not None:
                corrected_docs = self._matching(corrected.query)
                if self._filtered(corrected_docs).any():
                    result.showing_corrected = True
                    return corrected, corrected.query, corrected_docs
        return parsed, query, docs

    def _partial(self, parsed: ParsedQuery, exact: np.ndarray, room: int,
                 with_meaning: bool = False) -> list[SearchHit]:
        """The best papers with most but not all of the query's parts (at least half of
        them; the words of a lone phrase are its parts), by the score of the parts they
        have; `with_meaning` (no paper holds every part), fused with their closeness in meaning
        and joined by the closest papers, labelled, where a paper holds a word ("zzqx": no)."""
        parts = (parsed.parts or phrase_words(parsed.query, parsed.text)
                 if parsed.query is not None else None)
        if parts is None:
            return []
        matches = question_ranking.part_matches(self.searcher, parts, self._matching)
        passing = ~exact & question_ranking.required(parts, self._matching, len(matches.complete))
        wanted = matches.count >= max(1, math.ceil(
            weights.WEIGHTS.partial_share * len(parts.words)))
        candidates = self._filtered(wanted & passing)
        words = " ".join(parsed.words) if with_meaning and matches.count.any() else ""
        closeness = self._closeness(words) if words else None
        if not candidates.any() and closeness is None:
            return []
        near = None if closeness is None else (closeness.of, lambda docs: self._filtered(
            docs & passing))
        return self._fill(Or([query for _, query in parts.words]), candidates, room, matches,
                          near)

    def _related_words(self, parsed: ParsedQuery, exact: np.ndarray,
                       room: int) -> tuple[list[str], list[SearchHit]]:
        """For a query of one word whose matches end before the page does: the best papers
        with a word of its family that it does not find ("memorize" for "memorization"),
        and those words. Derivations are kept apart in counts, not out of reach."""
        if (parsed.query is None or len(parsed.words) != 1 or excludes(parsed.query)
                or any(leaf.field() in FILTER_INDEX_FIELDS for leaf in parsed.query.leaves())):
            return [], []  # only a plain word: no inline filter or exclusion to carry over
        words = self.current.vocabulary.family(parsed.words[0])
        own = analyze(parsed.words[0])
        forms = list(dict.fromkeys(form for form in map(analyze, words) if form and form != own))
        if not forms:
            return [], []
        either = Or([text_query(form) for form in forms])
        candidates = self._filtered(self._matching(either) & ~exact)
        if not candidates.any():
            return [], []
        return words, self._fill(either, candidates, room)

    def _fill(self, either: Query, candidates: np.ndarray, room: int,
              parts: PartMatches | None = None,
              near: tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]] | None = None
              ) -> list[SearchHit]:
        """The best `room` of `candidates` as hits that follow the exact matches, by their
        BM25F score for `either` (whose terms the snippets mark): each word they hold weighs
        its IDF, so lacking a rare word costs more than lacking a common one. Each hit names
        the `parts` it lacks. With `near` (every paper's closeness in meaning, and the mask
        of those allowed), fused with it as a description's are (by_meaning.with_near)."""
        scores = match_scores(self.searcher, either, candidates, self.phrases)
        docs = np.flatnonzero(candidates)
        score = scores[docs] if scores is not None else np.zeros(len(docs))
        order = np.lexsort((docs, -score))
        best = [(int(docs[i]), float(score[i])) for i in order[:room if near is None else None]]
        close = None
        if near is not None:
            best, close = by_meaning.with_near(best, *near)
        return self._hits(best[:room], either, partial=True, parts=parts, near=close)

    def _hits(self, best: list[tuple[int, float]], query: Query, partial: bool = False,
              parts: PartMatches | None = None,
              near: np.ndarray | None = None) -> list[SearchHit]:
        """Ranked documents as hits, with snippets marking the query's terms and, where
        `parts` are given, the parts each lacks; those `near` in meaning alone say so."""
        ids = [self.current.ids[doc] for doc, _ in best]
        plain = self.texts(ids)
        terms = query_terms(query)
        return [SearchHit(paper_id, score, make_snippet(plain.get(paper_id, ""), terms),
                          partial=partial or (bool(missing) and not by_meaning),
                          missing=[] if by_meaning else missing, by_meaning=by_meaning)
                for paper_id, (doc, score) in zip(ids, best, strict=True)
                for missing in [parts.missing(doc) if parts is not None else []]
                for by_meaning in [bool(near is not None and near[doc])]]

    def _page(self, resolved: Resolved, start: int) -> list[SearchHit]:
        query = resolved.query
        assert query is not None  # run() pages only a query
        if resolved.bag is not None or resolved.likeness is not None:
            return self._hits(self._own_order(resolved, start + PER_PAGE)[start:], query,
                              parts=resolved.bag, near=resolved.near)
        number = self.current.ids.number
        return self._hits([(number(paper_id), score) for paper_id, score
                           in self._ranked(resolved, query, start + PER_PAGE)[start:]], query)

    def _ranked(self, resolved: Resolved, query: Query,
                limit: int) -> list[tuple[str, float]]:
        """The IDs and scores of the best `limit` matches that the filters allow."""
        allowed, docs = resolved.allowed, resolved.docs
        sortedby = self._sort_order()
        if sortedby is None:
            # Queries of plain words: the same scores as Whoosh's, summed over the posting
            # lists of the matches already found (a third of "learning" at L).
            best = top_matches(self.searcher, query, allowed, max(limit, proximity.RERANKED),
                               self.phrases)
            if best is not None:
                parsed = resolved.parsed
                parts = parsed.parts if parsed.query is query else None
                if parts is not None:
                    best = proximity.rerank(self.searcher, parts.single_words(), best)
                return [(self.current.ids[doc], score) for doc, score in best[:limit]]
        # The exact matches as a filter when facets filter them, or when the query excludes
        # words: Whoosh's AndNot matcher can let through documents the excluded part matches
        # (tests/search/test_matches.py). Otherwise none: a filter costs Whoosh its skipping.
        exact = (not np.array_equal(allowed, docs) or excludes(query)
                 or resolved.bag is not None)
        results = self.searcher.search(whoosh_query(query), limit=limit,
                                       filter=whoosh_filter(allowed) if exact else None,
                                       sortedby=sortedby)
        # Not list(results): that asks len(), which counts every match a second time.
        hits = [results[i] for i in range(results.scored_length())]
        # Sorted by venue, Whoosh reports the sort key where the score would be.
        return [(hit["id"], hit.score if isinstance(hit.score, float) else 0.0) for hit in hits]
