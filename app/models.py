"""SQLModel tables: the database is the catalog's source of truth."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlmodel import Field, Index, SQLModel

from app.words import is_safe_url


class Edition(SQLModel, table=True):
    """One year of a conference ("ICML 2026")."""

    slug: str = Field(primary_key=True)  # "icml-2026"
    name: str  # "ICML"
    year: int = Field(index=True)
    paper_count: int = 0

    @property
    def label(self) -> str:
        return f"{self.name} {self.year}"

    @property
    def series_slug(self) -> str:
        """The conference across its years: the edition's slug without its year."""
        return self.slug.rsplit("-", 1)[0]


class Paper(SQLModel, table=True):
    __table_args__ = (
        Index("ix_paper_edition_ordinal", "edition_slug", "ordinal", unique=True),
        Index("ix_paper_edition_topic", "edition_slug", "topic", "ordinal"),
        Index("ix_paper_topic_edition", "topic", "edition_slug", "ordinal"),
    )

    id: str = Field(primary_key=True)  # stable: hash of venue and normalized abstract
    edition_slug: str = Field(foreign_key="edition.slug")
    # Position within the venue (0-based, in file and line order), renumbered at each ingest so
    # that page N of a venue is a range lookup on the index rather than an OFFSET scan.
    ordinal: int
    abstract: str  # verbatim from the list file
    plain: str  # readable text: what is indexed and what snippets are cut from
    html: str  # safe display HTML
    headline: str  # the title when the source has one, else the first sentence, shortened
    title: str = ""
    authors: str = ""  # one name per line, in order
    affiliations: str = ""  # one per author line, as written ("" where unknown), or none
    institutions: str = ""  # the paper's distinct institutions, one per line
    countries: str = ""  # the paper's distinct countries, one per line
    tldr: str = ""  # the source's one-sentence summary
    url: str = ""  # the paper's own page, when the source gives one
    keywords: str = ""  # the source's keywords, one per line
    status: str = ""  # the venue's decision as the source gives it: "Oral", "Poster", ...
    code_urls: str = ""  # code and project URLs, one per line
    topic: str = Field(default="other", index=True)  # the primary topic's slug
    topic_scores: str = "[]"  # JSON [[slug, score], ...]: primary first, then secondaries
    keyphrases: str = ""  # one per line, best first
    source_file: str = Field(index=True)
    source_line: int
    # A digest of what the source says besides the abstract (title, people, links, ...): a
    # re-ingested row whose digest changed replaces the stored paper.
    source_digest: str = ""
    added_at: datetime = Field(default_factory=lambda: datetime.now(UTC))  # first ingested

    @property
    def code_links(self) -> list[str]:
        return [url for url in self.code_urls.split() if is_safe_url(url)]

    @property
    def topic_list(self) -> list[tuple[str, float]]:
        return [(slug, score) for slug, score in json.loads(self.topic_scores)]

    @property
    def keyphrase_list(self) -> list[str]:
        return [k for k in self.keyphrases.split("\n") if k]

    @property
    def author_list(self) -> list[str]:
        return [a for a in self.authors.split("\n") if a]

    @property
    def keyword_list(self) -> list[str]:
        return [k for k in self.keywords.split("\n") if k]

    @property
    def affiliation_list(self) -> list[str]:
        """One per author ("" where unknown), or empty when the source gave none."""
        return self.affiliations.split("\n") if self.affiliations else []

    @property
    def institution_list(self) -> list[str]:
        return [i for i in self.institutions.split("\n") if i]

    @property
    def country_list(self) -> list[str]:
        return [c for c in self.countries.split("\n") if c]


class PaperAuthor(SQLModel, table=True):
    """Who wrote a paper, for author pages and `author:` search."""

    paper_id: str = Field(foreign_key="paper.id", primary_key=True)
    position: int = Field(primary_key=True)
    name: str
    slug: str = Field(index=True)


class PaperOrigin(SQLModel, table=True):
    """Where a paper comes from: each of its institutions and countries, for their pages,
    rankings and facets."""

    __table_args__ = (Index("ix_paperorigin_kind_slug", "kind", "slug"),
                      Index("ix_paperorigin_kind_edition", "kind", "edition_slug", "slug",
                            "paper_id"))

    paper_id: str = Field(foreign_key="paper.id", primary_key=True)
    kind: str = Field(primary_key=True)  # "institution" or "country"
    slug: str = Field(primary_key=True)
    name: str
    # The paper's edition, here too: a ranking counts an edition's rows from this table
    # alone (joined to the papers, all years took 2.1 s at L).
    edition_slug: str


class SourceFile(SQLModel, table=True):
    """One ingested file; its content hash lets an unchanged file be skipped."""

    name: str = Field(primary_key=True)
    sha256: str
    paper_count: int
    ingested_at: datetime


class CatalogState(SQLModel, table=True):
    """Key/value facts about the catalog, e.g. the version every changing ingest bumps."""

    key: str = Field(primary_key=True)
    value: str


class WordStat(SQLModel, table=True):
    """In how many papers each content word occurs: the IDF behind keyphrases."""

    word: str = Field(primary_key=True)
    df: int


class CatalogChange(SQLModel, table=True):
    """The papers each catalog version added or removed.

    A server whose index reflects version v applies the changes logged after v instead of
    rebuilding: whether a paper was added or removed is whether it is in `paper` now.
    """

    version: int = Field(primary_key=True)
    paper_id: str = Field(primary_key=True)


class PaperVector(SQLModel, table=True):
    """A paper's sentence vector (app/meaning), kept in the catalog so that a reindex never
    encodes again and the nodes of one catalog encode each paper once.

    No foreign key: an ingest that replaces a paper (same abstract, a changed status or
    author) deletes and inserts it, which would take a cascaded vector with it although its
    text, and so its vector, is the same. The encoding job drops the vectors of papers gone.
    """

    __tablename__ = "paper_vector"

    paper_id: str = Field(primary_key=True)  # the Paper's id
    # A short hash of the model and the exact text encoded (app/meaning/store.text_digest):
    # a paper whose text changed is encoded again.
    digest: str
    vector: bytes  # float16, little-endian, one value per dimension of the model
