"""Snippets: the one or two passages of an abstract that hold most query terms, with the
terms in <mark>, built from the plain text and escaped everywhere else.

Whoosh's highlighter re-tokenizes and scores every fragment of the text through its generic
fragmenter; this looks the words up through the cached analyzer and slides a window over the
matches, which costs a tenth as much and gives the same marks.
"""

from __future__ import annotations

from bisect import bisect_left
from html import escape

from whoosh.query import Query

from app.search.query.parts import TEXT_FIELDS
from app.search.words.analysis import catalog_analyzer
from app.search.words.word_starts import candidates
from app.words import TITLE_PHRASE_BREAKS

SNIPPET_CHARS = 240
FRAGMENTS = 2


def query_terms(query: Query) -> set[str]:
    """The analyzed words a query looks for in the text fields."""
    return {text if isinstance(text, str) else text.decode("utf-8")
            for field, text in query.iter_all_terms(phrases=True) if field in TEXT_FIELDS}


def make_snippet(text: str, terms: set[str], width: int = SNIPPET_CHARS) -> str:
    spans = catalog_analyzer().spans(text, terms, candidates(frozenset(terms), text.isascii()))
    if not terms <= TITLE_PHRASE_BREAKS:
        spans = _without_lone_small_words(text, spans)
    if not spans:
        return _passages(text, [(0, width)], [])
    windows: list[tuple[int, int]] = []
    remaining = spans
    while remaining and len(windows) < FRAGMENTS:
        # The window starting at the match that has the most matches within `width` after it
        # (matches are in text order: counted by bisection, not by a scan per match).
        starts = [s for s, _ in remaining]
        best = max(range(len(starts)),
                   key=lambda i: bisect_left(starts, starts[i] + width, i) - i)
        # A sixth of the window before the match, less where the text ends sooner: a short
        # text shows whole rather than after an ellipsis.
        start = max(0, min(remaining[best][0] - width // 6, len(text) - width))
        windows.append((start, start + width))
        remaining = [(s, e) for s, e in remaining if not start <= s < start + width]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):  # passages that meet or overlap read as one
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return _passages(text, merged, spans)


def _without_lone_small_words(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans without the small words of a phrase ("in" of "in-context learning") that
    stand apart from every other mark: marked where the phrase stands, not in "In practice"."""
    def beside(i: int) -> bool:
        return ((i > 0 and spans[i][0] - spans[i - 1][1] <= 1)
                or (i + 1 < len(spans) and spans[i + 1][0] - spans[i][1] <= 1))

    return [span for i, span in enumerate(spans)
            if text[span[0]:span[1]].lower() not in TITLE_PHRASE_BREAKS or beside(i)]


def _passages(text: str, windows: list[tuple[int, int]], spans: list[tuple[int, int]]) -> str:
    """The windows' text, each cut at spaces, with one ellipsis wherever text is left out."""
    cut = [_cut_at_spaces(text, start, end) for start, end in windows]
    inner = " … ".join(_fragment(text, start, end, spans) for start, end in cut)
    return ("…" if cut[0][0] > 0 else "") + inner + ("…" if cut[-1][1] < len(text) else "")


def _cut_at_spaces(text: str, start: int, end: int) -> tuple[int, int]:
    if start > 0:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < end else start
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return start, end


def _fragment(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    """text[start:end], escaped, with the spans inside it marked."""
    out = []
    position = start
    for s, e in spans:
        if s < start or e > end:
            continue
        out.append(escape(text[position:s]))
        out.append(f"<mark>{escape(text[s:e])}</mark>")
        position = e
    out.append(escape(text[position:end]))
    return "".join(out)
