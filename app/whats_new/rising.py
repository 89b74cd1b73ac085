"""What is new at an edition, or in a year: the words and two-word phrases whose share of
papers rose most against the three editions (or years) before, and those the catalog meets
there for the first time.

Rising terms are ranked by the weighted log-odds ratio with an informative Dirichlet prior
(Monroe, Colaresi and Quinn, 2008): each group's counts are smoothed towards the whole
catalog's frequencies, and the log-odds difference is divided by its standard deviation, so
a term in 3 papers of 400 does not outrank one in 300 of 10,000 on its ratio alone (the
backtest in bench/whats_new.py compares it with the plain ratio of shares).

Counts are papers that hold the term (edition_terms.py): the numbers a search for the
term, or the quoted phrase, in that edition gives. Only terms that name research concepts are
listed (concepts.py: not "enhance" or "best paper", an acronym with its meaning); in a year,
only terms whose rise is not one conference's alone (IJCAI's area keywords, "ML", "GTEP").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from app.cache import ComputedOnce
from app.search.index.live import LiveIndex
from app.search.index.opened import OpenIndex
from app.search.pipeline import Search
from app.search.results import SearchRequest
from app.search.words.analysis import analyze
from app.whats_new.concepts import ConceptNames
from app.whats_new.edition_terms import EditionTerms, opened_terms
from app.whats_new.found import LIMIT, NewTerm, WhatsNew

BEFORE = 3  # editions of the series, or years of the catalog, compared with
MIN_PAPERS = 3  # a rising or new term is in at least this many papers now
MIN_Z = 2.0  # and rose by at least this many standard deviations
# In a year of this many papers compared or more, by this many: its thousands of papers make
# z-scores larger, and of the concepts that rose by 3 to 4 in 2012-2022, a tenth fell back
# within two years (a third of those below 3; bench/whats_new.py). Smaller years at L list
# fewer terms (2013: 5); a handful of papers (a test's) never reaches 4.
YEAR_PAPERS, MIN_Z_YEAR = 1000, 4.0
# The prior's weight, in papers' worth of term counts: the groups' own size, so that the
# smoothing matters most for terms rare in both.
PRIOR_WEIGHT = 0.1
EXPLAINED = 0.7  # a word most of whose papers a listed phrase holds adds nothing beside it
# A year's term whose rise is this share of one conference's, or more, is that conference's
# news (its edition lists it), where the year compares this many conferences at least.
ONE_SERIES, SERIES_COMPARED = 0.9, 3


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


def edition_whats_new(terms: EditionTerms, names: ConceptNames, edition: str,
                      limit: int = LIMIT) -> WhatsNew | None:
    """An edition against its series' previous `BEFORE` editions (None: not in the index)."""
    at = {slug: i for i, slug in enumerate(terms.editions)}.get(edition)
    if at is None:
        return None
    year = int(terms.years[at])
    earlier = sorted((int(terms.years[i]), i) for i, series in enumerate(terms.series)
                     if series == terms.series[at] and terms.years[i] < year)[-BEFORE:]
    return replace(_compare(terms, names, [at], [i for _, i in earlier], {"venue": edition},
                            limit), before_filters={"series": terms.series[at]})


