"""The search box's query language, translated into Whoosh queries.

Plain words must all match; `"exact phrase"`, `OR`, `-word` / `NOT word`, parentheses and
`prefix*` work as researchers expect; `venue:`, `series:`, `year:`, `topic:`, `status:` and
`has:code` filter.
Hyphenated words match as phrases ("weak-to-strong" finds "weak to strong"), acronyms expand
through the synonym table, and nothing a user types raises: what cannot be used is dropped
with a note saying so. Queries are bounded in length, terms, nesting and prefix expansion.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from whoosh.query import (
    And,
    AndNot,
    Every,
    NullQuery,
    Or,
    Query,
    Term,
)

from app.facets import BY_NAME, FACETS
from app.search.query.clauses import Alternatives, analyze_phrase, text_query
from app.search.query.expand import Synonyms
from app.search.query.parts import (
    AUTHOR,
    FILTER_FIELDS,
    TEXT_FIELDS,
    QueryParts,
    concepts,
    query_parts,
)
from app.search.query.question import (
    Reading,
    alternatives,
    doing_without,
    is_aspect_word,
    is_doing_without,
    is_function_word,
    prose_tokens,
    reading_of,
)
from app.search.rank import weights
from app.search.words.analysis import analyze, word_analyzer

MAX_QUERY_CHARS = 500
MAX_TERMS = 32
MAX_DEPTH = 8
MIN_PREFIX_CHARS = 2
# "model(s)": the plural a writer allows for, not a word "s".
_PLURAL_MARK = re.compile(r"\((?:e?s)\)(?=-|$)", re.IGNORECASE)
# "the agent's reward", "CNN's": the word itself, not a phrase "agent s" that a paper writing
# "agents" or "CNNs" does not hold.
_POSSESSIVE = re.compile(r"(?<=\w)['’]s$", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TOKEN = re.compile(
    r'(?P<neg>-)?(?:(?P<field>[A-Za-z]+):(?:"(?P<fphrase>[^"]*)"?|(?P<fvalue>[^\s()"]*))'
    r'|"(?P<phrase>[^"]*)"?|(?P<open>\()|(?P<close>\))'
    # A word may hold parentheses with no space before them, as in "SE(3)-equivariant", "O(n)"
    # or "f(x)": not a group, and the "-" after them is a hyphen, not a NOT.
    r'|(?P<word>[^\s()"]+(?:\([^\s()"]*\)[^\s()"]*)*))'
)

# Expands `prefix*` into at most this many of its most frequent completions.
PrefixExpander = Callable[[str], list[str]]


@dataclass
class ParsedQuery:
    text: str  # the cleaned query as it was parsed
    query: Query | None  # None: nothing to search (see notes)
    words: list[str] = field(default_factory=list)  # plain words, for "did you mean"
    notes: list[str] = field(default_factory=list)
    # Words expanded by acronyms learned from the catalog: (word as typed, its meanings).
    expansions: list[tuple[str, list[str]]] = field(default_factory=list)
    # Compounds that also found their other spelling: (word as typed, "pre-training").
    spellings: list[tuple[str, str]] = field(default_factory=list)
    filters: list[str] = field(default_factory=list)  # the filters read, as typed ("-year:2019")
    reading: Reading = Reading.KEYWORDS  # a question or a description: see question.py
    dropped: list[str] = field(default_factory=list)  # its function words, left out
    # Scored, not required: how papers say they do without what a question asks to do
    # without ("without backpropagation", "backpropagation-free": question.doing_without),
    # and the aspect it asks about ("limitations": question.is_aspect_word).
    scored: list[Query] = field(default_factory=list)

    @property
    def message(self) -> str | None:
        return " ".join(self.notes) or None

    @cached_property
    def parts(self) -> QueryParts | None:
        """The query's required parts (words, phrases, synonym groups), for papers that match
        most of them; None unless the query is an AND of at least two of them."""
        return query_parts(self.query, self.text)

    @cached_property
    def concepts(self) -> list[str]:
        """The query's required parts as typed, however many there are."""
        return concepts(self.query, self.text, self.parts)

