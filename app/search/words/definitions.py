"""The acronyms a text defines ("large language models (LLMs)", "low-rank adaptation (LoRA)"),
found as Schwartz and Hearst find them: an acronym in parentheses, and the shortest run of
words before it whose letters spell it, its first letter starting a word. What the catalog
learns acronyms from (acronyms.py), and which acronyms a paper's keyphrases keep in their
case (keyphrases.py).
"""

from __future__ import annotations

import re

_IN_PARENTHESES = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,11})\)")
_WORD = re.compile(r"[^\s()]+")
_DEBRIS = re.compile(r"[*_`{}\[\]\\$\"“”‘’<>|~^#]")


def definitions(text: str) -> set[tuple[str, str]]:
    """The (acronym, long form) pairs the text defines."""
    found = set()
    for match in _IN_PARENTHESES.finditer(text):
        acronym = _singular(match[1])
        if sum(ch.isupper() for ch in acronym) < 2:
            continue  # "(ours)", "(e.g)", "(Fig)" are not acronyms
        letters = [ch.lower() for ch in acronym if ch.isalnum()]
        before = _WORD.findall(text[: match.start()])[-(len(letters) + 4):]
        long_form = _clean(_long_form(" ".join(before), letters) or "")
        if long_form and 2 <= len(re.split(r"[\s-]+", long_form)) <= len(letters) + 2:
            found.add((acronym, long_form.lower()))
    return found


def _clean(long_form: str) -> str:
    """A long form without markup and punctuation debris: "mapping}" → "mapping"."""
    return " ".join(_DEBRIS.sub(" ", long_form).split()).strip(" ,;:.-'/")


def _singular(acronym: str) -> str:
    """LLMs → LLM; LLMsys stays."""
    return acronym[:-1] if acronym.endswith("s") and acronym[-2].isupper() else acronym


def _long_form(text: str, letters: list[str]) -> str | None:
    """The shortest end of `text` whose characters spell `letters` in order, the first one
    at the start of a word (Schwartz & Hearst, 2003)."""
    position = len(text) - 1
    for i in range(len(letters) - 1, -1, -1):
        while position >= 0 and (text[position].lower() != letters[i] or (
                i == 0 and position > 0 and text[position - 1].isalnum())):
            position -= 1
        if position < 0:
            return None
        position -= 1
    return text[position + 1:]
