"""Which counted terms (edition_terms.py) name research concepts, and how to write
them: what "what's new" (rising.py) lists, as papers write it.

A term is left out when it is prose rather than a concept (app/words.py, and a word
that LemmInflect knows only as a verb, or alone only as an adverb: "outperforms", "thereby"), a
fragment (two lowercase letters, "13b", TeX commands), or the venue's boilerplate ("best
paper", "sister conference"). An acronym (two letters, or a word papers write mostly in
capitals: "KRR", "GTEP", "DM") is listed with a meaning the catalog learned from its
abstracts (search/words/acronyms.py; the hand-written synonyms first, as in search: SSL is
self-supervised learning, which the definitions' letters read as "supervised learning"),
"DM (diffusion models)", or not at all; and alone, only with a meaning that the papers
counted write out, so that IJCAI's "Data Mining: DM" keywords are not shown as diffusion
models.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from app.search.index.opened import OpenIndex
from app.search.words.acronyms import Meaning
from app.search.words.analysis import acronym_marker, acronym_term, analyze
from app.search.words.completions import Completions
from app.search.words.lemma_table import lemmas
from app.search.words.prefix_table import PrefixTable
from app.search.words.synonyms import SYNONYM_GROUPS
from app.search.words.vocabulary import Vocabulary
from app.whats_new.edition_terms import EditionTerms, opened_terms
from app.words import FILLER_WORDS, GENERIC_WORDS, PREFIXES, VENUE_WORDS

ACRONYM_SHARE = 0.5  # of a word's papers that write it in capitals: an acronym
# An acronym listed alone needs a meaning whose every word this share of its papers hold,
# at least: most papers that write a new acronym define it, or write it out elsewhere, and
# some write out even LSTM or CNN; a tenth of IJCAI's DM papers write "diffusion".
SUPPORT = 0.25
CONFINED_SHARE, CONFINED_PAPERS = 0.95, 20  # `confined_terms`
PIECE = 50  # `ConceptNames.is_piece`
# "ps", "cv", "4o" (of GPT-4o): an acronym's term, or a word's piece; not "3d".
_FRAGMENT = re.compile(r"[a-z]{1,2}|[a-z]\d|\d[a-ce-z]")
_UNITS = frozenset("kg mm cm km nm um hz khz mhz ghz ms ns db mw kw kv ma mah".split())
_SIZE = re.compile(r"\d+(?:\.\d+)?[kmbt]")  # "13b", "70b": parameters and tokens
# TeX that normalization left ("\emph{n}" → emphn, "\textit" → extit) and IEEE's "&#x2019;s"
# (robot&#x2019;s → robotpsilas).
_DEBRIS = re.compile(r"(?:emph|textit|extit|textbf|extbf|mathbf|mathcal|mathrm|ldots|cdots)"
                     r"[a-z]{0,2}|.*psilas?|.*_.*|tion|sion|ment|ness|ity|ance|ence|ally|ing")


@dataclass(frozen=True)
class ShownConcept:
    shown: str  # as papers write it: "diffusion models", "LLM agents", "DM"
    meaning: str | None  # of an acronym listed alone: "diffusion models"
    query: str  # the search that finds exactly the papers counted: "dm", '"llm agents"'


def shown_form(term: str, vocabulary: Vocabulary, completions: Completions | None = None
               ) -> list[str]:
    """The term's words as papers write them: the phrase as most titles and keywords write it
    ("autonomous driving", not each word's commonest spelling, "autonomous driven"), else each
    word's most used spelling that analyzes to it, or in capitals where only the acronym does
    (DARTS: "darts" is the plural of dart)."""
    words = term.split()
    written = [_written(word, vocabulary) for word in words]
    if completions is not None and len(words) == 2:
        firsts = [c for c in vocabulary.completions(words[0], 8) if analyze(c) == (words[0],)]
        for first in dict.fromkeys([written[0], *firsts]):
            typed = f"{first} {words[1][: max(2, len(words[1]) - 1)]}"
            phrase = next((c for c in completions.phrases.completions(typed, 10)
                           if analyze(c) == tuple(words)), None)
            if phrase is not None:
                return phrase.split()
    return written


def _written(word: str, vocabulary: Vocabulary) -> str:
    candidates = vocabulary.completions(word[: max(2, len(word) - 1)], 40)
    if word in vocabulary.words:
        candidates.append(word)
    return (next((c for c in candidates if analyze(c) == (word,)), None)
            or next((c.upper() for c in [word, *candidates] if analyze(c.upper()) == (word,)),
                    word))


def _only(word: str, part: str) -> bool:
    """Whether LemmInflect knows the written word only as this part of speech."""
    return set(lemmas(word)) == {part}


def _filler(term: str, written: str, in_phrase: bool) -> bool:
    """Whether a word of a term is prose: listed, or known only as a verb ("outperforms";
    a gerund names an activity, "unlearning", and in a phrase a participle qualifies one,
    "federated learning") or only as an adverb."""
    if written in FILLER_WORDS or (term in FILLER_WORDS and not (
            in_phrase and written.endswith("ing"))):  # "decision making"
        return True
    if _only(written, "ADV") and not in_phrase:  # "fully convolutional" is one
        return True
    return (_only(written, "VERB") and not written.endswith("ing")
            and not (in_phrase and written.endswith("ed")))


def _debris(term: str, written: str) -> bool:
    return any(_SIZE.fullmatch(word) or _DEBRIS.fullmatch(word) for word in (term, written))


def _written_out(long_form: tuple[str, ...], papers: Callable[[str], int | None]) -> int:
    """At most how many papers write a long form out: the fewest that hold one of its two-word
    phrases, where they are counted, else one of its words (0 when nothing is counted: too rare
    or all function words). "Knowledge graph" is in no robotics paper of 2002 that writes KG."""
    pairs = [papers(f"{left} {right}")
             for left, right in zip(long_form, long_form[1:], strict=False)]
    counted = [n for n in pairs if n is not None]
    if len(counted) < len(pairs) or not pairs:
        counted += [n for n in (papers(w) for w in long_form) if n is not None]
    return min(counted, default=0)


def acronym_meanings(learned: list[Meaning]) -> dict[str, list[Meaning]]:
    """Each acronym's term ("dm") and its meanings: the hand-written one first (spelt as the
    abstracts spell it where one of theirs analyzes the same: "large language models"), then
    the learned ones, most papers first."""
    meanings: dict[str, list[Meaning]] = {}
    for meaning in sorted(learned, key=lambda m: -m.papers):
        term = acronym_term(meaning.acronym)
        if term is not None:
            meanings.setdefault(term, []).append(meaning)
    for group in SYNONYM_GROUPS:
        acronyms = [e for e in group if acronym_term(e) is not None]
        long_forms = [e for e in group if acronym_term(e) is None]
        if acronyms and long_forms:
            term = str(acronym_term(acronyms[0]))
            spelt = next((m for m in meanings.get(term, [])
                          if analyze(m.long_form) == analyze(long_forms[0])),
                         Meaning(acronyms[0], long_forms[0], 0))
            meanings[term] = [spelt, *(m for m in meanings.get(term, []) if m != spelt)]
    return meanings


def confined_terms(terms: EditionTerms) -> np.ndarray:
    """Which terms are one series' own words: `CONFINED_SHARE` of their papers or more are in
    editions (two or more) of one series, which held at most half of the papers of the years
    they appear in. IJCAI's area keywords ("Game Theory and Economic Paradigms: GTEP", "AI
    Ethics, Trust, Fairness: ETF"), not early NeurIPS' words, when it was most of the catalog."""
    count = len(terms.terms)
    if not count:
        return np.zeros(0, dtype=bool)
    names = sorted(set(terms.series))
    series = np.array([names.index(name) for name in terms.series])
    years, year = np.unique(terms.years, return_inverse=True)
    edition = np.repeat(np.arange(len(terms.editions)), np.diff(terms.starts))

    def table(rows: np.ndarray, size: int, weights: np.ndarray | None) -> np.ndarray:
        return np.bincount(rows * count + terms.term_ids, weights,
                           minlength=size * count).reshape(size, count)

    by_series = table(series[edition], len(names), terms.counts)
    by_year = table(year[edition], len(years), terms.counts)
    editions = table(series[edition], len(names), None)
    papers = np.zeros((len(names), len(years)))
    np.add.at(papers, (series, year), terms.papers)
    top, every = by_series.argmax(axis=0), np.arange(count)
    total = np.maximum(by_series.sum(axis=0), 1)
    expected = ((papers / papers.sum(axis=0))[top] * by_year.T).sum(axis=1) / total
    return ((total >= CONFINED_PAPERS) & (by_series[top, every] >= CONFINED_SHARE * total)
            & (expected <= 0.5) & (editions[top, every] >= 2))