def clean_query_text(raw: str) -> tuple[str, list[str]]:
    notes = []
    text = " ".join(_CONTROL.sub(" ", raw).split())
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
        notes.append(f"The query was cut to its first {MAX_QUERY_CHARS} characters.")
    return text, notes


def did_you_mean(parsed: ParsedQuery, synonyms: Synonyms,
                 frequency: Callable[[str, str], int],
                 suggest: Callable[[str], str | None]) -> str | None:
    """The query with each word that no paper holds (in any field of `TEXT_FIELDS`, by the
    index's document `frequency`) and no synonym group means replaced by the vocabulary's
    suggestion; None when there is none."""
    corrected = parsed.text
    for word in parsed.words:
        stems = analyze(word)
        if synonyms.key(word, stems) is not None or any(
                frequency(name, stem) for stem in stems for name in TEXT_FIELDS):
            continue
        suggestion = suggest(word.lower())
        if suggestion:
            corrected = replace_word(corrected, word, suggestion)
    return corrected if corrected != parsed.text else None


def replace_word(text: str, word: str, replacement: str) -> str:
    """The query text with the first whole occurrence of `word` replaced."""
    return re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lambda _: replacement, text,
                  count=1)


@dataclass
class _Item:
    """One parsed element of an AND group before it becomes a query."""

    query: Query
    negated: bool = False
    plain_tokens: tuple[str, ...] | None = None  # a bare word's tokens: joins synonym spans
    alternative: bool = False  # to the item before it (question.alternatives)


