"""Search: the results page and its downloads, the search help, and their JSON twins
(/api/search, and /api/suggest, the search box's completions)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlmodel import Session

from app import catalog, series
from app.exports import ListFormat
from app.facets import BY_NAME
from app.models import Edition, Paper
from app.outputs import (
    ERRORS,
    RANKING_ERRORS,
    Expansion,
    FacetValue,
    ReadingOut,
    SearchHitOut,
    SearchOut,
    SuggestOut,
)
from app.paging import within_pages
from app.search.query.language import MAX_QUERY_CHARS, replace_word
from app.search.query.pasted import PASTED_TEXT_WORDS
from app.search.rank import by_meaning
from app.search.results import PER_PAGE, SearchRequest, SearchResult
from app.search.searcher import PaperSearch
from app.search.words.acronyms import Meaning
from app.search.words.synonyms import SYNONYM_GROUPS
from app.web import charts, sidebar
from app.web.deps import ReadySearchDep, SearchDep, SearchRequestDep, SessionDep
from app.web.formats import answer, render_view
from app.web.joined import facet_names, run_search
from app.web.urls import CARRIED_ONCE, paper_url_for, search_params, search_query_string
from app.web.views import Answers, PaperList, Searched

router = APIRouter(default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)
SUGGESTIONS = 8


@dataclass(frozen=True)
class SearchView:
    """A search's page: its result (hits, facets, the reading of the query), the hits'
    papers, and the names of the facets' values."""

    template: ClassVar[str] = "search.html"
    query: SearchRequest
    result: SearchResult
    found: dict[str, Paper]  # the hits' papers by ID
    venues: dict[str, Edition]
    names: dict[str, dict[str, str]]  # facet values' names, by facet
    year_totals: dict[int, int]  # every year's papers

    def context(self) -> dict[str, Any]:
        carried = len(self.query.q) > CARRIED_ONCE
        # `meaning:off` stays in the box and is said on the page: edited and searched again,
        # the words had silently come back with meaning (12 results became 112)
        words_alone, meaning_on = by_meaning.switched(self.query.q)
        return dict(result=self.result, papers=self.found, venues=self.venues,
                    meaning_off=not meaning_on, with_meaning=words_alone,
                    url_with=search_query_string, carried=carried,
                    carried_params=search_params(self.query, page=1) if carried else {},
                    chips=sidebar.chips(self.query, self.names),
                    sidebar=sidebar.sidebar(self.result, self.names),
                    alone=lambda text, word: replace_word(text, word, f'"{word}"'),
                    years=sidebar.year_histogram(self.result),
                    # Not for a long query: each column's link would repeat it (the sidebar's
                    # years filter as the columns do).
                    year_chart=None if carried else self._year_chart())

    def _year_chart(self) -> charts.ColumnChart | None:
        """The matches' share of each year's papers, when they span several years."""
        result = self.result
        counts = dict(result.facets.get("year", []))
        if not result.query or len(counts) < 2:
            return None
        return charts.column_chart(
            f"Share of each year's papers matching “{result.query}”",
            [(year, counts.get(year, 0) / total,
              "?" + search_query_string(result.request, year=year))
             for year, total in self.year_totals.items() if total], height=110, as_share=True)


def search_view(session: Session, search: PaperSearch, query: SearchRequest) -> SearchView:
    result, found = run_search(search, session, query)
    within_pages(result.paging)
    return SearchView(query, result, found, catalog.venues_by_slug(session),
                      facet_names(session, result, query), catalog.year_totals(session))


def search_paper_list(request: Request, query: SearchRequest) -> PaperList:
    """Every paper the search finds, best first: what its downloads write."""
    # Read as the search reads it: a right-to-left override typed in it had reversed the
    # feed's title in a reader, and `meaning:off` is no word of it.
    typed = " ".join(by_meaning.as_read(query.q)[0].split())
    return PaperList(Searched(query), "search", f"Search: {typed}" if typed else "Search",
                     f"{request.url_for('search')}?{search_query_string(query, page=1)}")


