"""A pasted text (an abstract) in the search box: when a query is read as one, the filters typed
with it, and how many papers like it a search lists (pipeline.py reads it, similar.py ranks).
"""

from __future__ import annotations

import re

from app.search.query.parts import FIELD_VALUE, FILTER_FIELDS
from app.search.query.question import OPERATORS

# A query of more words is a pasted text: answered by papers like it as a whole (similar.py),
# as 200 ANDed words would find nothing. It may be this long.
PASTED_TEXT_WORDS = 40
MAX_TEXT_CHARS = 10_000
# Its papers most like it: the best of more candidates, so filters leave some.
LIKE_TEXT_RESULTS = 100
LIKE_TEXT_CANDIDATES = 2000
# A filter typed into a text, as a word of its own (a link's "https:" names no filter)
_TYPED = re.compile(rf"(?<!\S)-?{FIELD_VALUE}")
LIKE_TEXT_NOTE = ("This {words}-word query was read as a text, not as words that must all "
                  "match: these are the {n} papers{within} most like it as a whole (by the "
                  "terms that most set it apart), as related papers are found.")
NO_KEY_TERMS_NOTE = ("This {words}-word query was read as a text, but none of its words is in "
                     "the catalog: no paper is like it.")


def is_pasted_text(raw: str) -> bool:
    """Whether a query is long enough to be a pasted text rather than words to match: more
    than `PASTED_TEXT_WORDS` words besides the filters and the operators typed with them (a
    query of 32 prefixes joined by OR is words to match, not a 63-word text)."""
    text, _ = typed_filters(raw[:MAX_TEXT_CHARS])
    return sum(word not in OPERATORS for word in text.split()) > PASTED_TEXT_WORDS


def typed_filters(raw: str) -> tuple[str, list[str]]:
    """The text without the filters typed into it (`venue:icml`, `-year:2019`,
    `author:"Yoshua Bengio"`), its words one space apart, and those filters. In a pasted text
    they are its one piece of query language: an abstract's own quotes, hyphens and
    parentheses are words."""
    spans = [typed.span() for typed in _TYPED.finditer(raw)
             if typed["field"].lower() in FILTER_FIELDS]
    cuts = [0, *(at for span in spans for at in span), len(raw)]
    text = " ".join(raw[start:end] for start, end in zip(cuts[::2], cuts[1::2], strict=True))
    return " ".join(text.split()), [raw[start:end] for start, end in spans]


def like_text_note(text: str, listed: int, filters: list[str]) -> str:
    """What the page says of a pasted text's papers (none where the filters leave none)."""
    within = f" of {' '.join(filters)}" if filters else ""
    note = LIKE_TEXT_NOTE.format(words=len(text.split()), n=listed, within=within)
    return note if listed else note.split(": ")[0] + "."
