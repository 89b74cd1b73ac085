"""Papers like a paper (its related papers) or like a reading list (recommendations), as a
page offers to choose them: of a series and a year, newest first, none like the papers marked
"less like this"; the form's state and the links that change one part of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from sqlmodel import Session

from app import catalog, series
from app.models import Paper
from app.search.rank.similar import Choice


@dataclass(frozen=True)
class LikenessForm:
    """The filters of papers like a paper or a list (series, year, newest first, the papers
    marked "less like this") as a page shows them, and its links that change one."""

    action: str  # the page's path
    kept: dict[str, str]  # what the page is of, e.g. the list's IDs
    choice: Choice
    all_series: list[series.Series]
    years: list[int]  # newest first
    less: list[Paper]  # those marked "less like this", in the order marked

    @classmethod
    def of(cls, session: Session, action: str, kept: dict[str, str],
           choice: Choice) -> LikenessForm:
        marked = catalog.papers_by_id(session, list(choice.less))
        return cls(action, kept, choice, series.list_series(session),
                   sorted(catalog.year_totals(session), reverse=True),
                   [marked[pid] for pid in choice.less if pid in marked])

    def url(self, less: Iterable[str] | None = None) -> str:
        """The page with these filters and these papers marked "less like this"."""
        marked = list(self.choice.less if less is None else less)
        query = {**self.kept, "series": self.choice.series, "year": self.choice.year or "",
                 "sort": "newest" if self.choice.newest else "", "less": ",".join(marked)}
        return f"{self.action}?{urlencode({k: v for k, v in query.items() if v})}"

    def less_like(self, paper_id: str) -> str:
        return self.url([*self.choice.less, paper_id])

    def undo(self, paper_id: str) -> str:
        return self.url([pid for pid in self.choice.less if pid != paper_id])
