"""A paper's JSON shapes: in the API's answers, the JSON and CSV exports and the reading
list. `source_url` is the paper's page at its source (the input's `url`), `page_url` its page
in this catalog; `url`, the same as `page_url`, is kept for one release (README)."""

from __future__ import annotations

from pydantic import BaseModel, computed_field

from app.models import Edition, Paper


class PageLinked(BaseModel):
    """A paper as the answers list it: its page in this catalog (`page_url`), and `url`, the
    same, made from it (kept for one release)."""

    page_url: str  # the paper's page in this catalog

    @computed_field  # type: ignore[prop-decorator]
    @property
    def url(self) -> str:
        return self.page_url


class TopicScore(BaseModel):
    slug: str
    score: float


class PaperOut(PageLinked):
    id: str
    venue: str  # the edition's label, e.g. "NeurIPS 2018"
    venue_slug: str
    series: str
    year: int
    status: str | None  # oral, spotlight, poster… when the source says
    headline: str  # the title when there is one, else the abstract's first sentence
    title: str | None  # the title as the source gives it (list files have none)
    abstract: str  # as written in the source, with its TeX and markdown
    authors: list[str]
    affiliations: list[str]  # one per author as written ("" where unknown), or none
    institutions: list[str]  # the paper's distinct institutions
    countries: list[str]
    tldr: str | None  # the source's one-sentence summary
    source_url: str | None  # the paper's page at its source
    keywords: list[str]  # the authors' keywords, when the source has them
    topic: str
    topics: list[TopicScore]
    keyphrases: list[str]
    code_urls: list[str]
    source_file: str
    source_line: int

    @classmethod
    def of(cls, paper: Paper, venue: Edition, url: str) -> PaperOut:
        return cls(
            id=paper.id, venue=venue.label, venue_slug=venue.slug, series=venue.series_slug,
            year=venue.year, status=paper.status or None, headline=paper.headline,
            title=paper.title or None, abstract=paper.abstract, authors=paper.author_list,
            affiliations=paper.affiliation_list, institutions=paper.institution_list,
            countries=paper.country_list, tldr=paper.tldr or None, source_url=paper.url or None,
            keywords=paper.keyword_list, topic=paper.topic,
            topics=[TopicScore(slug=slug, score=score) for slug, score in paper.topic_list],
            keyphrases=paper.keyphrase_list, code_urls=paper.code_links,
            source_file=paper.source_file, source_line=paper.source_line, page_url=url)


class RelatedOut(PageLinked):
    id: str
    headline: str
    venue: str
    venue_slug: str
    year: int
    shares: list[str]  # the key terms of the paper it shares

    @classmethod
    def of(cls, paper: Paper, venue: Edition, url: str, shares: list[str]) -> RelatedOut:
        return cls(id=paper.id, headline=paper.headline, venue=venue.label,
                   venue_slug=venue.slug, year=venue.year, page_url=url, shares=shares)


class PaperDetailOut(PaperOut):
    related: list[RelatedOut]
    bibtex: str


class RecommendationOut(PageLinked):
    id: str
    title: str | None
    headline: str
    venue: str
    venue_slug: str
    year: int
    score: float
    shares: list[str]  # the list's words this paper uses


class RecommendationsOut(BaseModel):
    ids: list[str]  # the listed IDs the catalog holds, in order
    unknown: list[str]  # listed IDs it does not hold (ignored)
    papers: list[RecommendationOut]