class QueryParser:
    def __init__(self, expand_prefix: PrefixExpander, has_field: Callable[[str], bool],
                 synonyms: Synonyms | None = None) -> None:
        self.expand_prefix = expand_prefix
        self.has_field = has_field
        self.synonyms = synonyms or Synonyms.of()

    def parse(self, raw: str, unmatched: bool = False) -> ParsedQuery:
        """The query; `unmatched` when no paper holds all its words: then a few words
        without a question are read as a description (question.py)."""
        text, notes = clean_query_text(raw)
        self.notes = notes
        self.words: list[str] = []
        self.expansions: list[tuple[str, list[str]]] = []
        self.spellings: list[tuple[str, str]] = []
        self.filters: list[str] = []
        self.terms = 0
        self.tokens = list(_TOKEN.finditer(text))
        self.position = 0
        self.dropped: list[str] = []
        self.scored: list[Query] = []
        self.doing_without = self.after_concept = False
        self.reading = reading_of(self.tokens, text, unmatched)
        if self.reading is not Reading.KEYWORDS:
            self.tokens, asking = prose_tokens(self.tokens)
            self.dropped.extend(asking)
        self.alternatives = (alternatives(self.tokens) if self.reading.offers_alternatives
                             else set())
        parsed = ParsedQuery(text, None, notes=notes, reading=self.reading,
                             dropped=self.dropped, scored=self.scored)
        if not self.tokens:
            return parsed
        query = self._expression(depth=0)
        while self.position < len(self.tokens):  # only stray ")" can stop the top level
            self.position += 1
            self._note("An unmatched “)” was ignored.")
            more = self._expression(depth=0)
            query = more if query is None else (query if more is None else And([query, more]))
        parsed.words = self.words
        parsed.expansions = self.expansions
        parsed.spellings = self.spellings
        parsed.filters = self.filters
        if query is None:
            if not notes:
                notes.append("This query has no words to search for. Try plain words such as "
                             "“diffusion generalization”, or see the search help.")
            return parsed
        parsed.query = query.normalize()
        return parsed

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    # expression := and_group ("OR" and_group)*
    def _expression(self, depth: int) -> Query | None:
        alternatives = [self._and_group(depth)]
        while self._peek_word("OR"):
            self.position += 1
            alternatives.append(self._and_group(depth))
        present = [q for q in alternatives if q is not None]
        if not present:
            return None
        return present[0] if len(present) == 1 else Or(present)

    def _peek_word(self, word: str) -> bool:
        return (self.position < len(self.tokens)
                and self.tokens[self.position]["word"] == word
                and not self.tokens[self.position]["neg"])

    def _and_group(self, depth: int) -> Query | None:
        items: list[_Item] = []
        negate_next = False
        while self.position < len(self.tokens):
            token, at = self.tokens[self.position], self.position
            if token["close"] or self._peek_word("OR"):
                break
            self.position += 1
            if token["word"] in ("AND", "&&") and not token["neg"]:
                continue
            if token["word"] == "NOT" and not token["neg"]:
                negate_next = True
                continue
            item = self._primary(token, depth)
            if item is None:
                continue
            item.negated = item.negated or negate_next
            item.alternative = at in self.alternatives
            negate_next = False
            items.append(item)
        if negate_next:
            self._note("A trailing NOT was ignored.")
        return self._combine(items)

    def _primary(self, token: re.Match[str], depth: int) -> _Item | None:
        negated = bool(token["neg"])
        if token["open"]:
            if depth >= MAX_DEPTH:
                self._note(f"Parentheses nest at most {MAX_DEPTH} deep; deeper ones were "
                           "ignored.")
                return None
            inner = self._expression(depth + 1)
            if self.position < len(self.tokens) and self.tokens[self.position]["close"]:
                self.position += 1
            else:
                self._note("An unclosed “(” was closed at the end of the query.")
            return _Item(inner, negated) if inner is not None else None
        if token["field"] is not None:
            return self._field(token["field"].lower(), token["fphrase"] or token["fvalue"] or "",
                               negated, token[0])
        if token["phrase"] is not None:
            if not token[0].endswith('"') or len(token[0]) == 1:
                self._note("An unclosed quote was closed at the end of the query.")
            # Quoted, a learned acronym means itself ("GP" alone): only the hand-written
            # table expands it. A quoted long form finds its acronym, learned or not; a
            # quoted compound is spelled as written.
            tokens = analyze_phrase(token["phrase"])
            synonyms = replace(Synonyms.hand(), telling=self.synonyms.telling) \
                if len(tokens) == 1 else self.synonyms
            return self._counted(_Item(synonyms.expand(token["phrase"], tokens),
                                       negated)) if tokens else None
        return self._word(token["word"], negated)

    def _counted(self, item: _Item) -> _Item | None:
        self.terms += 1
        if self.terms > MAX_TERMS:
            self._note(f"Only the first {MAX_TERMS} words of the query were used.")
            return None
        return item

    def _word(self, word: str, negated: bool) -> _Item | None:
        if word.endswith("*"):
            return self._prefix(word.rstrip("*"), negated)
        word = _POSSESSIVE.sub("", _PLURAL_MARK.sub("", word))
        tokens = analyze_phrase(word)  # "in-context": a phrase, as written
        if not tokens:
            return None  # punctuation, a stop word or a lone operator
        if self.reading is not Reading.KEYWORDS and not negated and is_function_word(
                word, self.after_concept):
            self.dropped.append(word)  # "how", "best": a question's words, not its concepts
            if is_aspect_word(word):
                self.scored.append(text_query(tokens, weights.WEIGHTS.aspect))
            self.doing_without = self.doing_without or is_doing_without(word)
            self.after_concept = False
            return None
        self.after_concept = not negated
        if self.doing_without and not negated:
            self.scored.extend(text_query(form, weights.WEIGHTS.doing_without)
                                for form in doing_without(word, tokens))
        self.doing_without = False
        spelled = self.synonyms.other_spelling(word)
        if not negated:
            self.words.append(word)
            meanings = self.synonyms.learned_meanings(word, tokens)
            if meanings:
                self.expansions.append((word, meanings))
            if spelled:
                self.spellings.append((word, spelled))
        return self._counted(_Item(self.synonyms.expand(word, tokens, spelled), negated,
                                   plain_tokens=None if negated else tokens))

    def _prefix(self, stem: str, negated: bool) -> _Item | None:
        words = word_analyzer().terms(stem)
        if len(words) != 1 or len(words[0]) < MIN_PREFIX_CHARS:
            self._note(f"A prefix search needs at least {MIN_PREFIX_CHARS} letters before “*”, "
                       "e.g. optim*.")
            return None
        # Expanded to real words, then matched through the analyzer like typed words, so that
        # they rank and highlight alike.
        expansions = [analyze(w) for w in self.expand_prefix(words[0])]
        forms = list(dict.fromkeys(form for form in expansions if form))
        if not forms:  # no word starts so: nothing matches
            return self._counted(_Item(NullQuery, negated))
        return self._counted(_Item(Or([text_query(form) for form in forms]), negated))

    def _field(self, name: str, value: str, negated: bool, source: str) -> _Item | None:
        value = value.strip()
        if name not in FILTER_FIELDS:
            return self._word(source.lstrip("-"), negated)  # "arXiv:2301" is just text
        if not value:
            self._note(f"“{name}:” needs a value, e.g. {name}:{_EXAMPLES[name]}.")
            return None
        if not self.has_field(name):
            kind = BY_NAME[name].title.lower() if name in BY_NAME else name  # "by": authors
            self._note(f"The catalog has no {kind} data yet, so “{name}:{value}” was ignored.")
            return None
        query = _filter_query(name, value)
        if query is None:
            self._note(f"“{name}:{value}” is not a valid filter; try {name}:{_EXAMPLES[name]}.")
            return None
        self.filters.append(("-" if negated else "") + source.lstrip("-"))
        return _Item(query, negated)

    def _combine(self, items: list[_Item]) -> Query | None:
        items = _join_synonym_spans(items, self.synonyms)
        positive: list[Query] = []
        for item in items:
            if item.negated:
                continue
            if item.alternative and positive:
                positive[-1] = Alternatives([positive[-1], item.query])
            else:
                positive.append(item.query)
        negative = [item.query for item in items if item.negated]
        if not positive and not negative:
            return None
        base: Query = Every() if not positive else (
            positive[0] if len(positive) == 1 else And(positive))
        if negative:
            return AndNot(base, negative[0] if len(negative) == 1 else Or(negative))
        return base


_EXAMPLES = {**{facet.name: facet.example for facet in FACETS}, AUTHOR: "hinton"}


def _filter_query(name: str, value: str) -> Query | None:
    if name in BY_NAME:
        return BY_NAME[name].kind.query(name, value)
    words = word_analyzer().terms(value)
    return And([Term(name, w) for w in words]) if words else None


def _join_synonym_spans(items: list[_Item], synonyms: Synonyms) -> list[_Item]:
    """Runs of bare words that spell a synonym ("large language model") mean its group, as
    the quoted phrase does: the phrase or any other form ("LLM"), so that every member of a
    group finds the same papers."""
    table = synonyms.table
    longest = max(map(len, table), default=1)
    joined: list[_Item] = []
    i = 0
    while i < len(items):
        for n in range(min(longest, len(items) - i), 1, -1):
            span = items[i : i + n]
            if any(item.plain_tokens is None or item.alternative for item in span[1:]) \
                    or span[0].plain_tokens is None:
                continue
            tokens = tuple(t for item in span for t in item.plain_tokens or ())
            if tokens in table:
                joined.append(_Item(synonyms.group(tokens, None), alternative=span[0].alternative))
                i += n
                break
        else:
            joined.append(items[i])
            i += 1
    return joined
