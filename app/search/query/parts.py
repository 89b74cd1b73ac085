"""A query's parts: the words, phrases and synonym groups a paper must hold (each as the
user typed it), the inline filters it must pass, and what it excludes. Papers that hold most
of the parts follow the exact matches (pipeline.py); a question weighs them (question.py)."""

from __future__ import annotations

from dataclasses import dataclass

from whoosh.query import And, AndNot, Not, Phrase, Query

from app.facets import NAMES
from app.search.query.clauses import Alternatives, text_query
from app.search.words.analysis import analyze, catalog_analyzer

TEXT_FIELDS = ("headline", "text")
# Inline filters: every facet of app/facets.py, and authors (a filter, not a facet).
AUTHOR = "author"
FILTER_FIELDS = (*NAMES, AUTHOR)
FILTER_INDEX_FIELDS = {*FILTER_FIELDS, "venue_name"}


@dataclass(frozen=True)
class QueryParts:
    words: list[tuple[str, Query]]  # each part as the user typed it, and its query
    filters: list[Query]  # inline filters (venue:, year:, ...): every paper must pass them
    excluded: Query | None  # what -word / NOT excludes

    def single_words(self) -> list[str]:
        """The analyzed words of the parts typed as one word, in the query's order, though
        they also find other forms: "pretrained" its other spelling "pre-trained", "CPG" its
        long form (proximity measures where the typed words stand). A phrase is no word."""
        words = []
        for label, query in self.words:
            texts = {text if isinstance(text, str) else text.decode("utf-8")
                     for name, text in query.iter_all_terms(phrases=False) if name == "text"}
            if any(isinstance(leaf, Phrase) for leaf in [query, *query.leaves()]):
                typed = analyze(label)
                texts = set(typed) & texts if len(typed) == 1 else set()
            if len(texts) == 1:
                words.append(texts.pop())
        return words


def _label(query: Query, forms: dict[str, str]) -> str:
    """A part of the query as it was typed: its words in their written form."""
    if isinstance(query, Alternatives):
        return " or ".join(_label(sub, forms) for sub in query.subqueries)
    stems = [text if isinstance(text, str) else text.decode("utf-8")
             for name, text in query.iter_all_terms(phrases=True) if name in TEXT_FIELDS]
    typed = list(dict.fromkeys(forms[key] for stem in stems  # an acronym's marker: "SLAM"
                               for key in (stem, stem.lower()) if key in forms))
    return " ".join(typed or list(dict.fromkeys(stems)))


def is_filter(query: Query) -> bool:
    leaves = [query] if query.is_leaf() else list(query.leaves())
    return all(leaf.field() in FILTER_INDEX_FIELDS for leaf in leaves)


def query_parts(query: Query | None, text: str, least: int = 2) -> QueryParts | None:
    """The parts of an AND of at least `least` of them (None otherwise; with `least` 1, a
    query of one part is its part), labelled from `text`."""
    excluded = None
    if isinstance(query, AndNot):
        query, excluded = query.a, query.b
    subqueries = (query.subqueries if isinstance(query, And)
                  else [] if query is None else [query])
    words = [q for q in subqueries if not is_filter(q)]
    if len(words) < least:
        return None
    forms = surface_forms(text)
    return QueryParts([(_label(q, forms), q) for q in words],
                      [q for q in subqueries if is_filter(q)], excluded)


def concepts(query: Query | None, text: str, parts: QueryParts | None) -> list[str]:
    """The labels of the query's required parts, however many there are."""
    if parts is not None:
        return [label for label, _ in parts.words]
    query = query.a if isinstance(query, AndNot) else query
    if query is None:
        return []
    forms = surface_forms(text)
    subs = query.subqueries if isinstance(query, And) else [query]
    return [label for sub in subs if not is_filter(sub) if (label := _label(sub, forms))]


def phrase_words(query: Query | None, text: str) -> QueryParts | None:
    """The words of a query that is one phrase (or one synonym group's), as its parts, with
    its inline filters: "federated learning" goes on with "federated fine-tuning ... learning"."""
    if query is None or excludes(query):
        return None
    subs = query.subqueries if isinstance(query, And) else [query]
    filters = [sub for sub in subs if is_filter(sub)]
    phrase = [sub for sub in subs if not is_filter(sub)]
    if len(phrase) != 1 or not any(isinstance(leaf, Phrase)
                                   for leaf in [phrase[0], *phrase[0].leaves()]):
        return None
    terms = {term for name, term in phrase[0].iter_all_terms(phrases=True) if name == "text"}
    forms = surface_forms(text)
    words = [word for word in dict.fromkeys(analyze(text)) if word in terms]
    if len(words) < 2:
        return None
    return QueryParts([(forms.get(word, word), text_query((word,))) for word in words],
                      filters, None)


def excludes(query: Query) -> bool:
    """Whether the query excludes anything (-word, NOT)."""
    return isinstance(query, (AndNot, Not)) or any(excludes(q) for q in query.children())


def surface_forms(text: str) -> dict[str, str]:
    """Each stem of the text → the word it was written as (its first occurrence)."""
    forms: dict[str, str] = {}
    for token in catalog_analyzer()(text, keeporiginal=True):
        forms.setdefault(token.text, token.original.lower())
    return forms
