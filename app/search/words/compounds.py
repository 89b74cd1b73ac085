"""A compound written closed or hyphenated: "pretraining" and "pre-training", "finetuning"
and "fine-tuning", "backpropagation" and "back-propagation" are one word to a researcher, but
the index holds one term for the first and two for the second. A typed compound finds its
other spelling where the catalog writes both: where at least `SPELLING_SHARE` as many papers
write it hyphenated as closed (the vocabulary counts both, vocabulary.py).

So "net-work" (rare beside "network") and "data-set" (beside "dataset") stay apart and
everyday words keep their counts, while "pre-training" (more papers than "pretraining") and
"multi-task" join. Only the hyphen counts: "set up" and "data set" written as two words are
no evidence ("we set up" is no setup). Both spellings find the same papers.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.search.query.clauses import analyze_phrase
from app.search.words.vocabulary import HYPHENATED

SPELLING_SHARE = 0.1


def other_spelling(typed: str, written: Mapping[str, int],
                   hyphenated: Mapping[str, int]) -> str | None:
    """A typed compound's other spelling, or None where the catalog shows none
    (`written`: papers per word as written; `hyphenated`: papers per hyphenated compound
    whose closed form is a word of the catalog)."""
    lowered = typed.lower()
    if HYPHENATED.fullmatch(lowered):
        closed = lowered.replace("-", "")
        return closed if _spelled(lowered, closed, written, hyphenated) else None
    if not lowered.isalpha():
        return None
    splits = [f"{lowered[:at]}-{lowered[at:]}" for at in range(2, len(lowered) - 1)]
    best = max((split for split in splits if split in hyphenated), default=None,
               key=hyphenated.__getitem__)
    return best if best and _spelled(best, lowered, written, hyphenated) else None


def _spelled(split: str, closed: str, written: Mapping[str, int],
             hyphenated: Mapping[str, int]) -> bool:
    """Whether the hyphenated `split` is a spelling of `closed` in the catalog."""
    return (written.get(closed, 0) > 0 and len(analyze_phrase(closed)) == 1
            and len(analyze_phrase(split)) == 2
            and hyphenated.get(split, 0) >= SPELLING_SHARE * written[closed])
