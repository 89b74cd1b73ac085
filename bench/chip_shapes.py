"""Chip shapes a researcher would not write, counted over the chips of bench/keyphrases.py:
verb fragments, two-letter stubs, acronyms and names shown in lowercase, words cut after
digits, and phrases that end in a word that is not a noun."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol

from lemminflect import getAllLemmas

from app.search.words.analysis import acronym_term


class Chipped(Protocol):
    plain: str
    chips: list[str]


_TEXT_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")


def _parts(word: str) -> dict[str, tuple[str, ...]]:
    return getAllLemmas(word.lower()) if acronym_term(word) is None else {}


def is_verb_fragment(chip: str) -> bool:
    """A chip with a word the dictionary knows only as a verb: in its base form anywhere
    ("better understand catastrophic"), as the -ing form opening a longer chip ("obtaining exact
    expressions"), or in another form (-s, -ed, "hidden") ending a longer one ("models
    trained"). -ing words elsewhere ("catastrophic forgetting") and participles before a noun
    ("learned representations") are read as nouns and adjectives."""
    words = chip.split()
    for i, word in enumerate(words):
        parts = _parts(word)
        if not parts or set(parts) - {"VERB", "AUX"}:
            continue
        lower = word.lower()
        if lower.endswith("ing"):
            if i == 0 and len(words) > 1:
                return True
        elif lower not in parts.get("VERB", ()):
            if i == len(words) - 1 and len(words) > 1:
                return True
        else:
            return True
    return False


def is_stub(chip: str) -> bool:
    """A chip with a two-letter lowercase word ("cf", "cl")."""
    return any(len(w) == 2 and w.isalpha() and w.islower() for w in chip.split())


def written_forms(plain: str) -> dict[str, set[str]]:
    """Each word of the text (lowercased) → the ways it is written; digits may lead a word."""
    forms: dict[str, set[str]] = defaultdict(set)
    for token in _TEXT_WORD.findall(plain):
        forms[token.lower()].add(token)
    return forms


def lowercased_name(chip: str, forms: dict[str, set[str]]) -> bool:
    """A chip word in lowercase that the abstract writes only with capitals inside it (inside a
    part between hyphens), as an acronym or a name (chip "lora" or "langocc", text "LoRA" or
    "LangOcc"; not "monte-carlo" of "Monte-Carlo")."""
    for word in chip.split():
        written = forms.get(word)
        if (word.islower() and written and word not in written
                and all(any(ch.isupper() for part in form.split("-") for ch in part[1:])
                        for form in written)):
            return True
    return False


def cut_after_digits(chip: str, forms: dict[str, set[str]]) -> bool:
    """A chip word the abstract never writes alone, only after digits ("DGS" of "3DGS",
    "d-aware" of "3D-aware")."""
    for word in chip.lower().split():
        if word not in forms and any(w.endswith(word) and w[:len(w) - len(word)].isdigit()
                                     for w in forms):
            return True
    return False


def ends_without_noun(chip: str) -> bool:
    """The last word is in the dictionary, but not as a noun ("generative", "robust"); an -ing
    word is read as a noun ("temporal reasoning")."""
    last = chip.split()[-1]
    parts = _parts(last)
    return (bool(parts) and not {"NOUN", "PROPN"} & set(parts)
            and not last.lower().endswith("ing") and not is_verb_fragment(chip))


def shapes_table(papers: Sequence[Chipped]) -> list[str]:
    cache: dict[int, dict[str, set[str]]] = {}

    def forms(paper: Chipped) -> dict[str, set[str]]:
        if id(paper) not in cache:
            cache.clear()
            cache[id(paper)] = written_forms(paper.plain)
        return cache[id(paper)]

    checks: dict[str, Callable[[Chipped, str], bool]] = {
        "verb fragment": lambda _p, chip: is_verb_fragment(chip),
        "two-letter lowercase stub": lambda _p, chip: is_stub(chip),
        "acronym or name shown in lowercase": lambda p, chip: lowercased_name(chip, forms(p)),
        "word cut after digits": lambda p, chip: cut_after_digits(chip, forms(p)),
        "ends in a word that is not a noun": lambda _p, chip: ends_without_noun(chip),
    }
    found: dict[str, Counter[str]] = {name: Counter() for name in checks}
    papers_with: Counter[str] = Counter()
    total = 0
    for paper in papers:
        total += len(paper.chips)
        for name, check in checks.items():
            flagged = [chip for chip in paper.chips if check(paper, chip)]
            found[name].update(flagged)
            papers_with[name] += bool(flagged)
    lines = [f"Over the {total:,} chips of the {len(papers):,} evaluated papers.", "",
             "| shape | chips | share of chips | papers with one | most common |",
             "|---|---|---|---|---|"]
    for name, counts in found.items():
        n = sum(counts.values())
        common = ", ".join(f"{chip} ({k})" for chip, k in counts.most_common(8)) or "-"
        lines.append(f"| {name} | {n:,} | {n / max(total, 1):.1%} | {papers_with[name]:,} "
                     f"| {common} |")
    return lines
