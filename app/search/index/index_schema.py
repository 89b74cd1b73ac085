"""What an index generation holds of each paper, its fields (the schema: the facets' as their
kinds make them, the texts, the columns), and the format that names the schema and the rest:
a generation of another format is rebuilt.
"""

from __future__ import annotations

import hashlib
from functools import cache

from whoosh.columns import NumericColumn
from whoosh.fields import COLUMN, ID, TEXT, Schema

from app.facets import FACETS
from app.search.rank import weights
from app.search.words.analysis import (
    AnalyzedPositions,
    CachedAnalyzer,
    catalog_analyzer,
    word_analyzer,
)

# What the schema does not say (how texts are analyzed, which files a generation holds, what
# the documents hold) is revised by hand; a change of the schema itself (a facet, its kind, a
# field's options, where its classes live) changes the format by itself (`index_format_now`).
# 27: no piece of a link among the words (vocabulary.py)
# 28: the sentence vectors in int8 with a scale per row (by_meaning.SentenceVectors)
# 29: posting weights in float16 and positions in uint16 (arrays.py)
FORMAT_REVISION = 29


def _positional(analyzer: CachedAnalyzer, field_boost: float = 1.0) -> TEXT:
    """A text field with positions (for phrases), analyzed without a token per word."""
    field = TEXT(analyzer=analyzer, field_boost=field_boost)
    field.format = AnalyzedPositions(field_boost=field_boost)
    return field


def build_schema() -> Schema:
    analyzer = catalog_analyzer()
    return Schema(
        id=ID(stored=True, unique=True, sortable=True),  # a column too: hits' IDs by lookup
        **{facet.name: facet.kind.field(facet.stored) for facet in FACETS},
        venue_name=TEXT(analyzer=word_analyzer(), phrase=False),  # "icml", "neurips"
        headline=_positional(analyzer, field_boost=weights.WEIGHTS.headline_field),
        text=_positional(analyzer),
        author=_positional(word_analyzer()),  # author names, for `author:`
        # First ingested, epoch seconds: only sorted by (feeds), so a column and no terms.
        added=COLUMN(NumericColumn("Q")),
    )


@cache
def index_format_now() -> str:
    """This code's index format: `FORMAT_REVISION` and a digest of the schema's fields and of
    what the facets' kinds index (`FacetKind.indexed`: the flags of `has:`)."""
    # Classes by module and name: Whoosh pickles the schema with them, so a class moved
    # elsewhere leaves older indexes unreadable, and must make another format.
    fields = [(name, _where(field), _where(field.format), _where(getattr(field, "analyzer", None)),
               getattr(field.format, "field_boost", 1.0), field.stored, field.unique,
               field.scorable, _where(field.column_type))
              for name, field in build_schema().items()]
    fields += [(facet.name, facet.kind.indexed()) for facet in FACETS]
    digest = hashlib.blake2b(repr(fields).encode(), digest_size=4).hexdigest()
    return f"{FORMAT_REVISION}.{digest}"


def _where(value: object) -> str:
    """Where a value's class lives, as a pickle names it."""
    return f"{type(value).__module__}.{type(value).__qualname__}"
