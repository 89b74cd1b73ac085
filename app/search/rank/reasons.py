"""Why a paper is shown beside another paper, or beside a reading list: the concepts of the
texts it was found from that it uses too ("lottery ticket hypothesis", "NLP", "pruning"),
phrases and acronyms first; never a verb or a function word ("suggests", "propose", "results").

A text's concepts are its candidate keyphrases (keyphrases.py): noun phrases of one to three
words, and acronyms that it defines or uses twice, in their case. Each weighs like a keyphrase
(uses × mean IDF × a bonus for each word past the first) times the number of the texts using
it to a power (a list's theme first), and is named as the longest phrase holding it that both
texts use. Never named (`_names_a_concept`): a phrase with a filler word or of generic words
only (app/words.py), or whose words are all in more than `COMMON_SHARE` of the papers
("neural networks"); a word alone unless the search ranked by it too, it is that rare and it
is no adjective or adverb ("natural", "best"). Recommendations also rank by the phrases that
several listed papers share, named or not (similar.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from whoosh.searching import Searcher

from app.keyphrases import PHRASE_BONUS, phrases_by_terms
from app.search.words.analysis import analyze
from app.search.words.lemma_table import lemmas
from app.words import FILLER_WORDS, GENERIC_WORDS, PREFIXES

SHOWN = 6
# Words in more than this share of the papers name no reason alone ("learning", "also").
COMMON_SHARE = 0.1
_PIECES = re.compile(r"[\s-]+")  # the written words of a phrase, as analysis splits them


@dataclass(frozen=True)
class Concept:
    name: str  # as the texts write it: "lottery tickets", "NLP"
    terms: tuple[str, ...]  # as search analyzes it
    weight: float
    users: int  # how many of the texts use it
    named: bool  # whether it is named as a reason (the others only rank)


class Frequencies(dict[str, int]):
    """Terms' document frequencies in the text field, each looked up once."""

    def __init__(self, searcher: Searcher) -> None:
        super().__init__()
        self.searcher = searcher

    def __missing__(self, term: str) -> int:
        found = self[term] = self.searcher.doc_frequency("text", term)
        return found


def concepts(searcher: Searcher, texts: list[str], ranked: set[str], power: int = 0,
             df: Frequencies | None = None, least: int = 1) -> list[Concept]:
    """The concepts of the texts that at least `least` of them use, heaviest first: every
    phrase, each word alone that may be named (`_names_a_concept`, which says which phrases
    may)."""
    total = searcher.doc_count_all() or 1
    common = COMMON_SHARE * total
    uses: Counter[tuple[str, ...]] = Counter()
    users: Counter[tuple[str, ...]] = Counter()
    names: dict[tuple[str, ...], str] = {}
    for text in texts:
        found = phrases_by_terms(text)
        for terms, (name, count) in found.items():
            uses[terms] += count
            names.setdefault(terms, name)
        users.update(found.keys())
    df = Frequencies(searcher) if df is None else df
    kept = []
    for terms, count in uses.items():
        if users[terms] < least:  # before its terms' frequencies are looked up
            continue
        name = names[terms]
        named = not name.islower() or _names_a_concept(name, terms, ranked, df, common)
        if not named and len(terms) == 1:
            continue
        idf = sum(math.log(total / (1 + df[term])) for term in terms) / len(terms)
        weight = count * idf * (1 + PHRASE_BONUS * (len(terms) - 1)) * users[terms] ** power
        kept.append(Concept(name, terms, weight, users[terms], named))
    # Phrases and acronyms first: a word alone says less than the phrase it stands in.
    return sorted(kept, key=lambda concept: (
        len(concept.terms) == 1 and concept.name.islower(), -concept.weight, concept.name))


def _names_a_concept(name: str, terms: tuple[str, ...], ranked: set[str],
                     df: Frequencies, common: float) -> bool:
    """Whether a candidate of lowercase words names a concept: never with a filler word
    ("significantly improve"; app/words.py), nor of generic words only ("deeper
    understanding"); a phrase unless all its words are common ("neural networks"); a word
    alone when it was ranked by, is not common and can only be a noun ("lottery", not
    "natural" or "best")."""
    written = _PIECES.split(name)
    if any(word in FILLER_WORDS for word in written) or any(
            term in FILLER_WORDS for term, word in zip(terms, written, strict=False)
            if not word.endswith("ing")):  # "decision making"
        return False
    if written[0] not in PREFIXES and all(  # a prefix makes one: "pre-training"
            term in GENERIC_WORDS or word in GENERIC_WORDS
            for term, word in zip(terms, written, strict=False)):
        return False
    if len(terms) > 1:
        return any(df[term] <= common for term in terms)
    return (terms[0] in ranked and df[terms[0]] <= common
            and not {"ADJ", "ADV"} & set(lemmas(name)))


def shared(ordered: list[Concept], text: str, limit: int = SHOWN) -> list[str]:
    """The names of the concepts (heaviest first) that the text uses, at most `limit`: each
    as the longest phrase holding it that the text uses too ("lottery ticket hypothesis" for
    "lottery ticket"), none inside another one named ("lottery" after "lottery tickets")."""
    words = analyze(text)
    grams = {words[i:i + n] for n in {len(concept.terms) for concept in ordered}
             for i in range(len(words) - n + 1)}
    used = [concept for concept in ordered if concept.named and concept.terms in grams]
    chosen: list[Concept] = []
    for concept in used:
        concept = max((other for other in used if _inside(concept.terms, other.terms)),
                      key=lambda other: len(other.terms))  # the first of the longest
        if any(_inside(concept.terms, other.terms) or _inside(other.terms, concept.terms)
               for other in chosen):
            continue
        chosen.append(concept)
        if len(chosen) == limit:
            break
    return [concept.name for concept in chosen]


def _inside(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    return any(whole[i:i + len(part)] == part for i in range(len(whole) - len(part) + 1))