def year_whats_new(terms: EditionTerms, names: ConceptNames, year: int,
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
    compared = sum(int(terms.papers[i]) for i in now_at if terms.series[i] in held)
    return _compare(terms, names, now_at, before_at, {"year": year}, limit, prior_weight,
                    ranked_on=held, min_z=MIN_Z_YEAR if compared >= YEAR_PAPERS else MIN_Z)


def _by_series(terms: EditionTerms, now_at: list[int], before_at: list[int]
               ) -> dict[str, tuple[int, np.ndarray]]:
    """Each series' papers now and its earlier rate of each term."""
    papers_now: dict[str, int] = {}
    for i in now_at:
        papers_now[terms.series[i]] = papers_now.get(terms.series[i], 0) + int(terms.papers[i])
    found = {}
    for name, papers in papers_now.items():
        earlier = [i for i in before_at if terms.series[i] == name]
        found[name] = (papers, terms.vector(earlier) / int(terms.papers[earlier].sum()))
    return found


def _expected(terms: EditionTerms, now_at: list[int], before_at: list[int]) -> np.ndarray:
    """What the earlier editions' counts would be with the series mix of now: each series'
    earlier rate of each term weighted by its share of the papers now. A year in which more
    robotics conferences were held does not make "robot" rise."""
    series = _by_series(terms, now_at, before_at)
    total_now = sum(papers for papers, _ in series.values())
    rate = sum((papers / total_now) * earlier for papers, earlier in series.values())
    return np.asarray(rate) * int(terms.papers[before_at].sum())


def _one_series(terms: EditionTerms, now_at: list[int], before_at: list[int]) -> np.ndarray:
    """Which terms rose at one conference alone: `ONE_SERIES` of the papers they gained over
    their earlier rates or more are that conference's (none where fewer than
    `SERIES_COMPARED` are compared)."""
    series = _by_series(terms, now_at, before_at)
    if len(series) < SERIES_COMPARED:
        return np.zeros(len(terms.terms), dtype=bool)
    gained = np.array([np.maximum(terms.vector(
        [i for i in now_at if terms.series[i] == name]) - papers * earlier, 0)
        for name, (papers, earlier) in series.items()])
    return gained.max(axis=0) >= ONE_SERIES * np.maximum(gained.sum(axis=0), 1e-9)


def _compare(terms: EditionTerms, names: ConceptNames, now_at: list[int],
             before_at: list[int], filters: dict[str, object], limit: int,
             prior_weight: float = PRIOR_WEIGHT, ranked_on: set[str] | None = None,
             min_z: float = MIN_Z) -> WhatsNew:
    """`now_at` against `before_at` (editions), ranked on the editions of the `ranked_on`
    series (all when None), counted on all; rising where z >= `min_z`."""
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

    def described(ranked: Iterable[int], scores: np.ndarray | None) -> list[NewTerm]:
        """The terms that name concepts, in order, as listed (at most `limit` * 4)."""
        found = []
        for i in ranked:
            named = names.name(terms.terms[i], lambda term: _count(terms, now, term))
            if named is not None:
                found.append(NewTerm(
                    terms.terms[i], named.shown, named.meaning, named.query, int(now[i]),
                    now[i] / max(papers, 1), int(before[i]), before[i] / max(before_papers, 1),
                    0.0 if scores is None else round(float(scores[i]), 2)))
                if len(found) == limit * 4:
                    break
        return found

    rising: list[NewTerm] = []
    if now_at and before_at:
        ranked_now = terms.vector(now_at) if ranked_on is not None else now
        expected = _expected(terms, now_at, before_at)
        z = log_odds_z(ranked_now, expected, terms.catalog, prior_weight)
        rose = ((ranked_now * expected.sum() > expected * ranked_now.sum())
                & (now * before_papers > before * papers) & (now >= MIN_PAPERS) & (z >= min_z))
        if ranked_on is not None:
            rose &= ~_one_series(terms, now_at, before_at)
        ranked = np.flatnonzero(rose)
        rising = _without_repeats(described(ranked[np.argsort(-z[ranked], kind="stable")], z),
                                  limit)
    # Where the catalog holds nothing earlier, every term would be new.
    new = (np.flatnonzero((now >= MIN_PAPERS) & (terms.first_years == year))
           if year and terms.years.min() < year else [])
    first_seen = _without_repeats(
        described(sorted(new, key=lambda i: (-now[i], terms.terms[i])), None), limit)
    return WhatsNew(editions, before_editions, [year] if year else [], before_years,
                    papers, before_papers, rising, first_seen, filters)


def _count(terms: EditionTerms, counts: np.ndarray, term: str) -> int | None:
    """A term's count in `counts` (None for a term not counted)."""
    at = terms.position.get(term)
    return None if at is None else int(counts[at])


def _without_repeats(ranked: list[NewTerm], limit: int) -> list[NewTerm]:
    """The ranked terms, where a phrase holds most of a word's papers ("quantum widgets" and
    "quantum"), with the phrase alone, in the better place of the two. An acronym holds the
    words of its meaning: "large language" adds nothing beside "LLMs (large language
    models)", nor "language" beside "language models", itself left out beside "LLMs"."""
    kept: list[tuple[NewTerm, set[str]]] = []
    seen: list[tuple[NewTerm, set[str]]] = []  # a phrase left out still holds its words
    for found in ranked:
        words = _words(found)
        inside = [i for i, (other, held) in enumerate(kept) if held < words
                  and found.papers >= EXPLAINED * other.papers]
        if inside:
            kept[inside[0]] = found, words
            kept = [pair for i, pair in enumerate(kept) if i not in inside[1:]]
        elif not any(words < held and other.papers >= EXPLAINED * found.papers
                     for other, held in seen):
            kept.append((found, words))
        seen.append((found, words))
        if len(kept) == limit:
            break
    return [term for term, _ in kept]


def _words(term: NewTerm) -> set[str]:
    """A term's words as the index holds them, with its meaning's for an acronym."""
    return set(term.term.split()) | set(analyze(term.meaning) if term.meaning else ())


# Kept per index generation: a page, its API twin and the home page ask for the same ones.
_found: ComputedOnce[tuple[object, ...], WhatsNew | None] = ComputedOnce(256)


def whats_new(search: LiveIndex, edition: str = "", series: str = "",
              year: int | None = None, limit: int = LIMIT) -> WhatsNew | None:
    """What is new at an edition; else in a year, of a series or of the whole catalog; else
    at a series' latest edition; else in the catalog's latest year. None where the index
    counts nothing (not built yet, written before its edition terms) or the edition or year
    holds no papers."""
    def work(current: OpenIndex) -> WhatsNew | None:
        return _found.get((current.identity, edition, series, year, limit), lambda: _searched(
            current, _find(opened_terms(current.parts), names_of(current), edition, series, year,
                           limit)))

    return search.with_index(work, None)


def _searched(current: OpenIndex, found: WhatsNew | None) -> WhatsNew | None:
    """The listed terms with the papers that their search finds, now and (rising terms)
    before, so that every count shown is what a search finds: a term's group adds its other
    forms ("reinforcement learning" 89 papers at NeurIPS 2018 by its postings, 96 with those
    writing RL; "vision language" 207 papers of 2022-2024 at L by its postings, 221 by its
    search). What ranks them stays the postings' counts."""
    if found is None:
        return None

    def search(q: str, filters: dict[str, object]) -> int:
        request = SearchRequest(q=q, **filters)  # type: ignore[arg-type]
        return Search(current, request, lambda ids: {}).run(with_hits=False).total

    def counted(term: NewTerm, earlier: bool = False) -> NewTerm:
        papers = search(term.query, found.filters)
        before = search(term.query + found.before_query, found.before_filters) if earlier \
            else term.before
        return replace(term, papers=papers, share=papers / max(found.papers, 1),
                       before=before, before_share=before / max(found.before_papers, 1))

    return replace(found, rising=[counted(term, True) for term in found.rising],
                   first_seen=list(map(counted, found.first_seen)))


# Kept per opening of an index generation, with what they looked up (which words papers write
# in capitals): they read the index they were made from, which closes with its opening.
_names: ComputedOnce[int, ConceptNames] = ComputedOnce(2)


def names_of(current: OpenIndex) -> ConceptNames:
    """How what's new names the open index's terms."""
    return _names.get(current.opening, lambda: ConceptNames.of(current))


def _find(terms: EditionTerms, names: ConceptNames, edition: str, series: str,
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
        return edition_whats_new(terms, names, edition, limit)
    found = year_whats_new(terms, names, int(terms.years.max()) if year is None else year,
                           limit)
    return found if found.papers else None
