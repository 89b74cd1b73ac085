"""Analyzed words to the queries that match them: in the headline or the abstract (a term,
or a phrase for several words), and in any form of their synonym group, whether the group is
hand-written (`synonyms.py`) or learned from the catalog's definitions (`acronyms.py`).

An acronym's form in a group is its term (llm, matching LLM, LLMs and llm), or its marker
where the term is also an English word (MAP, which the index holds only where a paper writes
the acronym): so the group finds the papers that write MAP, not every "feature map". A typed
word means the acronym only when it is written as one (MAP, LoRA, ViTs): `map`, `art`, `ai`
and `sim` are words. Every form of a group finds the same papers; the form typed ranks first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from whoosh.query import And, AndNot, Or, Phrase, Query

from app.search.query.clauses import analyze_phrase, text_query
from app.search.rank import weights
from app.search.words.acronyms import Meaning, acronym_form, learned_groups
from app.search.words.analysis import acronym_term, analyze
from app.search.words.synonyms import SYNONYM_GROUPS

SynonymTable = dict[tuple[str, ...], tuple[tuple[str, ...], ...]]
# (an acronym's form, a long form of it) → the long form's word papers must hold beside it
Telling = Callable[[tuple[str, ...], tuple[str, ...]], str | None]
# a typed word → its other spelling (spellings.py), if it has one
Spelling = Callable[[str], str | None]


def _group_table(groups: Iterable[Iterable[str]]) -> SynonymTable:
    table: SynonymTable = {}
    for group in groups:
        forms = tuple(dict.fromkeys(_form(expression) for expression in group))
        for form in forms:
            table[form] = forms
    return table


def _form(expression: str) -> tuple[str, ...]:
    """A group's expression as search looks for it: an acronym's form, or a phrase's words
    with the stop words between them."""
    form = acronym_form(expression)
    return analyze_phrase(expression) if len(form) > 1 else form






def with_family(query: Query, typed: str, family: Callable[[str], list[str]]) -> Query:
    """A question's word (`query`, as `typed`) with the words of its `family` (derivations:
    regularizer for regularization, structured for structure) at `weights.WEIGHTS.family`:
    a question or a description says what a paper is about in its own words, not the
    paper's. A phrase or a synonym group stays as it is."""
    texts = {text for name, text in query.iter_all_terms(phrases=True) if name == "text"}
    weight = weights.WEIGHTS.family
    if len(texts) != 1 or weight == 0 or any(
            isinstance(leaf, Phrase) for leaf in [query, *query.leaves()]):
        return query
    own = analyze(typed)
    forms = [form for form in dict.fromkeys(map(analyze, family(typed)))
             if form and form != own]
    return Or([query, *(text_query(form, weight) for form in forms)]) if forms else query


@dataclass(frozen=True)
class Synonyms:
    """The hand-written groups and, where they say nothing, the acronyms learned from the
    catalog (`acronyms.py`)."""

    table: SynonymTable
    acronyms: frozenset[tuple[str, ...]]  # the forms in the table that are acronyms
    meanings: dict[tuple[str, ...], list[str]]  # a learned acronym → its long forms
    # The word of a long form that papers writing an acronym for it must hold too, where
    # most papers writing the acronym mean something else (opened.OpenIndex.telling_word).
    telling: Telling | None = None
    spelling: Spelling | None = None

    @classmethod
    def of(cls, meanings: Iterable[Meaning] = ()) -> Synonyms:
        hand = cls.hand()
        meanings = list(meanings)
        learned = learned_groups(meanings, set(hand.table), analyze_phrase)
        by_acronym: dict[tuple[str, ...], list[str]] = {}
        for meaning in meanings:
            acronym = acronym_form(meaning.acronym)
            if acronym in learned and meaning.long_form not in by_acronym.get(acronym, []):
                by_acronym.setdefault(acronym, []).append(meaning.long_form)
        return cls({**learned, **hand.table}, hand.acronyms | frozenset(by_acronym),
                   by_acronym)

    @classmethod
    @lru_cache(maxsize=1)
    def hand(cls) -> Synonyms:
        """The hand-written groups alone (`synonyms.py`)."""
        acronyms = frozenset(acronym_form(expression) for group in SYNONYM_GROUPS
                             for expression in group if acronym_term(expression))
        return cls(_group_table(SYNONYM_GROUPS), acronyms, {})

    def key(self, typed: str, tokens: tuple[str, ...]) -> tuple[str, ...] | None:
        """The group a typed word or phrase (analyzed to `tokens`) means, if any: a word
        means an acronym's group only when written as an acronym."""
        if len(tokens) == 1 and acronym_term(typed) is not None:
            key = acronym_form(typed)
        elif tokens in self.acronyms:
            return None  # "map", "sim": the word, not the acronym
        else:
            key = tokens
        return key if key in self.table else None

    def expand(self, typed: str, tokens: tuple[str, ...], spelled: str | None = None) -> Query:
        """The tokens, or any form of the group the typed text means, the typed form first;
        and the compound's other spelling, when `spelled` (`other_spelling`)."""
        key = self.key(typed, tokens)
        query = text_query(tokens) if key is None else self.group(key, tokens)
        return query if spelled is None else Or([query, text_query(
            analyze_phrase(spelled), weights.WEIGHTS.other_form)])

    def other_spelling(self, typed: str) -> str | None:
        """A typed compound's other spelling ("pre-training" for "pretraining"), where the
        catalog writes it so (spellings.py)."""
        return self.spelling(typed) if self.spelling is not None else None

    def group(self, key: tuple[str, ...], typed: tuple[str, ...] | None) -> Query:
        """Any form of the key's group: the `typed` form as typed (with its own stop words:
        "mixture experts") and first; every form alike when None. An acronym found for a
        long form comes with the long form's telling word where most papers writing the
        acronym mean something else: "diffusion model" finds DM only beside "diffusion",
        not in the papers that write DM for data mining."""
        clauses = []
        for form in self.table[key]:
            clause = text_query(typed if form == typed else form,
                                1.0 if typed is None or form == key
                                else weights.WEIGHTS.other_form)
            if form in self.acronyms and key not in self.acronyms:
                clause = self._meaning_this(clause, form, key)
            clauses.append(clause)
        return Or(clauses)

    def _meaning_this(self, clause: Query, acronym: tuple[str, ...],
                      key: tuple[str, ...]) -> Query:
        """The acronym's clause where it means the long form `key`: beside the telling word
        where most papers writing it mean something else, and never in a paper that writes
        another of its learned meanings ("diffusion maps" is not DM in "diffusion models
        (DMs)")."""
        word = self.telling(acronym, key) if self.telling is not None else None
        if word:
            clause = And([clause, text_query((word,))])
        others = [form for form in map(analyze_phrase, self.meanings.get(acronym, ()))
                  if form not in self.table[key]]
        return AndNot(clause, Or([text_query(form) for form in others])) if others else clause

    def learned_meanings(self, typed: str, tokens: tuple[str, ...]) -> list[str] | None:
        """The learned long forms a typed word expands to, if it is a learned acronym."""
        key = self.key(typed, tokens)
        return self.meanings.get(key) if key is not None else None
