"""What a page's view is. Each page's route builds one view, a dataclass of what the page
shows, rendered by its template; the page's JSON twin under /api/ is made from the same view.
A page with downloads also names its papers, whole (`PaperList`, `Citation`), and the address
picks which of the two is made (formats.RENDERERS): a download never builds the page."""

from __future__ import annotations

from collections.abc import Callable
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
class Searched:
    """Papers a search finds, best first."""

    query: SearchRequest


@dataclass(frozen=True)
class Listed:
    """Papers by ID, in the list's order."""

    ids: list[str]


@dataclass(frozen=True)
class PaperList:
    """A page's papers, whole (every page of its listing): what its downloads write."""

    found: Queried | Searched | Listed
    name: str  # the download's file name, without its suffix
    title: str  # what a feed calls itself
    page_url: str


@dataclass(frozen=True)
class Citation:
    """One paper, cited: what its page's BibTeX and RIS write."""

    paper: Paper
    venue: Edition
    url: str


class PageView(Protocol):
    """What the HTML renderer reads of a page's view."""

    template: ClassVar[str]

    def context(self) -> dict[str, Any]:
        """The template's variables."""
        ...


@dataclass(frozen=True)
class Answers:
    """What a page with downloads can answer, each made only when its format is asked: the
    view (the page) or the papers (a download)."""

    view: Callable[[], PageView]
    papers: Callable[[], PaperList | Citation]
