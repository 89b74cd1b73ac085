"""The search facets, one entry each: what a paper's value is, how a request and an inline
filter (`series:neurips`) read it, and how the sidebar and the chips show it.

The index schema and documents (search/index.py), the query language (search/query.py), the
search request and its URL (search/results.py, web/urls.py), the API's parameters
(web/deps.py), the names its values read as (web/results.py) and the sidebar (web/sidebar.py)
all read this table, so a new facet is one entry here plus the data it reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from app.ids import name_slug, slugify
from app.models import Edition, Paper
from app.words import clean_name


class Kind(Enum):
    """How a facet's values are written, parsed and shown."""

    SLUG = "slug"  # a slug; request values and `name:Value` are slugified ("NeurIPS" → neurips)
    EDITION = "edition"  # an edition's slug; `venue:icml 2026` matches its name's words
    YEAR = "year"  # a year; `year:2018-2020` is a range
    FLAG = "flag"  # one value or none ("code"), shown as "Has code"
    MULTI = "multi"  # several slugs a paper (its institutions), parsed as SLUG's are


class Names(Enum):
    """Where the names of a facet's values are, for values whose slug will not do: the
    catalog's series, editions and topics, or its people and places."""

    SERIES = "series"  # "NeurIPS" for neurips
    EDITION = "edition"  # "NeurIPS 2018" for neurips-2018
    TOPIC = "topic"  # the taxonomy's name
    INSTITUTION = "institution"  # as the institution's page writes it
    COUNTRY = "country"
    AUTHOR = "author"  # the most frequent spelling, as the author's page writes it


@dataclass(frozen=True)
class Facet:
    name: str  # the request parameter, the inline prefix and the index field
    title: str  # the sidebar's heading
    kind: Kind
    description: str  # of the API parameter
    example: str  # an inline value the search help shows
    value: Callable[[Paper, Edition], object]  # a paper's value, as indexed
    names: Names | None = None  # where its values' names are (None: `label` reads the slug)
    flag: str = ""  # a FLAG's one value
    stored: bool = False  # also a stored field of the index (read back with the hits)
    # Listed in the sidebar only once one of these facets has a value (editions once a
    # series is chosen: at 88,000 papers a query spans ~60 editions).
    shown_with: tuple[str, ...] = ()
    in_sidebar: bool = True  # years have a histogram of their own
    listed: int | None = None  # the most values counted for a search (of thousands)

    def parse(self, value: object) -> object:
        """A request parameter's value as the index holds it."""
        if self.kind is Kind.SLUG:
            return slugify(str(value))
        if self.kind is Kind.MULTI:  # as ingest made them: 李明 has a slug too
            name = clean_name(str(value))
            return name_slug(name) if name else ""
        return value

    def label(self, value: object, names: dict[str, str]) -> str:
        """How a value reads: its name where the page knows one, else words from the slug."""
        text = str(value)
        if self.kind is Kind.FLAG:
            return f"Has {text}"
        if text in names:
            return names[text]
        return (text.replace("-", " ").capitalize() if self.kind in (Kind.SLUG, Kind.MULTI)
                else text)

    def chip(self, value: object, names: dict[str, str]) -> str:
        """A filter in effect, above the results: "series: NeurIPS", "Has code"."""
        label = self.label(value, names)
        return label if self.kind is Kind.FLAG else f"{self.name}: {label}"


FACETS: tuple[Facet, ...] = (
    Facet("series", "Conference", Kind.SLUG, "Series slug, e.g. neurips", "neurips",
          lambda paper, venue: venue.series_slug, names=Names.SERIES),
    Facet("venue", "Edition", Kind.EDITION, "Edition slug, e.g. neurips-2018", "icml",
          lambda paper, venue: venue.slug, names=Names.EDITION, stored=True,
          shown_with=("series", "venue")),
    Facet("year", "Year", Kind.YEAR, "Year, e.g. 2018", "2026",
          lambda paper, venue: venue.year, stored=True, in_sidebar=False),
    Facet("topic", "Topic", Kind.SLUG, "Topic slug", "optimization",
          lambda paper, venue: paper.topic, names=Names.TOPIC, stored=True),
    Facet("status", "Status", Kind.SLUG, "Status slug, e.g. oral, spotlight, poster", "oral",
          lambda paper, venue: slugify(paper.status)),
    Facet("has", "Code", Kind.FLAG, "'code': only papers with code", "code",
          lambda paper, venue: "code" if paper.code_urls else "", flag="code", stored=True),
    Facet("institution", "Institution", Kind.MULTI,
          "Institution slug, e.g. eth-zurich (papers with it among their institutions)",
          '"ETH Zurich"', lambda paper, venue: _slugs(paper.institution_list),
          names=Names.INSTITUTION, listed=15),
    Facet("country", "Country", Kind.MULTI, "Country slug, e.g. china", "china",
          lambda paper, venue: _slugs(paper.country_list), names=Names.COUNTRY, listed=15),
    # One author, as their page has them (`author:` matches words of any author's name).
    Facet("by", "Author", Kind.MULTI,
          "Author slug, e.g. sergey-levine (papers with this author; one normalized name)",
          '"Sergey Levine"', lambda paper, venue: _slugs(paper.author_list),
          names=Names.AUTHOR, listed=15),
)
def _slugs(names: list[str]) -> str:
    return " ".join(name_slug(name) for name in names)


BY_NAME = {facet.name: facet for facet in FACETS}
NAMES = tuple(BY_NAME)
