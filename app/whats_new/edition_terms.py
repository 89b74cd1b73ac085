"""How many papers of each edition hold each word and each two-word phrase: what "what's new"
(rising.py) compares across editions and years.

Counted from the index's own posting arrays when a generation is written (term_counts.py),
kept in a directory of the generation, and mapped here when the index is opened: every worker
shares the arrays' pages (12 MB at L).

Layout of the directory `edition_terms`, one .npy file each: `terms` (the analyzed terms,
one word or two joined by a space, as one newline-separated string), `editions` (edition
slugs), `papers` (papers per edition), and per edition a run of (term, papers) pairs:
`starts` (one more than editions), `term_ids` and `counts` (int32).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from app.search.index.held_files import mapped_arrays

TERMS_FILE = "edition_terms"


@dataclass(frozen=True)
class EditionTerms:
    terms: list[str]  # analyzed: "diffusion", "diffusion model", "in context"
    editions: list[str]  # edition slugs
    series: list[str]  # each edition's series slug
    years: np.ndarray  # each edition's year
    papers: np.ndarray  # papers per edition
    starts: np.ndarray
    term_ids: np.ndarray
    counts: np.ndarray

    def vector(self, editions: list[int]) -> np.ndarray:
        """Papers holding each term, summed over the editions (by position in `editions`)."""
        total = np.zeros(len(self.terms), dtype=np.int64)
        for e in editions:
            start, end = self.starts[e], self.starts[e + 1]
            np.add.at(total, self.term_ids[start:end], self.counts[start:end])
        return total

    @cached_property
    def position(self) -> dict[str, int]:
        """Each term's place in `terms`."""
        return {term: i for i, term in enumerate(self.terms)}

    @cached_property
    def catalog(self) -> np.ndarray:
        """Papers holding each term in the whole catalog."""
        return np.bincount(self.term_ids, weights=self.counts,
                           minlength=len(self.terms)).astype(np.int64)

    @cached_property
    def first_years(self) -> np.ndarray:
        """The year each term first appears in the catalog."""
        first = np.full(len(self.terms), np.iinfo(np.int32).max, dtype=np.int32)
        cell_years = np.repeat(self.years, np.diff(self.starts))
        np.minimum.at(first, self.term_ids, cell_years)
        return first


NO_TERMS = EditionTerms([], [], [], np.zeros(0, np.int32), np.zeros(0, np.int64),
                        np.zeros(1, np.int64),
                        np.zeros(0, np.int32), np.zeros(0, np.int32))


def read_edition_terms(directory: Path) -> EditionTerms:
    """The generation's counts (none where it was written before them)."""
    try:
        found = mapped_arrays(directory / TERMS_FILE)
        terms = str(found["terms"])
        return EditionTerms(terms.split("\n") if terms else [],
                            [str(slug) for slug in found["editions"]],
                            [str(slug) for slug in found["series"]], found["years"],
                            found["papers"], found["starts"], found["term_ids"],
                            found["counts"])
    except (OSError, KeyError, ValueError):
        return NO_TERMS


def opened_terms(parts: Mapping[str, object]) -> EditionTerms:
    """The counts of an opened generation (`OpenIndex.parts`)."""
    terms = parts[TERMS_FILE]
    assert isinstance(terms, EditionTerms)
    return terms
