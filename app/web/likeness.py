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
from app.search.rank.similar import MAX_LESS, Choice


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

    @property
    def nothing_chosen(self) -> str | None:
        """Why nothing can be listed, where the chosen series has no edition of the chosen
        year (the year menu offers every year of the catalog), or the catalog has no such
        series or year at all (an address typed or kept from another catalog): else None."""
        slug, year = self.choice.series, self.choice.year
        chosen = next((s for s in self.all_series if s.slug == slug), None)
        if slug and chosen is None:
            return f"The catalog has no series “{slug}”."
        if year is not None and year not in self.years:
            return (f"The catalog has no papers of {year}: its papers are of "
                    f"{_runs(self.years[::-1])}.")
        if chosen is None or year is None or year in chosen.years:
            return None
        return (f"The catalog has no {chosen.name} papers of {year}: its "
                f"{chosen.name} papers are of {_runs(chosen.years)}.")

    def url(self, less: Iterable[str] | None = None) -> str:
        """The page with these filters and these papers marked "less like this"."""
        marked = list(self.choice.less if less is None else less)
        query = {**self.kept, "series": self.choice.series, "year": self.choice.year or "",
                 "sort": "newest" if self.choice.newest else "", "less": ",".join(marked)}
        return f"{self.action}?{urlencode({k: v for k, v in query.items() if v})}"

    def less_like(self, paper_id: str) -> str:
        """Marked too: the newest `MAX_LESS` marks (a 101st had led to a 400 page)."""
        return self.url([*self.choice.less, paper_id][-MAX_LESS:])

    def undo(self, paper_id: str) -> str:
        return self.url([pid for pid in self.choice.less if pid != paper_id])


def _runs(years: list[int]) -> str:
    """Years in order as runs: "2013, 2014, 2017 to 2020" reads no year that is not there."""
    runs: list[list[int]] = []
    for year in years:
        if runs and year == runs[-1][-1] + 1:
            runs[-1].append(year)
        else:
            runs.append([year])
    return ", ".join(f"{run[0]} to {run[-1]}" if len(run) > 2 else ", ".join(map(str, run))
                     for run in runs)
