"""Acronyms learned from the catalog: the definitions abstracts give ("large language models
(LLMs)", "low-rank adaptation (LoRA)"), counted by papers when the index is built, kept
beside it (like the vocabulary) and used by search both ways, after the hand-written table
(`synonyms.py`), which wins where the two disagree.

Each text's definitions are found by definitions.py. One acronym may have several meanings
(GP: Gaussian process, genetic programming): each seen in enough papers is kept, and the
acronym expands to all of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from app.search.index.held_files import write_lines
from app.search.words.analysis import acronym_marker, acronym_term, analyze, catalog_analyzer
from app.search.words.definitions import definitions
from app.search.words.lemma_table import lemmas

ACRONYMS_FILE = "acronyms.tsv"
MIN_PAPERS = 2  # a definition seen once may be a one-off coinage
# A meaning is kept when it is this share of the acronym's commonest one, at least: QA is
# question answering in 1,074 papers, and "quality assessment" in a few should not make every
# QA search find 422 more papers, nor "medial-lateral" every ML search.
MIN_SHARE = 0.1


def is_english_word(word: str) -> bool:
    """Whether a lowercase word is in the English dictionary ("map", "art", "ai"): typed so,
    it means the word, not an acronym that is spelt the same."""
    return bool(lemmas(word))


def acronym_form(word: str) -> tuple[str, ...]:
    """How search looks for a word written as an acronym: its term ("LLMs", "llms" → llm),
    or its marker where the term is also an English word ("MAP" → MAP, as "map" is the word);
    for a word not written as an acronym, its terms."""
    term = acronym_term(word)
    if term is None:
        return analyze(word)
    return (acronym_marker(term),) if is_english_word(term) else (term,)


@dataclass(frozen=True)
class Meaning:
    acronym: str  # as defined, without a plural s: "LLM"
    long_form: str  # as first written, lowercased: "large language models"
    papers: int


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
        # In order: of two ways one paper writes a long form, the same is kept in every
        # build (a set's order differs from one process to the next).
        for acronym, long_form in sorted(definitions(text)):
            key = (acronym, analyzed(long_form))
            if key[1] and key not in seen:
                seen.add(key)
                self.papers[key] += 1
                self.written.setdefault(key, long_form)

    def add_document(self, document: dict[str, object]) -> None:
        self.add(str(document["text"]))

    def write(self, directory: Path) -> None:
        write_lines(directory / ACRONYMS_FILE, (
            f"{acronym}\t{stems}\t{self.written[acronym, stems]}\t{n}\n"
            for (acronym, stems), n in sorted(self.papers.items())))

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
        """The definitions seen in enough papers, and in enough of the papers that define
        their acronym, by acronym, most papers first."""
        commonest: Counter[str] = Counter()
        for (acronym, _), n in self.papers.items():
            commonest[acronym] = max(commonest[acronym], n)
        kept = [Meaning(acronym, self.written[acronym, stems], n)
                for (acronym, stems), n in self.papers.items()
                if n >= max(min_papers, MIN_SHARE * commonest[acronym])]
        return sorted(kept, key=lambda m: (m.acronym.lower(), -m.papers, m.long_form))


def learned_groups(meanings: Iterable[Meaning], known: set[tuple[str, ...]],
                   analyze_form: Callable[[str], tuple[str, ...]]
                   ) -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Synonym groups (analyzed expression → the forms it also matches) from the learned
    meanings, leaving out any expression the hand-written table already knows: an acronym
    matches every meaning, a long form its acronym and its own variants ("model predictive
    control", "model-predictive controllers"), never another meaning of the acronym (GP:
    "gaussian process" does not find "genetic programming"). Long forms are analyzed by
    `analyze_form`, which keeps the stop words between their words (expand.py)."""
    long_forms: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for meaning in meanings:
        acronym, long_form = acronym_form(meaning.acronym), analyze_form(meaning.long_form)
        if acronym and long_form and acronym not in known and long_form not in known:
            long_forms.setdefault(acronym, []).append(long_form)
    groups: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for acronym, forms in long_forms.items():
        groups.setdefault(acronym, [acronym]).extend(forms)
        for form in forms:
            variants = [other for other in forms if other != form and _variants(form, other)]
            groups.setdefault(form, [form]).extend([acronym, *variants])
    return {form: tuple(dict.fromkeys(alternatives)) for form, alternatives in groups.items()}


def _variants(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether two long forms of one acronym write one meaning: every word of the shorter is
    in the other, words compared by their first four letters (control, controller), or they
    are the same letters spaced otherwise (pre-trained, pretrained). Half the words alike had
    made "diffusion maps" a variant of "diffusion models", "belief propagation" of "back
    propagation" and "correlation filter" of "collaborative filtering"."""
    if "".join(one) == "".join(other):
        return True
    shorter, longer = sorted(({word[:4] for word in form} for form in (one, other)), key=len)
    return shorter <= longer
