"""Acronyms learned from the catalog: the definitions abstracts give ("large language models
(LLMs)", "low-rank adaptation (LoRA)"), counted by papers when the index is built, kept
beside it (like the vocabulary) and used by search both ways, after the hand-written table
(`synonyms.py`), which wins where the two disagree.

A definition is found as Schwartz and Hearst find them: an acronym in parentheses, and the
shortest run of words before it whose letters spell it, its first letter starting a word.
One acronym may have several meanings (GP: Gaussian process, genetic programming): each
seen in enough papers is kept, and the acronym expands to all of them.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from app.search.analysis import acronym_form, catalog_analyzer

ACRONYMS_FILE = "acronyms.tsv"
MIN_PAPERS = 2  # a definition seen once may be a one-off coinage
_IN_PARENTHESES = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,11})\)")
_WORD = re.compile(r"[^\s()]+")
_DEBRIS = re.compile(r"[*_`{}\[\]\\$\"“”‘’<>|~^#]")


@dataclass(frozen=True)
class Meaning:
    acronym: str  # as defined, without a plural s: "LLM"
    long_form: str  # as first written, lowercased: "large language models"
    papers: int


def definitions(text: str) -> set[tuple[str, str]]:
    """The (acronym, long form) pairs the text defines."""
    found = set()
    for match in _IN_PARENTHESES.finditer(text):
        acronym = _singular(match[1])
        if sum(ch.isupper() for ch in acronym) < 2:
            continue  # "(ours)", "(e.g)", "(Fig)" are not acronyms
        letters = [ch.lower() for ch in acronym if ch.isalnum()]
        before = _WORD.findall(text[: match.start()])[-(len(letters) + 4):]
        long_form = _clean(_long_form(" ".join(before), letters) or "")
        if long_form and 2 <= len(re.split(r"[\s-]+", long_form)) <= len(letters) + 2:
            found.add((acronym, long_form.lower()))
    return found


def _clean(long_form: str) -> str:
    """A long form without markup and punctuation debris: "mapping}" → "mapping"."""
    return " ".join(_DEBRIS.sub(" ", long_form).split()).strip(" ,;:.-'/")


def _singular(acronym: str) -> str:
    """LLMs → LLM; LLMsys stays."""
    return acronym[:-1] if acronym.endswith("s") and acronym[-2].isupper() else acronym


def _long_form(text: str, letters: list[str]) -> str | None:
    """The shortest end of `text` whose characters spell `letters` in order, the first one
    at the start of a word (Schwartz & Hearst, 2003)."""
    position = len(text) - 1
    for i in range(len(letters) - 1, -1, -1):
        while position >= 0 and (text[position].lower() != letters[i] or (
                i == 0 and position > 0 and text[position - 1].isalnum())):
            position -= 1
        if position < 0:
            return None
        position -= 1
    return text[position + 1:]


def analyzed(long_form: str) -> str:
    """How search sees a long form: its stems, space-separated."""
    return " ".join(catalog_analyzer().terms(long_form))


class AcronymCounts:
    """Papers per (acronym, analyzed long form), with the first way each was written."""

    def __init__(self) -> None:
        self.papers: Counter[tuple[str, str]] = Counter()
        self.written: dict[tuple[str, str], str] = {}

    def add(self, text: str) -> None:
        seen = set()
        for acronym, long_form in definitions(text):
            key = (acronym, analyzed(long_form))
            if key[1] and key not in seen:
                seen.add(key)
                self.papers[key] += 1
                self.written.setdefault(key, long_form)

    def write(self, directory: Path) -> None:
        tmp = directory / f"{ACRONYMS_FILE}.tmp"
        with open(tmp, "w", encoding="utf-8") as out:
            out.writelines(f"{acronym}\t{stems}\t{self.written[acronym, stems]}\t{n}\n"
                           for (acronym, stems), n in sorted(self.papers.items()))
        os.replace(tmp, directory / ACRONYMS_FILE)

    @classmethod
    def read(cls, directory: Path) -> AcronymCounts:
        counts = cls()
        try:
            with open(directory / ACRONYMS_FILE, encoding="utf-8") as lines:
                for line in lines:
                    acronym, stems, written, n = line.rstrip("\n").split("\t")
                    counts.papers[acronym, stems] = int(n)
                    counts.written[acronym, stems] = written
        except FileNotFoundError:
            pass
        return counts

    def meanings(self, min_papers: int = MIN_PAPERS) -> list[Meaning]:
        """The definitions seen in enough papers, by acronym, most papers first."""
        kept = [Meaning(acronym, self.written[acronym, stems], n)
                for (acronym, stems), n in self.papers.items() if n >= min_papers]
        return sorted(kept, key=lambda m: (m.acronym.lower(), -m.papers, m.long_form))


def learned_groups(meanings: Iterable[Meaning], known: set[tuple[str, ...]]
                   ) -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Synonym groups (analyzed expression → the forms it also matches) from the learned
    meanings, leaving out any expression the hand-written table already knows: an acronym
    matches every meaning, a long form matches its acronym."""
    terms = catalog_analyzer().terms
    groups: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for meaning in meanings:
        acronym, long_form = acronym_form(meaning.acronym), terms(meaning.long_form)
        if not acronym or not long_form or acronym in known or long_form in known:
            continue
        groups.setdefault(acronym, [acronym]).append(long_form)
        groups.setdefault(long_form, [long_form])
        if acronym not in groups[long_form]:
            groups[long_form].append(acronym)
    return {form: tuple(dict.fromkeys(alternatives)) for form, alternatives in groups.items()}
