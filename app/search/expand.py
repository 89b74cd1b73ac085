"""Analyzed words to the queries that match them: in the headline or the abstract (a term,
or a phrase for several words), and in any form of their synonym group, whether the group is
hand-written (`synonyms.py`) or learned from the catalog's definitions (`acronyms.py`).

An acronym's form in a group is its marker ("LLM"), which the index holds only where a paper
writes the acronym: so the group finds the papers that write MAP, not every "feature map".
A typed word means the acronym when it is written as one (MAP, LoRA, ViTs), or when it is
lowercase and no English word (llm, gnn); `map`, `art` and `ai` are words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from whoosh.query import Or, Phrase, Query, Term

from app.search.acronyms import Meaning, learned_groups
from app.search.analysis import (
    acronym_form,
    acronym_marker,
    acronym_term,
    is_english_word,
)
from app.search.synonyms import SYNONYM_GROUPS


@lru_cache(maxsize=1)
def synonym_table() -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Analyzed expression → the analyzed expressions of its whole group."""
    table: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {}
    for group in SYNONYM_GROUPS:
        forms = tuple(dict.fromkeys(acronym_form(expression) for expression in group))
        for form in forms:
            table[form] = forms
    return table


# How much more a match in the headline (the title, when there is one) counts than the same
# match in the abstract, on top of the headline field's own boost: measured on ICLR keyword
# judgments (bench/relevance/keywords.py, docs/search.md).
HEADLINE_BOOST = 0.5


def text_query(tokens: tuple[str, ...]) -> Query:
    """Match analyzed tokens in headline or abstract: a term, or a phrase for several."""
    if len(tokens) == 1:
        return Or([Term("headline", tokens[0], boost=HEADLINE_BOOST), Term("text", tokens[0])])
    return Or([Phrase("headline", list(tokens), boost=HEADLINE_BOOST),
               Phrase("text", list(tokens))])


SynonymTable = dict[tuple[str, ...], tuple[tuple[str, ...], ...]]


def typed_key(table: SynonymTable, typed: str, tokens: tuple[str, ...]) -> tuple[str, ...]:
    """What a typed word or phrase (analyzed to `tokens`) is looked up as in the table: an
    acronym's marker when it means one of the table's acronyms, else its tokens."""
    if len(tokens) != 1:
        return tokens
    term = acronym_term(typed)
    if term is None and not is_english_word(typed.lower()):
        term = tokens[0]
    marker = (acronym_marker(term),) if term else None
    return marker if marker in table else tokens


def expand_synonyms(table: SynonymTable, typed: str, tokens: tuple[str, ...]) -> Query:
    """The tokens, or any form of the group in the table that the typed text means."""
    forms = table.get(typed_key(table, typed, tokens))
    if forms is None:
        return text_query(tokens)
    return Or([text_query(form) for form in forms])


@dataclass(frozen=True)
class Synonyms:
    """The hand-written groups and, where they say nothing, the acronyms learned from the
    catalog (`acronyms.py`)."""

    table: SynonymTable
    meanings: dict[tuple[str, ...], list[str]]  # a learned acronym → its long forms

    @classmethod
    def of(cls, meanings: Iterable[Meaning] = ()) -> Synonyms:
        hand = synonym_table()
        meanings = list(meanings)
        learned = learned_groups(meanings, set(hand))
        by_acronym: dict[tuple[str, ...], list[str]] = {}
        for meaning in meanings:
            acronym = acronym_form(meaning.acronym)
            if acronym in learned:
                by_acronym.setdefault(acronym, []).append(meaning.long_form)
        return cls({**learned, **hand}, by_acronym)

    def expand(self, typed: str, tokens: tuple[str, ...]) -> Query:
        return expand_synonyms(self.table, typed, tokens)

    def learned_meanings(self, typed: str, tokens: tuple[str, ...]) -> list[str] | None:
        """The learned long forms a typed word expands to, if it is a learned acronym."""
        return self.meanings.get(typed_key(self.table, typed, tokens))
