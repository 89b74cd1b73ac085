"""The JSON shapes the catalog gives out, one model per thing: the API's twins of the pages
(a paper's own shapes are app/paper_json.py's, which the JSON exports build papers with too),
and /docs shows every shape."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.paper_json import PaperOut


class ErrorOut(BaseModel):
    error: str  # what was wrong, in a sentence
    status: int


# The errors every JSON route may answer, as /docs shows them.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "A parameter is malformed or out of range"},
    404: {"model": ErrorOut, "description": "Nothing has this identifier"},
    414: {"model": ErrorOut, "description": (  # middleware.LongAddresses, before any parameter
        "The address is over 32,768 characters, percent-decoded, as maxLength counts them")},
}
# What a route that ranks papers answers besides ERRORS: 503, with a Retry-After header, while
# this node has no index to rank them from yet (deps.ready_search).
RANKING_ERRORS: dict[int | str, dict[str, Any]] = {
    503: {"model": ErrorOut, "description": "The search index is being built: ask again after "
                                            "the Retry-After header's seconds"},
}


class VenueOut(BaseModel):
    slug: str
    name: str
    year: int
    label: str
    paper_count: int
    url: str


class VenuesOut(BaseModel):
    venues: list[VenueOut]


class EditionOut(BaseModel):
    slug: str
    year: int
    papers: int
    url: str


class SeriesOut(BaseModel):
    slug: str
    name: str
    papers: int
    url: str
    editions: list[EditionOut]


class SeriesListOut(BaseModel):
    series: list[SeriesOut]


class SeriesYearOut(BaseModel):
    year: int
    papers: int
    topics: dict[str, int]


class NamedOut(BaseModel):
    """An author, institution or country, with its papers (among those in question)."""

    slug: str
    name: str
    papers: int
    url: str


class PhraseCount(BaseModel):
    phrase: str
    papers: int


class NewTermOut(BaseModel):
    term: str  # as most papers write it ("diffusion models", "DMs")
    meaning: str | None  # an acronym's, as its papers write it out ("diffusion models")
    papers: int  # papers holding it now
    share: float  # of the papers now
    before: int  # papers holding it in the editions or years compared with
    before_share: float
    score: float  # z-score of its rise (weighted log-odds); 0 for a term seen first now
    search_url: str  # the papers counted (a search adds those that write its acronym)
    trend_url: str


class WhatsNewOut(BaseModel):
    editions: list[str]  # counted as now
    years: list[int]
    papers: int
    before_editions: list[str]  # compared with
    before_years: list[int]
    before_papers: int
    rising: list[NewTermOut]
    first_seen: list[NewTermOut]  # in the catalog for the first time


class VenuePapersOut(BaseModel):
    venue: VenueOut
    topic: str | None
    page: int
    pages: int
    per_page: int
    total: int
    papers: list[PaperOut]
    # What the edition's page shows of the whole edition, whatever page or topic is listed.
    topics: dict[str, int]  # papers per topic slug, most first
    keyphrases: list[PhraseCount]
    with_code: int
    previous: EditionOut | None  # the series' edition before this one
    next: EditionOut | None
    institutions: list[NamedOut]  # who publishes here: most papers first
    countries: list[NamedOut]
    whats_new: WhatsNewOut | None  # against the series' previous editions


class SeriesDetailOut(SeriesOut):
    years: list[SeriesYearOut]
    keyphrases: list[PhraseCount]
    institutions: list[NamedOut]  # who publishes here: most papers first
    countries: list[NamedOut]


class EditionCountOut(BaseModel):
    slug: str
    label: str
    papers: int


class SeriesCountOut(BaseModel):
    slug: str
    name: str
    papers: int
    editions: list[EditionCountOut]  # newest first


class YearCount(BaseModel):
    year: int
    papers: int


class ProfileOut(BaseModel):
    """An author's, an institution's or a country's page."""

    kind: str  # author, institution or country
    slug: str
    name: str  # as most of its papers write it
    paper_count: int
    years: list[YearCount]
    series: list[SeriesCountOut]  # most papers first
    topics: dict[str, int]  # papers per primary topic, most first
    keyphrases: list[PhraseCount]
    people: list[NamedOut]  # an author's co-authors; the most frequent authors of a place
    affiliations: list[PhraseCount]  # an author's, as written in their papers
    series_filter: str | None
    year_filter: int | None
    page: int
    pages: int
    papers: list[PaperOut]  # the page's papers, newest first


