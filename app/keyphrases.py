"""Keyphrases: the five phrases that best characterise an abstract, by TF-IDF.

Candidates are noun phrases as a researcher would tag a paper with: runs of one to three
content words (split at stop words, punctuation and words that can only be verbs, such as
"understand" or "obtaining"), ending in a word that can be a noun (LemmInflect's tables tell;
words they do not know are field jargon, taken as nouns). Participles may lead ("labeled
data") but not end a phrase, and adjectives alone are no phrase. Acronyms keep their case
("LoRA") and count only where the abstract defines them or uses them more than once;
other one- and two-letter words are no keyphrase ("cf", "cl"). Inflections of one phrase are
one candidate, shown as the abstract writes it most.

A candidate scores count × mean IDF of its words × a bonus for longer phrases, a use in the
title counting as three in the abstract; IDF comes from word document frequencies over the
whole catalog, kept in the `word_stat` table and updated by each ingest, so "learning" ranks
low and "grokking" high. The weights were measured against author keywords (bench/keyphrases.py,
docs/search.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from app.search.words.analysis import acronym_term, analyze
from app.search.words.definitions import definitions
from app.search.words.lemma_table import lemmas
from app.words import KEYPHRASE_BREAKS, KEYPHRASE_GENERIC

KEYPHRASES_PER_PAPER = 5
TITLE_WEIGHT = 3  # a phrase of the title counts as this many uses in the abstract
PHRASE_BONUS = 0.45  # a phrase's score grows by this for each word past the first
# Words (with inner hyphens; a leading digit kept: "3DGS", "3D-aware") and the punctuation
# that ends a phrase; a possessive's "'s" is not part of the word.
_WORD = re.compile(r"[0-9]*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|[.,;:!?()\[\]\"]")
_URL = re.compile(r"(?:https?://|www\.)\S+")  # a link's parts are no phrase ("https", "com")


class _Word(NamedTuple):
    form: str  # as the phrase shows it; "" for a word that ends phrases
    terms: tuple[str, ...] = ()  # as search analyzes it: a phrase's inflections are one
    starts: bool = True  # whether a phrase may start with it
    ends: bool = True  # whether a phrase may end with it
    generic: bool = False  # never a phrase on its own (KEYPHRASE_GENERIC)


_BREAK = _Word("", starts=False, ends=False)
_ACRONYM = _Word("", starts=False, ends=False)  # kept where the abstract defines or repeats it
_ONLY_VERBS = {"VERB", "AUX", "ADV"}
_PHRASE_WORDS: dict[str, _Word] = {}  # token → its class, each token classified once
_PHRASE_WORDS_LIMIT = 500_000
Candidates = Counter[tuple[str, tuple[str, ...]]]  # (phrase as written, its terms) → uses


def _phrase_word(token: str) -> _Word:
    if acronym_term(token) is not None:
        return _ACRONYM
    lowered = token.lower()
    # Adverbs ("fundamentally", "nearly") end phrases as stop words do.
    if lowered in KEYPHRASE_BREAKS or len(token) < 3 or lowered.endswith("ly"):
        return _BREAK
    terms = analyze(lowered)
    if not terms:  # "is-a": nothing search indexes, so no concept and no part of one
        return _BREAK
    if lowered in KEYPHRASE_GENERIC:
        return _Word(lowered, terms, generic=True)
    parts = lemmas(lowered.rsplit("-", 1)[-1])
    if parts and set(parts) <= _ONLY_VERBS:
        if lowered.endswith("ed"):  # a participle may lead: "labeled data"
            return _Word(lowered, terms, ends=False)
        if lowered.endswith("ing"):  # a gerund may end: "catastrophic forgetting"
            return _Word(lowered, terms, starts=False)
        return _BREAK  # "understand", "hampers"
    return _Word(lowered, terms, ends=not parts or "NOUN" in parts or "PROPN" in parts)


def candidate_phrases(text: str) -> Counter[str]:
    """Candidate phrases with their counts in one text, inflections counted together under
    the form the text uses most (acronyms in their case, other words lowercased)."""
    return _by_analyzed_form(_candidates(text))


def phrases_by_terms(text: str) -> dict[tuple[str, ...], tuple[str, int]]:
    """The candidate phrases of one text by their terms as search analyzes them: the form the
    text uses most, and the count of all its forms."""
    return _by_terms(_candidates(text))


def _candidates(text: str) -> Candidates:
    known = _PHRASE_WORDS  # tokens recur across abstracts: each is classified once
    if len(known) > _PHRASE_WORDS_LIMIT:
        known.clear()
    tokens = _WORD.findall(_URL.sub(" . ", text))
    words = []
    for token in tokens:
        word = known.get(token)
        if word is None:
            word = known[token] = _phrase_word(token)
        words.append(word)
    acronyms = _acronyms_of(text, [t for t, w in zip(tokens, words, strict=True)
                                   if w is _ACRONYM])
    phrases: Candidates = Counter()
    run: list[_Word] = []
    for token, word in zip(tokens, words, strict=True):
        if word is _ACRONYM:
            term = acronym_term(token)
            word = _Word(acronyms[term], (term,)) if term in acronyms else _BREAK
        if word.form:
            run.append(word)
        elif run:
            _add_runs(phrases, run)
            run = []
    _add_runs(phrases, run)
    return phrases


def _acronyms_of(text: str, written: list[str]) -> dict[str, str]:
    """Of the acronyms written in a text, those it defines or uses twice or more: term → the
    acronym as written."""
    terms = [acronym_term(token) or "" for token in written]
    uses = Counter(terms)
    defined = {acronym.lower() for acronym, _ in definitions(text)} if written else set()
    kept: dict[str, str] = {}
    for token, term in zip(written, terms, strict=True):
        if uses[term] > 1 or term in defined:
            kept.setdefault(term, token[:len(term)])  # "LLMs" → "LLM"
    return kept


def _add_runs(phrases: Candidates, run: list[_Word]) -> None:
    """The run's words, pairs and triples of consecutive words that may start and end a
    phrase, and are not all generic (each built on the one before: this is the hot loop)."""
    for i, first in enumerate(run):
        if not first.starts:
            continue
        form, terms, generic = first.form, first.terms, first.generic
        for j in range(i, min(i + 3, len(run))):
            word = run[j]
            if j > i:
                form, terms = f"{form} {word.form}", terms + word.terms
                generic = generic and word.generic
            if word.ends and not generic:
                phrases[form, terms] += 1


def _by_terms(counts: Candidates) -> dict[tuple[str, ...], tuple[str, int]]:
    total: Counter[tuple[str, ...]] = Counter()
    best: dict[tuple[str, ...], tuple[int, str]] = {}
    for (phrase, terms), count in counts.items():
        total[terms] += count
        if (count, phrase) > best.get(terms, (0, "")):
            best[terms] = (count, phrase)
    return {terms: (phrase, total[terms]) for terms, (_, phrase) in best.items()}


def _by_analyzed_form(counts: Candidates) -> Counter[str]:
    return Counter(dict(_by_terms(counts).values()))


def content_words(text: str) -> set[str]:
    """The distinct lowercase words of a text that word statistics count."""
    return {w for w in (t.lower() for t in _WORD.findall(text))
            if w[0].isalnum() and w not in KEYPHRASE_BREAKS and len(w) > 1}


class KeyphraseExtractor:
    """Keyphrases against word document frequencies (`word_df`, out of `documents`)."""

    def __init__(self, word_df: dict[str, int], documents: int) -> None:
        self.word_df = word_df
        self.documents = documents
        self.idfs: dict[str, float] = {}  # computed once per word: most recur in every paper

    def _idf(self, word: str) -> float:
        idf = self.idfs.get(word)
        if idf is None:
            idf = self.idfs[word] = math.log(
                (self.documents + 1) / (self.word_df.get(word, 0) + 1)) + 1
        return idf

    def extract(self, text: str, limit: int = KEYPHRASES_PER_PAPER, title: str = "") -> list[str]:
        """The best `limit` candidates of the text and its title; a phrase inside a better one
        is not repeated."""
        idf = self._idf
        candidates = _candidates(text)
        if title:
            candidates.update({key: TITLE_WEIGHT * n for key, n in _candidates(title).items()})
        counts = _by_analyzed_form(candidates)
        scored = []
        for phrase, count in counts.items():
            words = phrase.lower().split()
            mean_idf = sum(map(idf, words)) / len(words)
            scored.append((-count * mean_idf * (1 + PHRASE_BONUS * (len(words) - 1)), phrase))
        chosen: list[str] = []
        for _, phrase in sorted(scored):
            lowered = phrase.lower()
            if any(lowered in other.lower() or other.lower() in lowered for other in chosen):
                continue
            chosen.append(phrase)
            if len(chosen) == limit:
                break
        return chosen


def document_frequencies(texts: Iterable[str]) -> Counter[str]:
    df: Counter[str] = Counter()
    for text in texts:
        df.update(content_words(text))
    return df
