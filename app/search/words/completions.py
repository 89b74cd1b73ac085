"""What the search box offers as one types: phrases of the catalog's titles and author keywords
("diffusion models", "graph neural networks") and author names (after `author:`), each with the
number of papers that use it, most used first.

Counted when the index is built or updated and kept beside it, in files of its generation like
the vocabulary, so that the first completion after a server starts is as fast as the others
(built from the database on the first request, it took 767 ms at L). Titles and keywords, not
abstracts: their phrases are the ones researchers type, and counting every run of words of
88,000 abstracts would hold millions of phrases in memory while the index is written.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.search.index.held_files import (
    counts_in,
    mapped_arrays,
    write_array_directory,
    write_counts,
)
from app.search.words.analysis import analyze
from app.search.words.prefix_table import PrefixTable
from app.search.words.vocabulary import without_addresses
from app.words import TITLE_PHRASE_BREAKS

PHRASES_FILE = "phrases.tsv"
AUTHORS_FILE = "authors.tsv"
COMPLETION_TABLES_DIR = "completions"  # both, made for lookups: mapped tables (prefix_table.py)
MIN_PAPERS = 2  # a phrase of one title is that paper's, not the field's
GOES_ON = 0.6  # a phrase followed by one word in this share of its papers is cut short
# The names with most papers that complete: each worker holds them (all 127,000 names of L,
# under each of their parts, took 29 MB of every worker; the 60,000 keep every name of two
# papers or more).
MAX_AUTHOR_NAMES = 60_000
PHRASE_WORDS = (2, 4)  # phrases of two to four words
_WORD = re.compile(r"[^\W_][\w'-]*")
_BREAK = re.compile(r"[^\w\s'-]+")  # punctuation ends a run of words
AUTHOR_PREFIX = "author:"  # what the search box types before an author's name
AUTHOR_SEPARATOR = " ; "  # how the index's author field joins names (index.paper_document)
_SHOWN = "\x1f"  # in an author key, before the name as shown


def title_phrases(headline: str) -> set[str]:
    """The phrases of a title (and keywords, one per line): runs of two to four words without
    punctuation or function words at their ends, lowercased."""
    found: set[str] = set()
    for line in without_addresses(headline.lower()).splitlines():
        for chunk in _BREAK.split(line):
            run: list[str] = []
            for word in [*_WORD.findall(chunk), ""]:
                if word and word not in TITLE_PHRASE_BREAKS and not word.isdigit():
                    run.append(word)
                    continue
                low, high = PHRASE_WORDS
                for n in range(low, high + 1):
                    found.update(" ".join(run[i:i + n]) for i in range(len(run) - n + 1))
                run = []
    return found


def author_names(authors: str) -> set[str]:
    return {name for name in (n.strip() for n in authors.split(AUTHOR_SEPARATOR)) if name}


@dataclass
class CompletionCounts:
    """Papers per title phrase and per author name, as an index build or update counts them."""

    phrases: Counter[str] = field(default_factory=Counter)
    authors: Counter[str] = field(default_factory=Counter)

    def add_document(self, document: dict[str, object]) -> None:
        self.phrases.update(title_phrases(str(document["headline"])))
        self.authors.update(author_names(str(document["author"])))

    def write(self, directory: Path) -> None:
        """The counts (which the next update adds to) and the tables made of them, which a
        server maps as they are: making them took 0.75 s at L."""
        write_counts(directory / PHRASES_FILE, self.phrases)
        write_counts(directory / AUTHORS_FILE, self.authors)
        write_array_directory(directory / COMPLETION_TABLES_DIR, self.tables())

    def tables(self) -> dict[str, np.ndarray]:
        """The arrays of the phrases' table and the author names' (`Completions.read`)."""
        return {**_phrase_table(self.phrases).arrays("phrase"),
                **_author_table(self.authors).arrays("author")}

    @classmethod
    def read(cls, directory: Path) -> CompletionCounts:
        return cls(counts_in(directory / PHRASES_FILE), counts_in(directory / AUTHORS_FILE))


@dataclass(frozen=True)
class Completions:
    """One index generation's phrases and authors, ready for prefix lookups."""

    phrases: PrefixTable
    authors: PrefixTable  # "sergey levine␟Sergey Levine", "levine␟Sergey Levine"

    @classmethod
    def read(cls, directory: Path) -> Completions:
        """The generation's tables (made from its counts where it was written before them)."""
        tables = mapped_arrays(directory / COMPLETION_TABLES_DIR,
                               lambda: CompletionCounts.read(directory).tables())
        return cls(PrefixTable.mapped(tables, "phrase"), PrefixTable.mapped(tables, "author"))

    def phrase(self, typed: str, limit: int) -> list[str]:
        """Phrases that complete the end of what was typed ("text-to-image diffusion m" →
        "text-to-image diffusion models"), the longest typed tail that some phrase starts
        with first."""
        words = typed.lower().split()
        for start in range(len(words)):
            tail = " ".join(words[start:])
            if len(tail) < 2:
                break
            found = self.phrases.completions(tail, limit)
            if found:
                head = " ".join(typed.split()[:start])
                return [f"{head} {phrase}".lstrip() for phrase in found]
        return []

    def author(self, typed: str, limit: int) -> list[str]:
        """Author names whose name or surname starts with what was typed."""
        found = self.authors.completions(" ".join(typed.lower().split()), limit * 2)
        return list(dict.fromkeys(key.partition(_SHOWN)[2] for key in found))[:limit]


def _phrase_table(counts: Counter[str]) -> PrefixTable:
    # One phrase per analyzed form: "graph neural network" and "graph neural networks" are one
    # completion, written as most papers write it, counted over both. A phrase that nearly
    # always goes on ("graph neural" → "graph neural networks") is offered as the longer one.
    best: dict[tuple[str, ...], tuple[int, str]] = {}
    total: Counter[tuple[str, ...]] = Counter()
    # In phrase order: a tie goes the same way in every build (counts.items() follows the
    # order of sets of strings, which differs from one process to the next).
    for phrase, n in sorted((phrase, n) for phrase, n in counts.items() if n >= MIN_PAPERS):
        key = analyze(phrase)
        total[key] += n
        if n > best.get(key, (0, ""))[0]:
            best[key] = (n, phrase)
    cut = {key[:-1] for key, n in total.items()
           if len(key) > 2 and n >= GOES_ON * total.get(key[:-1], n + 1)}
    return PrefixTable.of({phrase: total[key] for key, (_, phrase) in best.items()
                           if key not in cut})


def _author_table(counts: Counter[str]) -> PrefixTable:
    # Each name is found from its start and from each later part (the surname), and shown as
    # written: the key's part after the separator.
    keys = {}
    for name, n in counts.most_common(MAX_AUTHOR_NAMES):
        parts = name.lower().split()
        keys.update({f"{' '.join(parts[i:])}{_SHOWN}{name}": n for i in range(len(parts))})
    return PrefixTable.of(keys)
