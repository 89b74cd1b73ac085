"""Turn what a researcher typed into a Whoosh query, or into a message saying what is wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass

from whoosh import qparser
from whoosh.fields import Schema
from whoosh.query import Every, NullQuery, Query

MAX_QUERY_CHARS = 500
SEARCH_FIELDS = ["headline", "text"]
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class ParsedQuery:
    text: str  # the cleaned query text that was parsed
    query: Query | None
    message: str | None = None  # shown on the page when the query cannot run as typed


def clean_query_text(raw: str) -> str:
    return " ".join(_CONTROL.sub(" ", raw).split())[:MAX_QUERY_CHARS]


def parse_query(raw: str, schema: Schema) -> ParsedQuery:
    text = clean_query_text(raw)
    if not text:
        return ParsedQuery(text, None)
    parser = qparser.MultifieldParser(SEARCH_FIELDS, schema, group=qparser.AndGroup)
    try:
        query = parser.parse(text)
    except Exception:  # noqa: BLE001 - Whoosh raises assorted errors on odd syntax
        return ParsedQuery(text, None, "This query could not be understood. Try plain words, "
                           'or check quotes and parentheses.')
    if query is NullQuery or not _has_searchable_leaf(query):
        return ParsedQuery(text, None, "This query has no words to search for. Try plain words "
                           "such as: diffusion generalization")
    return ParsedQuery(text, query)


def _has_searchable_leaf(query: Query) -> bool:
    leaves = [query] if query.is_leaf() else list(query.leaves())
    return any(leaf is not NullQuery and not isinstance(leaf, Every) for leaf in leaves)