class RankedOut(NamedOut):
    share: float  # of the selection's papers
    previous: int | None  # papers in the editions just before, when there are any
    change: float | None  # share minus the share then


class RankingOut(BaseModel):
    kind: str  # institution or country
    series: str | None
    first_year: int | None
    last_year: int | None
    papers: int  # every paper of the selection
    known: int  # those whose source names their institutions (or countries)
    before: str | None  # what the change compares with, e.g. "ICLR 2024"
    ranked: list[RankedOut]


class AuthorsFoundOut(BaseModel):
    q: str
    authors: list[NamedOut]


class TopicOut(BaseModel):
    slug: str
    name: str
    description: str
    paper_count: int  # within the years asked
    share: float  # of all papers within the years
    typical_series_share: float  # the median over the series of the topic's share of theirs
    papers_per_series: dict[str, int]  # the matrix's row: series slug (or "other") → papers
    papers_per_venue: dict[str, int]  # edition slug → papers
    url: str


class MatrixColumnOut(BaseModel):
    slug: str  # a series, or "other": the smaller series summed
    name: str
    papers: int


class TopicsOut(BaseModel):
    first_year: int | None
    last_year: int | None
    series: list[MatrixColumnOut]  # the matrix's columns, largest first
    topics: list[TopicOut]  # largest first within the years


class TopicRef(BaseModel):
    slug: str
    name: str


class TopicYearOut(BaseModel):
    year: int
    papers: int  # on the topic
    all_papers: int


class TopicSeriesOut(BaseModel):
    slug: str
    name: str
    papers: int  # on the topic
    share: float  # of the series' papers
    of_topic: float  # of the topic's papers
    of_catalog: float  # the series' share of all papers


class TopicPapersOut(BaseModel):
    topic: TopicRef
    venue: str | None
    series: str | None
    year: int | None
    page: int
    pages: int
    total: int
    papers: list[PaperOut]
    # What the topic's page shows of the whole topic, whatever page or filter is listed.
    paper_count: int
    share: float  # of all papers
    typical_series_share: float  # the median over the series of the topic's share of theirs
    years: list[TopicYearOut]
    per_series: list[TopicSeriesOut]  # most papers on the topic first
    keyphrases: list[PhraseCount]


class SearchHitOut(PaperOut):
    score: float
    snippet: str  # HTML: escaped text with <mark> around the matched words
    partial: bool  # has most of the query's parts, not all
    missing: list[str]  # the parts it lacks, as typed
    by_meaning: bool  # listed for its closeness in meaning alone, not for its words


class FacetValue(BaseModel):
    value: str | int
    label: str  # as the sidebar shows it: a name ("ETH Zurich"), not a slug
    count: int


class Expansion(BaseModel):
    word: str
    also_matched: list[str]

class ReadingOut(BaseModel):
    """How a question or a description was read: what `total` counted."""
    kind: str  # "question" or "description"
    not_required: list[str]  # its function words, left out
    concepts: list[str]  # the parts that weigh, as typed
    complete: int  # papers (of the filters chosen) holding every concept
    # Where the encoder was unsure of a description: phrases that its closest papers share,
    # which raised the papers of the first page writing them (acronyms alone not named).
    borrowed: list[str]
    counted: str  # what `total` counts, in words


class SearchOut(BaseModel):
    query: str
    filters: dict[str, str | int]
    sort: str
    page: int
    pages: int
    per_page: int
    total: int
    message: str | None
    corrected_query: str | None
    showing_corrected: bool
    pasted: bool  # a pasted text (over 40 words): the hits are the papers most like it
    partial_hits: int
    related_words: list[str]  # the words of the query's family its partial hits hold
    by_meaning: int  # of `total`, the papers listed for their closeness in meaning alone
    # A question or a description (None for keywords): `total` counts every paper listed.
    reading: ReadingOut | None
    expanded: list[Expansion]
    spellings: list[Expansion] = []  # compounds: "pretraining" also matched "pre-training"
    facets: dict[str, list[FacetValue]]
    hits: list[SearchHitOut]


class TrendLineOut(BaseModel):
    q: str
    counts: list[int]
    shares: list[float]
    total: int
    note: str | None


class TrendsOut(BaseModel):
    years: list[int]
    totals: list[int]
    notes: list[str]
    terms: list[TrendLineOut]


class SuggestOut(BaseModel):
    query: str
    suggestions: list[str]