@router.get("/search")
@router.get("/search.{format}", name="search_download", tags=["downloads"])
def search(
    request: Request, session: SessionDep, search: ReadySearchDep, query: SearchRequestDep,
    format: ListFormat | None = None,
) -> Response:
    return answer(request, Answers(lambda: search_view(session, search, query),
                                   lambda: search_paper_list(request, query)), format)


@dataclass(frozen=True)
class SearchHelpView:
    """The search help: the query language, with the synonym table and the acronyms learned
    from the catalog's abstracts."""

    template: ClassVar[str] = "search_help.html"
    learned: list[Meaning]

    def context(self) -> dict[str, Any]:
        return dict(synonyms=SYNONYM_GROUPS, learned=self.learned,
                    pasted_words=PASTED_TEXT_WORDS)


@router.get("/help/search")
def search_help(request: Request, search: SearchDep) -> Response:
    return render_view(request, SearchHelpView(search.learned_acronyms()))


@api.get("/search", name="api_search", responses=RANKING_ERRORS)
def search_api(
    request: Request, session: SessionDep, search: ReadySearchDep, query: SearchRequestDep
) -> SearchOut:
    """Ranked papers for a query and filters, with facet counts; see /help/search."""
    view = search_view(session, search, query)
    result, url_for = view.result, paper_url_for(request)
    hits = []
    for hit in [*result.hits, *result.partial]:
        found = view.found[hit.id]
        hits.append(SearchHitOut.of(
            found, view.venues[found.edition_slug], url_for(found), score=round(hit.score, 4),
            snippet=hit.snippet, partial=hit.partial, missing=hit.missing,
            by_meaning=hit.by_meaning))
    return SearchOut(
        query=result.query, filters=query.filters(), sort=query.sort, page=result.page,
        pages=result.pages, per_page=PER_PAGE, total=result.total, message=result.message,
        corrected_query=result.corrected, showing_corrected=result.showing_corrected,
        pasted=result.pasted,
        partial_hits=len(result.partial), related_words=result.related_words,
        by_meaning=result.near,
        reading=ReadingOut(**asdict(result.reading), counted=result.reading.counted)
        if result.reading else None,
        expanded=[Expansion(word=word, also_matched=meanings)
                  for word, meanings in result.expansions],
        spellings=[Expansion(word=word, also_matched=[other])
                   for word, other in result.spellings],
        facets={name: [FacetValue(value=value, count=count,
                                  label=BY_NAME[name].label(value, view.names.get(name, {})))
                       for value, count in counts]
                for name, counts in result.facets.items()},
        hits=hits)


OPENSEARCH_SUGGESTIONS = {200: {"content": {"application/x-suggestions+json": {"schema": {
    "type": "array", "description": "[query, [completions]] (format=opensearch)",
    "minItems": 2, "maxItems": 2, "items": {"anyOf": [
        {"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}}}}}


@api.get("/suggest", name="api_suggest", response_model=SuggestOut,
         responses=OPENSEARCH_SUGGESTIONS)
def suggest(session: SessionDep, search: SearchDep, q: str = "",
            format: Literal["json", "opensearch"] = "json") -> Any:
    """Up to 8 completions for the search box, most used first: phrases of the catalog's
    titles and keywords that complete what was typed, conference series, then words that
    complete its last word; author names after `author:`. `format=opensearch` answers as
    browsers ask a search engine: `[query, [completions]]`."""
    q = q[:MAX_QUERY_CHARS]
    suggestions = search.suggest(q, SUGGESTIONS, [s.name for s in series.list_series(session)])
    if format == "opensearch":
        return JSONResponse([q, suggestions], media_type="application/x-suggestions+json")
    return SuggestOut(query=q, suggestions=suggestions)
