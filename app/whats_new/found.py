"""What what's new answers (rising.py finds it): the terms that rose or are new at an edition
or in a year, and what they were compared with. The pages and the API show it (web/)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NewTerm:
    term: str  # as the index holds it ("diffusion model")
    shown: str  # as most papers write it ("diffusion models", "LLM agents", "DM")
    meaning: str | None  # an acronym's, learned from the abstracts ("diffusion models")
    query: str  # the search that finds exactly the counted papers (with the group's filters)
    papers: int  # now
    share: float
    before: int  # papers holding it in the editions or years compared with
    before_share: float
    score: float  # z-score of the log-odds difference (first-seen terms: 0)

    @property
    def label(self) -> str:
        """As listed: "diffusion models", "DM (diffusion models)"."""
        return f"{self.shown} ({self.meaning})" if self.meaning else self.shown


@dataclass(frozen=True)
class WhatsNew:
    editions: list[str]  # the editions counted as now
    before_editions: list[str]  # and before
    years: list[int]  # now (one year)
    before_years: list[int]
    papers: int
    before_papers: int
    rising: list[NewTerm]
    first_seen: list[NewTerm]
    filters: dict[str, object]  # the search filters of the papers counted now
    # and, with the years of `before_years`, of those counted before: an edition's series
    before_filters: dict[str, object] = field(default_factory=dict)

    @property
    def before_query(self) -> str:
        """What a search adds to a term's query to find its papers counted before (nothing
        where nothing was)."""
        years = self.before_years
        return f" year:{min(years)}-{max(years)}" if years else ""


LIMIT = 15  # terms listed of each kind, unless a request asks for fewer or more
# What finds it: rising.whats_new(search, edition=, series=, year=, limit=), None where no
# papers are. The app holds it (app.state.whats_new, main.py), as it holds the search, so that
# the pages' lookup (web/deps.py) asks it without importing how it is found.
Finder = Callable[..., WhatsNew | None]
