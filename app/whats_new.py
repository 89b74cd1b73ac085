"""What is new at an edition, or in a year: the words and two-word phrases whose share of
papers rose most against the three editions (or years) before, and those the catalog meets
there for the first time.

Rising terms are ranked by the weighted log-odds ratio with an informative Dirichlet prior
(Monroe, Colaresi and Quinn, 2008): each group's counts are smoothed towards the whole
catalog's frequencies, and the log-odds difference is divided by its standard deviation, so
a term in 3 papers of 400 does not outrank one in 300 of 10,000 on its ratio alone (the
backtest in bench/whats_new.py compares it with the plain ratio of shares).

Counts are papers that hold the term (search/edition_terms.py): the numbers a search for the
term, or the quoted phrase, in that edition gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.cache import ComputedOnce
from app.search.analysis import analyze
from app.search.edition_terms import EditionTerms
from app.search.opened import OpenIndex
from app.search.searcher import PaperSearch
from app.search.vocabulary import Vocabulary

BEFORE = 3  # editions of the series, or years of the catalog, compared with
MIN_PAPERS = 3  # a rising or new term is in at least this many papers now
MIN_Z = 2.0  # and rose by at least this many standard deviations
LIMIT = 15
# The prior's weight, in papers' worth of term counts: the groups' own size, so that the
# smoothing matters most for terms rare in both.
PRIOR_WEIGHT = 0.1
EXPLAINED = 0.7  # a word most of whose papers a listed phrase holds adds nothing beside it


@dataclass(frozen=True)
class NewTerm:
    term: str  # as the index holds it ("diffusion model")
    shown: str  # as most papers write it ("diffusion models")
    papers: int  # now
    share: float
    before: int  # papers holding it in the editions or years compared with
    before_share: float
    score: float  # z-score of the log-odds difference (first-seen terms: 0)

    @property
    def query(self) -> str:
        """The search that finds exactly the counted papers (with the group's filters)."""
        return f'"{self.shown}"' if " " in self.shown else self.shown


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


def log_odds_z(now: np.ndarray, before: np.ndarray, background: np.ndarray,
               prior_weight: float = PRIOR_WEIGHT) -> np.ndarray:
    """Monroe et al.'s z-scores of each term's rise from `before` to `now` (term counts),
    with a Dirichlet prior proportional to `background` of total weight `prior_weight`
    times the two groups' counts."""
    now = now.astype(np.float64)
    before = before.astype(np.float64)
    n_now, n_before = now.sum(), before.sum()
    a0 = prior_weight * (n_now + n_before)
    alpha = a0 * background / max(background.sum(), 1)
    alpha = np.maximum(alpha, 1e-9)
    delta = (np.log((now + alpha) / (n_now + a0 - now - alpha))
             - np.log((before + alpha) / (n_before + a0 - before - alpha)))
    return delta / np.sqrt(1 / (now + alpha) + 1 / (before + alpha))


def shown_form(term: str, vocabulary: Vocabulary) -> str:
    """The term as papers write it: each word's most used spelling that analyzes to it, or
    in capitals where only the acronym does (DARTS: "darts" is the plural of dart)."""
    written = []
    for word in term.split():
        candidates = vocabulary.completions(word[: max(2, len(word) - 1)], 40)
        written.append(next((c for c in candidates if analyze(c) == (word,)), None)
                       or next((c.upper() for c in [word, *candidates]
                                if analyze(c.upper()) == (word,)), word))
    return " ".join(written)


def edition_whats_new(terms: EditionTerms, vocabulary: Vocabulary, edition: str,
                      limit: int = LIMIT) -> WhatsNew | None:
    """An edition against its series' previous `BEFORE` editions (None: not in the index)."""
    at = {slug: i for i, slug in enumerate(terms.editions)}.get(edition)
    if at is None:
        return None
    year = int(terms.years[at])
    earlier = sorted((int(terms.years[i]), i) for i, series in enumerate(terms.series)
                     if series == terms.series[at] and terms.years[i] < year)[-BEFORE:]
    return _compare(terms, vocabulary, [at], [i for _, i in earlier], {"venue": edition}, limit)


def year_whats_new(terms: EditionTerms, vocabulary: Vocabulary, year: int,
                   limit: int = LIMIT, prior_weight: float = PRIOR_WEIGHT) -> WhatsNew:
    """A year's editions against the catalog's previous `BEFORE` years with papers (a series'
    year is its edition: `edition_whats_new`). Terms are ranked on the series held in both (a
    conference new that year would rank its own words), and their counts are those of all
    the year's papers."""
    editions = range(len(terms.editions))
    earlier = sorted({int(terms.years[i]) for i in editions if terms.years[i] < year})[-BEFORE:]
    now_at = [i for i in editions if terms.years[i] == year]
    before_at = [i for i in editions if int(terms.years[i]) in earlier]
    held = {terms.series[i] for i in now_at} & {terms.series[i] for i in before_at}
    return _compare(terms, vocabulary, now_at, before_at, {"year": year}, limit, prior_weight,
                    ranked_on=held)


def _expected(terms: EditionTerms, now_at: list[int], before_at: list[int]) -> np.ndarray:
    """What the earlier editions' counts would be with the series mix of now: each series'
    earlier rate of each term weighted by its share of the papers now. A year in which more
    robotics conferences were held does not make "robot" rise."""
    papers_now: dict[str, int] = {}
    for i in now_at:
        papers_now[terms.series[i]] = papers_now.get(terms.series[i], 0) + int(terms.papers[i])
    total_now = sum(papers_now.values())
    rate = np.zeros(len(terms.terms), dtype=np.float64)
    for name, papers in papers_now.items():
        earlier = [i for i in before_at if terms.series[i] == name]
        rate += (papers / total_now) * terms.vector(earlier) / int(terms.papers[earlier].sum())
    return rate * int(terms.papers[before_at].sum())


def _compare(terms: EditionTerms, vocabulary: Vocabulary, now_at: list[int],
             before_at: list[int], filters: dict[str, object], limit: int,
             prior_weight: float = PRIOR_WEIGHT, ranked_on: set[str] | None = None) -> WhatsNew:
    """`now_at` against `before_at` (editions), ranked on the editions of the `ranked_on`
    series (all when None), counted on all."""
    now, before = terms.vector(now_at), terms.vector(before_at)
    papers = int(terms.papers[now_at].sum())
    before_papers = int(terms.papers[before_at].sum())
    year = int(terms.years[now_at[0]]) if now_at else 0
    editions = sorted(terms.editions[i] for i in now_at)
    before_editions = sorted(terms.editions[i] for i in before_at)
    before_years = sorted({int(terms.years[i]) for i in before_at})
    if ranked_on is not None:
        now_at = [i for i in now_at if terms.series[i] in ranked_on]
        before_at = [i for i in before_at if terms.series[i] in ranked_on]

    def described(i: int, score: float) -> NewTerm:
        return NewTerm(terms.terms[i], shown_form(terms.terms[i], vocabulary), int(now[i]),
                       now[i] / max(papers, 1), int(before[i]),
                       before[i] / max(before_papers, 1), round(float(score), 2))

    rising: list[NewTerm] = []
    if now_at and before_at:
        ranked_now = terms.vector(now_at) if ranked_on is not None else now
        expected = _expected(terms, now_at, before_at)
        z = log_odds_z(ranked_now, expected, terms.catalog, prior_weight)
        rose = ((ranked_now * expected.sum() > expected * ranked_now.sum())
                & (now * before_papers > before * papers))
        candidates = np.flatnonzero((now >= MIN_PAPERS) & (z >= MIN_Z) & rose)
        ranked = candidates[np.argsort(-z[candidates], kind="stable")]
        rising = _without_repeats([described(i, z[i]) for i in ranked[: limit * 4]], limit)
    # Where the catalog holds nothing earlier, every term would be new.
    new = (np.flatnonzero((now >= MIN_PAPERS) & (terms.first_years == year))
           if year and terms.years.min() < year else [])
    first_seen = _without_repeats(
        [described(i, 0.0) for i in sorted(new, key=lambda i: (-now[i], terms.terms[i]))
         ][: limit * 4], limit)
    return WhatsNew(editions, before_editions, [year] if year else [], before_years,
                    papers, before_papers, rising, first_seen, filters)


def _without_repeats(ranked: list[NewTerm], limit: int) -> list[NewTerm]:
    """The ranked terms, where a phrase holds most of a word's papers ("quantum widgets" and
    "quantum"), with the phrase alone, in the better place of the two."""
    kept: list[NewTerm] = []
    for found in ranked:
        words = set(found.term.split())
        inside = [i for i, other in enumerate(kept) if set(other.term.split()) < words
                  and found.papers >= EXPLAINED * other.papers]
        if inside:
            kept[inside[0]] = found
            kept = [other for i, other in enumerate(kept) if i not in inside[1:]]
        elif not any(words < set(other.term.split()) and other.papers >= EXPLAINED * found.papers
                     for other in kept):
            kept.append(found)
        if len(kept) == limit:
            break
    return kept


# Kept per index generation: a page, its API twin and the home page ask for the same ones.
_found: ComputedOnce[tuple[object, ...], WhatsNew | None] = ComputedOnce(256)


def whats_new(search: PaperSearch, edition: str = "", series: str = "",
              year: int | None = None, limit: int = LIMIT) -> WhatsNew | None:
    """What is new at an edition; else in a year, of a series or of the whole catalog; else
    at a series' latest edition; else in the catalog's latest year. None where the index
    counts nothing (not built yet, written before its edition terms) or the edition or year
    holds no papers."""
    def work(current: OpenIndex) -> WhatsNew | None:
        return _found.get((current.identity, edition, series, year, limit), lambda: _find(
            current.edition_terms, current.vocabulary, edition, series, year, limit))

    return search.with_index(work, None)


def _find(terms: EditionTerms, vocabulary: Vocabulary, edition: str, series: str,
          year: int | None, limit: int) -> WhatsNew | None:
    if not terms.terms:
        return None
    if not edition and series:  # the series' edition of that year, or its latest
        held = [(int(terms.years[i]), slug) for i, slug in enumerate(terms.editions)
                if terms.series[i] == series and (year is None or terms.years[i] == year)]
        if not held:
            return None
        edition = max(held)[1]
    if edition:
        return edition_whats_new(terms, vocabulary, edition, limit)
    found = year_whats_new(terms, vocabulary, int(terms.years.max()) if year is None else year,
                           limit)
    return found if found.papers else None