@dataclass
class ConceptNames:
    """What the catalog knows to name its counted terms: their counts, its vocabulary and
    phrases, the acronyms' meanings and which words papers write in capitals."""

    terms: EditionTerms
    vocabulary: Vocabulary
    completions: Completions | None
    meanings: dict[str, list[Meaning]]  # `acronym_meanings`
    capitals: Callable[[str], float]  # the share of a word's papers that write it as an acronym
    _capitals: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, current: OpenIndex) -> ConceptNames:
        """Names from an open index, which counts the papers that write a word in capitals by
        its acronym's marker (analysis.acronym_marker). Kept per generation, they hold the
        index weakly: a generation swapped out is not kept open by them, and they are of no
        use once it is closed."""
        opened = weakref.ref(current)

        def capitals(word: str) -> float:
            index = opened()
            if index is None:
                raise RuntimeError("the index these names were read from is closed")
            reader = index.searcher
            held = max(reader.doc_frequency(name, word) for name in ("headline", "text"))
            marked = max(reader.doc_frequency(name, acronym_marker(word))
                         for name in ("headline", "text"))
            return marked / held if held else 0.0

        return cls(opened_terms(current.parts), current.vocabulary, current.completions,
                   acronym_meanings(current.meanings), capitals)

    @cached_property
    def confined(self) -> np.ndarray:
        return confined_terms(self.terms)

    @cached_property
    def _endings(self) -> PrefixTable:
        """The vocabulary's words written backwards, to find the words a piece ends."""
        return PrefixTable.of({word[::-1]: n for word, n in self.vocabulary.words.items()})

    def is_piece(self, written: str) -> bool:
        """Whether a word no dictionary knows is the piece of a word that a line break cut
        ("ap- proach", "gaus- sian"): a word that starts or ends with it is written
        `PIECE` times as often."""
        if lemmas(written) or written not in self.vocabulary.words:
            return False
        most = PIECE * self.vocabulary.words[written]
        whole = [*self.vocabulary.completions(written, 2),
                 *(word[::-1] for word in self._endings.completions(written[::-1], 2))]
        return any(self.vocabulary.words[word] >= most for word in whole if word != written)

    @cached_property
    def venue_words(self) -> frozenset[str]:
        """The venues' own words, and the catalog's series slugs (neurips, uai)."""
        return VENUE_WORDS | frozenset(self.terms.series)

    def is_acronym(self, word: str, written: str) -> bool:
        """Whether papers write the word as an acronym (or it is two letters: "ps", "cv")."""
        if _FRAGMENT.fullmatch(word) or written.isupper():
            return True
        if word not in self._capitals:
            self._capitals[word] = self.capitals(word)
        return self._capitals[word] >= ACRONYM_SHARE

    def name(self, term: str, papers: Callable[[str], int | None]) -> ShownConcept | None:
        """How to list a term, or None where it names no concept; `papers` counts a term in
        the papers the term's count is of (None for a term not counted), to check what an
        acronym means there."""
        at = self.terms.position.get(term)
        if at is not None and self.confined[at]:
            return None
        words = term.split()
        written = shown_form(term, self.vocabulary, self.completions)
        if any(_debris(word, spelt) or self.is_piece(spelt)
               for word, spelt in zip(words, written, strict=True)):
            return None
        acronyms = [self.is_acronym(word, spelt)
                    for word, spelt in zip(words, written, strict=True)]
        if len(words) == 1 and acronyms[0]:
            return self._acronym(words[0], written[0], papers)
        shown = []
        for word, spelt, acronym in zip(words, written, acronyms, strict=True):
            if acronym:
                if not self.meanings.get(word):
                    return None  # a phrase of an acronym nobody defined ("krr method")
                spelt = self._capitalized(word, spelt)
            elif _filler(word, spelt, len(words) > 1):
                return None
            shown.append(spelt)
        if self._boilerplate(words, written):
            return None
        text = " ".join(shown)
        lowered = " ".join(spelt.lower() if acronym else spelt
                           for spelt, acronym in zip(shown, acronyms, strict=True))
        query = lowered if analyze(lowered) == tuple(words) else text
        return ShownConcept(text, None, f'"{query}"' if len(words) > 1 else query)

    def _boilerplate(self, words: list[str], written: list[str]) -> bool:
        """A term of generic and venue words only: a single word as written ("tracking" is not
        the venue's "track"), a phrase as analyzed ("journal tracking" is)."""
        venue = self.venue_words
        if len(words) == 1:
            return words[0] in GENERIC_WORDS or written[0] in GENERIC_WORDS | venue
        # A prefix and a generic word make a concept ("pre training", "multi task").
        return words[0] not in PREFIXES and all(word in GENERIC_WORDS | venue for word in words)

    def _capitalized(self, word: str, written: str) -> str:
        """An acronym as defined ("LoRA"), plural where papers write it so ("LLMs")."""
        acronym = self.meanings[word][0].acronym
        return acronym + "s" if written.lower() == acronym.lower() + "s" else acronym

    def _acronym(self, word: str, written: str, papers: Callable[[str], int | None]
                 ) -> ShownConcept | None:
        """An acronym alone, with its commonest meaning that its papers write out and that
        names a concept ("SOTA", state of the art, does not); None without one."""
        prose = GENERIC_WORDS | FILLER_WORDS | VENUE_WORDS
        if word in _UNITS:
            return None
        for meaning in self.meanings.get(word, []):
            long_form = analyze(meaning.long_form)
            if (_written_out(long_form, papers) < SUPPORT * (papers(word) or 0)
                    or all(w in prose for w in long_form)):
                continue
            shown = self._capitalized(word, written)
            query = written.lower() if analyze(written.lower()) == (word,) else shown
            return ShownConcept(shown, meaning.long_form, query)
        return None
