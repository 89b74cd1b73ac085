"""Search results, related papers and recommendations joined with their papers from the
database, read once per request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sqlmodel import Session

from app import people, series
from app.catalog import papers_by_id, venues_by_slug
from app.facets import FACETS, Names
from app.models import Paper
from app.people import rankings
from app.search.rank.similar import ANY, RELATED_PAPERS, Choice, Recommendation
from app.search.results import SearchRequest, SearchResult
from app.search.service import SearchService
from app.topics import load_taxonomy

RECOMMENDED = 20


class PaperLoader:
    """Papers read once per request: the search layer asks for the plain text of the papers
    it highlights or compares, and the page then shows the same papers."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.loaded: dict[str, Paper] = {}

    def papers(self, ids: list[str]) -> dict[str, Paper]:
        missing = [pid for pid in ids if pid not in self.loaded]
        if missing:
            self.loaded.update(papers_by_id(self.session, missing))
        return {pid: self.loaded[pid] for pid in ids if pid in self.loaded}

    def texts(self, ids: list[str]) -> dict[str, str]:
        return {pid: paper.plain for pid, paper in self.papers(ids).items()}


def run_search(search: SearchService, session: Session,
               request: SearchRequest) -> tuple[SearchResult, dict[str, Paper]]:
    """The search result and its papers. A hit whose paper the database no longer holds (an
    ingest committed, the index not yet updated) is left out rather than shown broken."""
    loader = PaperLoader(session)
    result = search.search(request, loader.texts)
    papers = loader.papers([hit.id for hit in [*result.hits, *result.partial]])
    shown = [hit for hit in result.hits if hit.id in papers]
    partial = [hit for hit in result.partial if hit.id in papers]
    if len(shown) < len(result.hits) or len(partial) < len(result.partial):
        result = replace(result, hits=shown, partial=partial)
    return result, papers


# Where each of the facet table's `Names` is read: every series, edition and topic; only the
# people and places a search shows or filters by (of thousands).
_NAMES: dict[Names, Callable[[Session, list[str]], dict[str, str]]] = {
    Names.SERIES: lambda session, _: {s.slug: s.name for s in series.list_series(session)},
    Names.EDITION: lambda session, _: {slug: v.label
                                       for slug, v in venues_by_slug(session).items()},
    Names.TOPIC: lambda session, _: {t.slug: t.name for t in load_taxonomy().topics},
    Names.INSTITUTION: lambda session, slugs: rankings.origin_names(session, "institution",
                                                                    slugs),
    Names.COUNTRY: lambda session, slugs: rankings.origin_names(session, "country", slugs),
    Names.AUTHOR: people.author_names,
}


def facet_names(session: Session, result: SearchResult,
                request: SearchRequest) -> dict[str, dict[str, str]]:
    """The names of a search's facet values and filters, by facet, where the facet table
    says they are (a value without one reads as its facet's `label` makes it): what the
    sidebar, the chips and the JSON show."""
    filters = request.filters()
    return {facet.name: _NAMES[facet.names](
                session, [str(value) for value, _ in result.facets.get(facet.name, [])]
                + [str(filters.get(facet.name, ""))])
            for facet in FACETS if facet.names is not None}


def related_papers(search: SearchService, session: Session, paper: Paper,
                   choice: Choice = ANY,
                   limit: int = RELATED_PAPERS) -> list[tuple[Paper, list[str]]]:
    """The paper's most similar papers (as `choice` asks) with the key terms they share."""
    loader = PaperLoader(session)
    related = search.related(paper.id, paper.plain, loader.texts, limit, choice)
    papers = loader.papers([r.id for r in related])
    return [(papers[r.id], r.shared_terms) for r in related if r.id in papers]


def recommend(search: SearchService, session: Session, listed: list[str], choice: Choice = ANY,
              limit: int = RECOMMENDED) -> list[tuple[Paper, Recommendation]]:
    """The papers most like the listed ones as a whole, with what the search found of each."""
    loader = PaperLoader(session)
    found = search.recommend(listed, loader.texts, choice, limit)
    papers = loader.papers([r.id for r in found])
    return [(papers[r.id], r) for r in found if r.id in papers]
