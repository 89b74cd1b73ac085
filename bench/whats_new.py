"""What's new, backtested: of the terms flagged rising in year Y (2012–2022, the whole
catalog against its previous three years), how many keep a higher share of papers in Y+1 and
in Y+2 than in Y−1. Shares are taken over the conferences compared in Y, so that a year with
more robotics conferences does not count as "robot" rising. Printed per year and overall for
the weighted log-odds of app/whats_new/rising.py at a few prior weights, and for ranking by the
plain ratio of shares (where rare terms dominate).

    CATALOG_DATA_DIR=... .venv/bin/python -m bench.whats_new [--first 2012 --last 2022]

Also checks that the counts are facts: for the top terms of a few editions, the papers a
search for the term finds in that edition (`--check`); and that what is listed names
concepts (`--words [N]`): each year's top N rising and first-seen terms (20), printed, and
any that hold a filler, generic or venue word (app/words.py), a two-letter
lowercase fragment, or an acronym shown without its meaning.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections.abc import Callable

import numpy as np

from app.config import get_settings
from app.search.index.opened import OpenIndex
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.whats_new.concepts import ConceptNames
from app.whats_new.edition_terms import EditionTerms, opened_terms
from app.whats_new.found import LIMIT, NewTerm
from app.whats_new.rising import (
    BEFORE,
    MIN_PAPERS,
    edition_whats_new,
    names_of,
    year_whats_new,
)
from app.words import FILLER_WORDS, GENERIC_WORDS, PREFIXES, VENUE_WORDS

WEIGHTS = (1.0, 0.1, 0.01)


def shares(terms: EditionTerms, series: set[str], year: int) -> np.ndarray:
    at = [i for i in range(len(terms.editions))
          if terms.years[i] == year and terms.series[i] in series]
    return terms.vector(at) / max(int(terms.papers[at].sum()), 1)


def by_ratio(terms: EditionTerms, year: int) -> list[str]:
    """The baseline: terms of MIN_PAPERS or more ranked by share now over share before."""
    earlier = sorted({int(y) for y in terms.years if y < year})[-BEFORE:]
    now_at = [i for i in range(len(terms.editions)) if terms.years[i] == year]
    before_at = [i for i in range(len(terms.editions)) if int(terms.years[i]) in earlier]
    now, before = terms.vector(now_at), terms.vector(before_at)
    ratio = ((now + 0.5) / max(int(terms.papers[now_at].sum()), 1)) / (
        (before + 0.5) / max(int(terms.papers[before_at].sum()), 1))
    ratio[now < MIN_PAPERS] = 0
    return [terms.terms[i] for i in np.argsort(-ratio, kind="stable")[:LIMIT]]


def precision(terms: EditionTerms, year: int, flagged: list[str]) -> float | None:
    """Of the flagged terms, the share whose share of papers in Y+1 and Y+2 stays above Y−1,
    over the conferences held in all four years."""
    held = [{terms.series[i] for i in range(len(terms.editions)) if terms.years[i] == y}
            for y in (year - 1, year, year + 1, year + 2)]
    series = set.intersection(*held)
    if not flagged or not series:
        return None
    position = {term: i for i, term in enumerate(terms.terms)}
    before, after1, after2 = (shares(terms, series, y) for y in (year - 1, year + 1, year + 2))
    kept = [after1[position[t]] > before[position[t]] and after2[position[t]] > before[position[t]]
            for t in flagged]
    return sum(kept) / len(kept)


def backtest(terms: EditionTerms, names: ConceptNames, first: int, last: int) -> None:
    rankers: dict[str, Callable[[int], list[str]]] = {
        f"log-odds, prior {w:g}": (lambda y, w=w: [t.term for t in year_whats_new(
            terms, names, y, prior_weight=w).rising]) for w in WEIGHTS}
    rankers["share ratio"] = lambda y: by_ratio(terms, y)
    print(f"{'year':<6}" + "".join(f"{name:>22}" for name in rankers))
    results: dict[str, list[float]] = {name: [] for name in rankers}
    for year in range(first, last + 1):
        row = []
        for name, ranker in rankers.items():
            found = precision(terms, year, ranker(year))
            if found is not None:
                results[name].append(found)
            row.append("—" if found is None else f"{found:.2f}")
        print(f"{year:<6}" + "".join(f"{cell:>22}" for cell in row))
    print(f"{'mean':<6}" + "".join(
        f"{statistics.fmean(v) if v else 0:>22.3f}" for v in results.values()))


def check(terms: EditionTerms, names: ConceptNames, search: PaperSearch,
          editions: list[str]) -> None:
    """The counts shown against a search for each term in its edition."""
    differ = total = 0
    for slug in editions:
        found = edition_whats_new(terms, names, slug)
        if found is None:
            continue
        listed: list[NewTerm] = found.rising + found.first_seen
        for term in listed:
            got = search.counts(SearchRequest(q=term.query, venue=slug)).total
            total += 1
            if got != term.papers:
                differ += 1
                print(f"  {slug}: {term.query!r} counted {term.papers}, search finds {got}")
    print(f"counts checked: {total}, differing from the search: {differ}")


_FRAGMENT = re.compile(r"[a-z]{2}")


def faults(term: NewTerm) -> list[str]:
    """What makes a listed term no research concept: a filler word in it, a term of generic
    and venue words only, a two-letter lowercase word, an acronym alone without a meaning."""
    words = term.shown.split()
    found = [f"filler {w!r}" for w in words if w.lower() in FILLER_WORDS]
    if all(w.lower() in GENERIC_WORDS | VENUE_WORDS for w in words) and not (
            len(words) > 1 and words[0].lower() in PREFIXES):  # "pre training", "cross view"
        found.append("generic or venue words only")
    found += [f"fragment {w!r}" for w in words if _FRAGMENT.fullmatch(w)]
    if len(words) == 1 and words[0].isupper() and not term.meaning:
        found.append("acronym without a meaning")
    return found


def words_check(terms: EditionTerms, names: ConceptNames, top: int) -> int:
    """Each year's top `top` rising and first-seen terms, printed with their faults; how
    many terms have one."""
    faulty = 0
    for year in sorted({int(y) for y in terms.years}):
        found = year_whats_new(terms, names, year, limit=top)
        for kind, listed in (("rising", found.rising), ("first seen", found.first_seen)):
            marked = []
            for term in listed:
                wrong = faults(term)
                faulty += bool(wrong)
                marked.append(term.label + (f" [{'; '.join(wrong)}]" if wrong else ""))
            print(f"{year} {kind:>10}: {', '.join(marked) or '—'}")
    print(f"terms with a fault in the top {top} of every year: {faulty}")
    return faulty


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=2012)
    parser.add_argument("--last", type=int, default=2022)
    parser.add_argument("--check", nargs="*", metavar="EDITION",
                        help="editions whose counts to check against searches")
    parser.add_argument("--words", nargs="?", type=int, const=20, metavar="N",
                        help="print and check each year's top N terms (20)")
    args = parser.parse_args()
    search = PaperSearch(get_settings().index_path)

    def run(current: OpenIndex) -> int:
        terms, names = opened_terms(current.parts), names_of(current)
        if not terms.terms:
            raise SystemExit("no edition terms in the index: rebuild it (catalog reindex)")
        backtest(terms, names, args.first, args.last)
        if args.check is not None:
            check(terms, names, search, args.check or terms.editions[:5])
        return words_check(terms, names, args.words) if args.words else 0

    raise SystemExit(1 if search.with_index(run, None) else 0)


if __name__ == "__main__":
    main()
