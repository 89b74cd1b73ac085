"""A paper's JSON shapes: in the API's answers, the JSON and CSV exports and the reading
list. `source_url` is the paper's page at its source (the input's `url`), `page_url` its page
in this catalog; `url`, the same as `page_url`, is kept for one release (README).

Each shape reads its fields from the paper by name (`PageLinked.of`), so a new column of
`models.Paper` reaches the JSON with one declaration here; a field shown under another name
or shape than the column's says which attribute it is read from (`validation_alias`)."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Self

from pydantic import BaseModel, BeforeValidator, Field, computed_field

from app.models import Edition, Paper

# What the source gave, or None where it gave nothing (the catalog stores "").
Given = Annotated[str | None, BeforeValidator(lambda value: value or None)]


class PageLinked(BaseModel):
    """A paper as the answers list it: its page in this catalog (`page_url`), and `url`, the
    same, made from it (kept for one release)."""

    page_url: str  # the paper's page in this catalog

    @computed_field  # type: ignore[prop-decorator]
    @property
    def url(self) -> str:
        return self.page_url

    @classmethod
    def of(cls, paper: Paper, venue: Edition, page_url: str, **added: Any) -> Self:
        """The shape of `paper`: each field read from the paper by its name (or its alias),
        except its edition's (`venue`, `venue_slug`, `series`, `year`), `page_url` and
        whatever the answer adds (a score, the words it shares)."""
        given = {"venue": venue.label, "venue_slug": venue.slug, "series": venue.series_slug,
                 "year": venue.year, "page_url": page_url, **added}
        return cls.model_validate({key: given[key] if key in given else getattr(paper, key)
                                   for key in _keys(cls)})


@cache
def _keys(shape: type[BaseModel]) -> tuple[str, ...]:
    """The names a shape's fields are read by: their alias, else their own."""
    return tuple(str(field.validation_alias or name)
                 for name, field in shape.model_fields.items())


class TopicScore(BaseModel):
    slug: str
    score: float


def _topic_scores(pairs: list[tuple[str, float]]) -> list[dict[str, object]]:
    return [{"slug": slug, "score": score} for slug, score in pairs]


class PaperOut(PageLinked):
    id: str
    venue: str  # the edition's label, e.g. "NeurIPS 2018"
    venue_slug: str
    series: str
    year: int
    status: Given  # oral, spotlight, poster… when the source says
    headline: str  # the title when there is one, else the abstract's first sentence
    title: Given  # the title as the source gives it (list files have none)
    abstract: str  # as written in the source, with its TeX and markdown
    authors: list[str] = Field(validation_alias="author_list")
    # One per author as written ("" where unknown), or none.
    affiliations: list[str] = Field(validation_alias="affiliation_list")
    # The paper's distinct institutions.
    institutions: list[str] = Field(validation_alias="institution_list")
    countries: list[str] = Field(validation_alias="country_list")
    tldr: Given  # the source's one-sentence summary
    source_url: Given = Field(validation_alias="url")  # the paper's page at its source
    # The authors' keywords, when the source has them.
    keywords: list[str] = Field(validation_alias="keyword_list")
    topic: str
    topics: Annotated[list[TopicScore], BeforeValidator(_topic_scores)] = Field(
        validation_alias="topic_list")
    keyphrases: list[str] = Field(validation_alias="keyphrase_list")
    code_urls: list[str] = Field(validation_alias="code_links")
    source_file: str
    source_line: int


class RelatedOut(PageLinked):
    id: str
    headline: str
    venue: str
    venue_slug: str
    year: int
    shares: list[str]  # the key terms of the paper it shares


class PaperDetailOut(PaperOut):
    related: list[RelatedOut]
    bibtex: str


class RecommendationOut(PageLinked):
    id: str
    title: Given
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
