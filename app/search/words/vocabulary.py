"""The catalog's words as written (lowercased, accents folded) and how many papers use each:
what prefix searches (`optim*`), completions and "did you mean" look words up in.

Kept beside the Whoosh index, in one file of its generation, rather than as an indexed field:
a field of unstemmed words doubled the postings the index writer sorts and writes, while
these features only ever need the word list and its document frequencies (index build of
3,000 abstracts: 235 → 432 papers/s without it).

Like Whoosh's own term dictionary, counts grow when papers are added and are corrected only
by the next full build when papers are removed: a removed paper's rare word may still be
offered as a completion, and then finds nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from whoosh.lang import porter2

from app.search.index.held_files import (
    counts_in,
    mapped_arrays,
    write_array_directory,
    write_counts,
)
from app.search.index.whoosh.corrector import FrequencyCorrector
from app.search.words.american_spelling import americanize
from app.search.words.analysis import fold_inflections, word_analyzer
from app.search.words.prefix_table import PrefixTable

VOCABULARY_FILE = "vocabulary.tsv"
WORD_TABLES_DIR = "vocabulary"  # the file's words and compounds as mapped tables (prefix_table.py)
# Two words joined by a hyphen: counted beside the words, for a compound's other spelling
# (spellings.py); under keys with a hyphen, which no word as written has.
HYPHENATED = re.compile(r"(?<![\w-])[a-z]{2,}-[a-z]{2,}(?![\w-])")
FAMILY_WORDS = 6  # a word's family offered when its own matches run out
FAMILY_CANDIDATES = 200  # the most used words that start as its root, whose stems are checked
MIN_FAMILY_ROOT = 4  # shorter roots ("gen", "pos") gather unrelated words


# Web and e-mail addresses: their parts ("sergeytulyakov", "zzhang05") are no words to offer.
_DOMAINS = r"\.(?:com|org|net|io|edu|ai|gov|dev|ly|me|html?)\b"
_DOMAIN = re.compile(_DOMAINS, re.IGNORECASE)
_ADDRESS = re.compile(
    # A scheme as text pulled from a PDF spaces or misreads it ("https: //github.com/...",
    # "https: / /", "https:llgithub"): 41 papers of L offered "https" as a word, 16 "http";
    # and arXiv's stand-in for a link it took out.
    r"\b(?:https?|ftp)\s?(?::\s?(?-i:[/lI|])|//)(?-i:[\s/lI|])*\S*|\bthis\s+https?\s+url\b"
    rf"|\S*(?:://|@|www\.)\S*|\S+{_DOMAINS}\S*", re.IGNORECASE)


def without_addresses(text: str) -> str:
    # Most texts hold no address: a search for the few marks an address must have is far
    # cheaper than the substitution (which was a fifth of an index build).
    if ("//" in text or "@" in text or "www." in text or "ttp" in text or "TTP" in text
            or _DOMAIN.search(text)):
        return _ADDRESS.sub(" ", text)
    return text


def paper_words(text: str) -> set[str]:
    """The distinct words of one paper's text, as the vocabulary counts them (not the parts
    of web or e-mail addresses)."""
    return word_analyzer().distinct(without_addresses(text))


def hyphenated_words(text: str) -> set[str]:
    """The distinct compounds of two words the text writes with a hyphen ("pre-training";
    not the parts of longer ones, "state-of-the-art")."""
    return set(HYPHENATED.findall(text.lower()))


@dataclass
class WordCounts:
    """Papers per word, as an index build or update counts them: the vocabulary's file."""

    papers: Counter[str] = field(default_factory=Counter)

    def add_document(self, document: dict[str, object]) -> None:
        text = str(document["text"])
        self.papers.update(paper_words(text))
        self.papers.update(hyphenated_words(text))

    def write(self, directory: Path) -> None:
        """The words, and the hyphenated compounds the catalog also writes closed: counts
        (which the next update adds to), and the tables a server maps."""
        papers = self.papers
        kept = Counter({key: n for key, n in papers.items()
                        if n > 0 and ("-" not in key or key.replace("-", "") in papers)})
        write_counts(directory / VOCABULARY_FILE, kept)
        write_array_directory(directory / WORD_TABLES_DIR, _tables(kept))

    @classmethod
    def read(cls, directory: Path) -> WordCounts:
        return cls(read_counts(directory))


def read_counts(directory: Path) -> Counter[str]:
    return counts_in(directory / VOCABULARY_FILE)


def _tables(counts: Counter[str]) -> dict[str, np.ndarray]:
    """The arrays of the words' table and the hyphenated compounds' (`Vocabulary.read`)."""
    hyphenated = {key: n for key, n in counts.items() if "-" in key}
    words = {key: n for key, n in counts.items() if key not in hyphenated}
    return {**PrefixTable.of(words).arrays("words"),
            **PrefixTable.of(hyphenated).arrays("hyphenated")}


@dataclass
class Vocabulary:
    """One index generation's vocabulary, mapped when the index is opened."""

    words: PrefixTable = field(default_factory=lambda: PrefixTable.of({}))  # word → papers
    hyphenated: PrefixTable = field(  # "pre-training" → papers
        default_factory=lambda: PrefixTable.of({}))

    @classmethod
    def read(cls, directory: Path) -> Vocabulary:
        """The generation's tables (made from its counts where it was written before them)."""
        tables = mapped_arrays(directory / WORD_TABLES_DIR, lambda: _tables(read_counts(directory)))
        return cls(PrefixTable.mapped(tables, "words"), PrefixTable.mapped(tables, "hyphenated"))

    def completions(self, prefix: str, limit: int) -> list[str]:
        """The `limit` most frequent words starting with `prefix` (ties alphabetically)."""
        return self.words.completions(prefix, limit)

    def family(self, word: str, limit: int = FAMILY_WORDS) -> list[str]:
        """The most used words of the catalog that Snowball English stems as it stems `word`
        (memorize, memorable for memorization), one per inflected family, `word`'s own left
        out: the derivations search keeps apart."""
        lowered = word.lower()
        root = porter2.stem(americanize(lowered))
        if len(root) < MIN_FAMILY_ROOT:
            return []
        found: dict[str, str] = {fold_inflections(americanize(lowered)): lowered}
        for other in self.completions(root.rstrip("i"), FAMILY_CANDIDATES):
            if porter2.stem(americanize(other)) == root:
                found.setdefault(fold_inflections(americanize(other)), other)
        return list(found.values())[1:limit + 1]  # each word once, as most papers write it

    def suggest(self, word: str, maxdist: int = 2, prefix: int = 1) -> str | None:
        """The closest known word to a misspelt one, the most frequent among equally close."""
        if not self.words:
            return None
        corrector = FrequencyCorrector(self.words.entries, self.words)
        suggestions = corrector.suggest(word, limit=1, maxdist=maxdist, prefix=prefix)
        return suggestions[0] if suggestions else None
