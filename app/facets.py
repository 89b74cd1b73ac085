"""The search facets, one entry each: what a paper's value is, and its kind: how the index
holds it, how a request and an inline filter (`series:neurips`) read it, and how the sidebar
and the chips show it.

The index schema and documents (search/index/), the query language (search/query/), the
search request and its URL (search/results.py, web/urls.py), the API's parameters
(web/deps.py), the names its values read as (web/joined.py) and the sidebar (web/sidebar.py)
all read this table and ask the kind, so a new facet is one entry here plus the data it reads,
and a new flag (`has:pdf`) one entry of `HAS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field
from whoosh.fields import ID, KEYWORD, NUMERIC, FieldType
from whoosh.query import And, NumericRange, Query, Term

from app.ids import name_slug, slugify
from app.models import Edition, Paper
from app.search.words.analysis import word_analyzer
from app.words import clean_name


class FacetKind:
    """How a facet's values are indexed, asked for, parsed, searched and shown: a slug, the
    base of the others. Every difference between facets' kinds lives in these classes."""

    several = False  # a paper may have several values (its institutions): a run of codes
    request_type: Any = str  # a request's value
    none: object = ""  # a request without this filter

    def field(self, stored: bool) -> FieldType:
        """The facet's index field: a column (filters and counts by array) with terms (the
        inline `name:value` filters)."""
        return ID(stored=stored, sortable=True)

    def parameter(self) -> tuple[Any, object]:
        """The API parameter's type and default."""
        return self.request_type, self.none

    def indexed(self) -> str:
        """What decides the values an index holds beyond its field (a table of flags), for
        the index format: a change makes every node rebuild."""
        return ""

    def parse(self, value: object) -> object:
        """A request parameter's value as the index holds it ("NeurIPS" → neurips)."""
        return slugify(str(value))

    def query(self, name: str, value: str) -> Query | None:
        """An inline filter, `name:value`; None when the value cannot be one."""
        slug = self.parse(value)
        return Term(name, slug) if slug else None

    def label(self, value: object, names: dict[str, str]) -> str:
        """How a value reads: its name where the page knows one, else words of the slug."""
        text = str(value)
        return names.get(text, text.replace("-", " ").capitalize())

    def chip(self, name: str, value: object, names: dict[str, str]) -> str:
        """A filter in effect, above the results: "series: NeurIPS"."""
        return f"{name}: {self.label(value, names)}"


class Several(FacetKind):
    """Several slugs a paper (its institutions), each made as ingest made it (李明 has one)."""

    several = True

    def field(self, stored: bool) -> FieldType:
        return KEYWORD(stored=stored, sortable=True)

    def parse(self, value: object) -> object:
        name = clean_name(str(value))
        return name_slug(name) if name else ""


class EditionKind(FacetKind):
    """An edition's slug; inline, `venue:icml 2026` is the words of its name."""

    def query(self, name: str, value: str) -> Query | None:
        words = word_analyzer().terms(value)
        return And([Term("venue_name", w) for w in words]) if words else None

    def label(self, value: object, names: dict[str, str]) -> str:
        return names.get(str(value), str(value))


# A year a catalog can hold (ingest refuses others), or none: a form's "All years" (or "first",
# "last") sends `year=`, which chooses nothing; it is no bad integer (it was a 400 page on every
# related-papers and reading-list form left at "All years").
OptionalYear = Annotated[Annotated[int, Field(ge=1900, le=2100)] | None,
                         BeforeValidator(lambda value: None if value == "" else value)]


class YearKind(FacetKind):
    """A year; inline, `year:2018-2020` is a range."""

    request_type = OptionalYear
    none = None

    def field(self, stored: bool) -> FieldType:
        return NUMERIC(int, stored=stored, sortable=True, signed=False)

    def parse(self, value: object) -> object:
        return value

    def query(self, name: str, value: str) -> Query | None:
        if value.isdigit() and len(value) == 4:
            return NumericRange(name, int(value), int(value))
        match = YEAR_RANGE.match(value)
        return NumericRange(name, int(match[1]), int(match[2])) if match else None

    def label(self, value: object, names: dict[str, str]) -> str:
        return str(value)


