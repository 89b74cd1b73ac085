"""What a page's view is. Each page's route builds one view, a dataclass of what the page
shows, and answers it in the format the address asks for (formats.RENDERERS): its template,
or its papers, whole, as a download. The page's JSON twin under /api/ is made from the same
view, so the page, its twin and its downloads cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from app.models import Edition, Paper
from app.search.results import SearchRequest


@dataclass(frozen=True)
class Queried:
    """Papers the database finds: conditions on `Paper`, in an order."""

    conditions: list[Any]
    order: list[Any]


@dataclass(frozen=True)
class Ranked:
    """Papers a search finds, best first."""

    query: SearchRequest


@dataclass(frozen=True)
class Listed:
    """Papers by ID, in the list's order."""

    ids: list[str]


@dataclass(frozen=True)
class PaperList:
    """A page's papers, whole (every page of its listing): what its downloads write."""

    found: Queried | Ranked | Listed
    name: str  # the download's file name, without its suffix
    title: str  # what a feed calls itself
    page_url: str


@dataclass(frozen=True)
class Citation:
    """One paper, cited: what its page's BibTeX and RIS write."""

    paper: Paper
    venue: Edition
    url: str


class Page(Protocol):
    """What the HTML renderer reads of a page's view."""

    template: ClassVar[str]

    def context(self) -> dict[str, Any]:
        """The template's variables."""
        ...


class View(Page, Protocol):
    """A page's view with downloads: every other renderer writes its papers."""

    @property
    def papers(self) -> PaperList | Citation: ...