@dataclass(frozen=True)
class Flags(FacetKind):
    """What a paper has, of a table of flags ("code"): several a paper, one asked at a
    time, shown as "Has code"."""

    tests: dict[str, Callable[[Paper], bool]] = field(default_factory=dict)
    several = True

    def field(self, stored: bool) -> FieldType:
        return KEYWORD(stored=stored, sortable=True)

    def parameter(self) -> tuple[Any, object]:
        return Literal["", *self.tests], ""  # type: ignore[valid-type]

    def parse(self, value: object) -> object:
        return value

    def indexed(self) -> str:
        # A new flag (`has:pdf`) is indexed for every paper only by a rebuild: without it in
        # the format, older indexes never held it and `has:pdf` found nothing.
        return ",".join(self.tests)

    def of(self, paper: Paper) -> str:
        """A paper's flags, as indexed."""
        return " ".join(flag for flag, test in self.tests.items() if test(paper))

    def query(self, name: str, value: str) -> Query | None:
        return Term(name, value.lower()) if value.lower() in self.tests else None

    def label(self, value: object, names: dict[str, str]) -> str:
        return f"Has {value}"

    def chip(self, name: str, value: object, names: dict[str, str]) -> str:
        return self.label(value, names)


YEAR_RANGE = re.compile(r"^(\d{4})\s*(?:-|\.\.)\s*(\d{4})$")
# What a paper can have (`has:code`): a new flag is one entry here.
HAS = Flags({"code": lambda paper: bool(paper.code_urls)})


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
    kind: FacetKind
    description: str  # of the API parameter
    example: str  # an inline value the search help shows
    value: Callable[[Paper, Edition], object]  # a paper's value, as indexed
    names: Names | None = None  # where its values' names are (None: `label` reads the slug)
    stored: bool = False  # also a stored field of the index (read back with the hits)
    # Listed in the sidebar only once one of these facets has a value (editions once a
    # series is chosen: at 88,000 papers a query spans ~60 editions).
    shown_with: tuple[str, ...] = ()
    in_sidebar: bool = True  # years have a histogram of their own
    listed: int | None = None  # the most values counted for a search (of thousands)

    def parse(self, value: object) -> object:
        return self.kind.parse(value)

    def label(self, value: object, names: dict[str, str]) -> str:
        return self.kind.label(value, names)

    def chip(self, value: object, names: dict[str, str]) -> str:
        return self.kind.chip(self.name, value, names)


SLUG, SEVERAL, EDITION, YEAR = FacetKind(), Several(), EditionKind(), YearKind()
FACETS: tuple[Facet, ...] = (
    Facet("series", "Conference", SLUG, "Series slug, e.g. neurips", "neurips",
          lambda paper, venue: venue.series_slug, names=Names.SERIES),
    Facet("venue", "Edition", EDITION, "Edition slug, e.g. neurips-2018", "icml",
          lambda paper, venue: venue.slug, names=Names.EDITION, stored=True,
          shown_with=("series", "venue")),
    Facet("year", "Year", YEAR, "Year, e.g. 2018", "2026",
          lambda paper, venue: venue.year, stored=True, in_sidebar=False),
    Facet("topic", "Topic", SLUG, "Topic slug", "optimization",
          lambda paper, venue: paper.topic, names=Names.TOPIC, stored=True),
    Facet("status", "Status", SLUG, "Status slug, e.g. oral, spotlight, poster", "oral",
          lambda paper, venue: slugify(paper.status)),
    Facet("has", "Code", HAS, "'code': only papers with code", "code",
          lambda paper, venue: HAS.of(paper), stored=True),
    Facet("institution", "Institution", SEVERAL,
          "Institution slug, e.g. eth-zurich (papers with it among their institutions)",
          '"ETH Zurich"', lambda paper, venue: _slugs(paper.institution_list),
          names=Names.INSTITUTION, listed=15),
    Facet("country", "Country", SEVERAL, "Country slug, e.g. china", "china",
          lambda paper, venue: _slugs(paper.country_list), names=Names.COUNTRY, listed=15),
    # One author, as their page has them (`author:` matches words of any author's name).
    Facet("by", "Author", SEVERAL,
          "Author slug, e.g. sergey-levine (papers with this author; one normalized name)",
          '"Sergey Levine"', lambda paper, venue: _slugs(paper.author_list),
          names=Names.AUTHOR, listed=15),
)
def _slugs(names: list[str]) -> str:
    return " ".join(name_slug(name) for name in names)


BY_NAME = {facet.name: facet for facet in FACETS}
NAMES = tuple(BY_NAME)
