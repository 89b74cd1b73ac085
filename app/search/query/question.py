"""Questions, requests and descriptions, read as a bag of weighted content words.

Researchers type questions ("how to make diffusion models sample faster"), requests ("papers
about federated learning") and descriptions (a sentence, an author's TL;DR). Read as
keywords, every word must match: "how" and "best" become required, and a paper is ranked by
how many of the typed words it lacks, not by what those words weigh. So a query is read as a
**question** when one of its plain (unquoted) words asks (`app.words.INTERROGATIVES`: the
first word, or any word of a short query), when it starts as a yes/no question or a request
(`AUXILIARIES`, `REQUEST_LEADS`), or ends with "?";
and as a **description** when it has `MANY_WORDS` content words or more. Then:

- the function words of questions and requests (`QUESTION_FUNCTION_WORDS`) are left out:
  never required, never shown as missing, never scored. Inside a quoted phrase they count;
- in a question, words joined by "or" are one part, held by a paper holding either
  (`alternatives`);
- the papers listed are those with every content word, then those holding at least
  `weights.WEIGHTS.bag_share` of the query's weight, each part (a word, a phrase, a synonym
  group) weighing its IDF; they are ranked by BM25F over the parts they share times the share
  of the weight they hold (question_ranking.py), so lacking a rare concept costs more than
  common word.

A query with AND, OR or NOT is an expert's and is read as typed, parentheses and all, as is a
query of function words alone ("what is best"). Elsewhere parentheses are prose: "wavelets
instead of neighborhood approaches (max, average, etc)" is a description.
"""

from __future__ import annotations

import re
from enum import Enum

from app.search.query.clauses import Tokens
from app.search.rank import weights
from app.search.words.analysis import analyze
from app.search.words.lemma_table import lemmas
from app.words import (
    ASPECT_WORDS,
    AUXILIARIES,
    COMPOUND_ENDS,
    INTERROGATIVES,
    QUESTION_FUNCTION_PHRASES,
    QUESTION_FUNCTION_WORDS,
    REQUEST_LEADS,
)

WITHOUT = frozenset({"without"})
WITHOUT_TERM, FREE_TERM = analyze("without")[0], analyze("free")[0]
_VERB_ONLY = frozenset({"VERB", "AUX"})
# "working out which", "finding out whether": a particle between a verb and the clause it takes
_PARTICLES = frozenset({"out", "up"})
# "answering questions about what is shown": a preposition taking the clause, in a task
_PREPOSITIONS = frozenset({"about", "of", "on", "for", "from", "into", "with", "over", "between"})
# A query with this many content words is a description: no paper holds them all; one with
# fewer is, when no paper does.
MANY_WORDS = 6
FEW_WORDS = 4
OPERATORS = frozenset({"AND", "OR", "NOT", "&&"})

_TRIM = re.compile(r"^[^\w']+|[^\w']+$")


class Reading(Enum):
    KEYWORDS = "keywords"
    QUESTION = "question"
    DESCRIPTION = "description"

    @property
    def complete_first(self) -> bool:
        """Whether its papers holding every concept come first (a question's), or are ranked
        with the rest: of a description's many concepts, a paper holding every one often
        holds an incidental word in passing (question_ranking.ordered, docs/search.md)."""
        return self is not Reading.DESCRIPTION

    @property
    def offers_alternatives(self) -> bool:
        """Whether its "A or B" is one part that a paper holds with either (`alternatives`):
        a question's; read so, descriptions lost (docs/search.md)."""
        return self is Reading.QUESTION

    @property
    def borrows_terms(self) -> bool:
        """Whether its first page is raised by the terms its closest papers share where the
        encoder is unsure of it (shared_terms.py): a description's; a question names its
        concepts itself (docs/search.md)."""
        return self is Reading.DESCRIPTION

    @property
    def meaning_weight(self) -> float:
        """How much closeness in meaning counts beside its words (by_meaning.fused)."""
        return (weights.WEIGHTS.question_meaning_weight if self is Reading.QUESTION
                else weights.WEIGHTS.meaning_weight)


def _plain(word: str) -> str:
    return _TRIM.sub("", word).lower().replace("’", "'")


def reading_of(tokens: list[re.Match[str]], text: str, unmatched: bool = False) -> Reading:
    """How a query is read, from its tokens (language.py's `_TOKEN` matches) and its text; a
    query of at least `FEW_WORDS` content words that no paper holds all of (`unmatched`)
    is a description too."""
    if any(token["word"] in OPERATORS and not token["neg"] for token in tokens):
        return Reading.KEYWORDS  # an expert's query: read as typed
    words = [token["word"] for token in tokens
             if token["word"] and not token["neg"] and token["word"] not in OPERATORS]
    phrases = sum(token["phrase"] is not None for token in tokens)
    plain = [_plain(word) for word in words]
    content = [word for word in words if is_content_word(word)]
    if not content and not phrases:
        return Reading.KEYWORDS  # "what is best": nothing else to search for
    many = FEW_WORDS if unmatched else MANY_WORDS
    long = len(content) + phrases >= many
    task = _takes_clause(plain)
    # Within a long text, "when" or "which" joins clauses of a description ("by learning
    # when to call APIs"); a question starts by asking or ends with "?".
    asks = ((plain and plain[0] in INTERROGATIVES | AUXILIARIES)
            or (not long and task is False)
            or any(tuple(plain[:len(lead)]) == lead for lead in REQUEST_LEADS)
            or text.rstrip().endswith("?"))
    if asks:
        return Reading.QUESTION
    return Reading.DESCRIPTION if long or task else Reading.KEYWORDS


def alternatives(tokens: list[re.Match[str]]) -> set[int]:
    """The positions of a question's words that follow an "or" as the alternative to the word
    before it: "can transformers learn to sort or do arithmetic" asks for papers on either (an
    auxiliary may come between), as do the words of a list before it, "sorting, merging or
    hashing". Not "whether or not", nor an "or" after a function word."""
    def content(token: re.Match[str]) -> bool:
        return token["phrase"] is not None or bool(
            token["word"] and not token["neg"] and is_content_word(token["word"]))

    found = set()
    for at in range(1, len(tokens) - 1):
        if tokens[at]["word"] != "or" or not content(tokens[at - 1]):
            continue
        after = at + 1
        while after < len(tokens) - 1 and _plain(tokens[after]["word"] or "") in AUXILIARIES:
            after += 1
        if content(tokens[after]):
            found.add(after)
            listed = at - 1
            while listed > 0 and content(tokens[listed - 1]) and tokens[listed - 1][0][-1] == ",":
                found.add(listed)
                listed -= 1
    return found


def _takes_clause(plain: list[str]) -> bool | None:
    """Whether a verb takes a short query's first interrogative after its first word as the
    start of its object: a description of a task, "guessing how far away things are",
    "telling whether a medicine is toxic", "a sentence that says what is happening" (the words
    after it are the clause's: "figuring out who spoke when"); not "diffusion models how to
    sample faster", which asks. None without one. An -ing word takes it only as the task's
    first word: "catastrophic forgetting when fine-tuning" asks; so does a preposition, in a
    task that starts with one: "answering questions about what is shown in a picture"."""
    first = next((i for i, word in enumerate(plain) if word in INTERROGATIVES and i), None)
    if first is None:
        return None
    before = plain[:first - 1] if plain[first - 1] in _PARTICLES else plain[:first]
    if not before:
        return False
    if before[-1] in _PREPOSITIONS:  # the clause of a task's object: "answering ... about what"
        return _is_gerund(before[0])
    if before[-1].endswith("ing"):
        return len(before) == 1 and _is_gerund(before[-1])
    parts = lemmas(before[-1])
    return bool(parts) and set(parts) <= _VERB_ONLY


def _is_gerund(word: str) -> bool:
    return word.endswith("ing") and "VERB" in lemmas(word)


def prose_tokens(tokens: list[re.Match[str]]) -> tuple[list[re.Match[str]], list[str]]:
    """A question's or a description's tokens read as prose: without parentheses ("(max,
    average, etc)" groups nothing) and without the phrases that ask rather than name a
    concept (`QUESTION_FUNCTION_PHRASES`); and those phrases as typed. The phrases are kept
    when nothing else would be left to search for."""
    tokens = [t for t in tokens if not (t["open"] or t["close"])]
    plain = [_plain(t["word"]) if t["word"] and not t["neg"] else "" for t in tokens]
    kept: list[re.Match[str]] = []
    asked: list[str] = []
    i = 0
    while i < len(tokens):
        phrase = next((p for p in QUESTION_FUNCTION_PHRASES
                       if tuple(plain[i:i + len(p)]) == p), None)
        if phrase is None:
            kept.append(tokens[i])
            i += 1
            continue
        asked.append(" ".join(t["word"] for t in tokens[i:i + len(phrase)]))
        i += len(phrase)
    if not any(t["phrase"] or (t["word"] and is_content_word(t["word"])) for t in kept):
        return tokens, []
    return kept, asked


def is_function_word(word: str, after_concept: bool = False) -> bool:
    """Whether a word of a question asks rather than names: not so for a word that ends a
    compound `after_concept` ("multi-agent path finding" is not "multi-agent path")."""
    plain = _plain(word)
    return plain in QUESTION_FUNCTION_WORDS and not (after_concept and plain in COMPOUND_ENDS)


def is_aspect_word(word: str) -> bool:
    """Whether a function word of a question names what it asks about a concept ("the
    limitations of RLHF"): scored, not required."""
    return _plain(word) in ASPECT_WORDS


def is_doing_without(word: str) -> bool:
    return _plain(word) in WITHOUT


def doing_without(typed: str, lacking: tuple[str, ...]) -> list[Tokens]:
    """How papers write that they do without a concept (`typed`, analyzed to `lacking`):
    "without backpropagation", "backpropagation-free". A question asking for that ranks them
    first among the papers holding the concept, which stays a concept: papers that do
    without a thing name it. Nothing for a verb: "without losing accuracy" asks for pruning
    that keeps its accuracy, not for papers that write "without losing"."""
    parts = lemmas(_plain(typed))
    if parts and set(parts) <= _VERB_ONLY:
        return []
    return [Tokens((WITHOUT_TERM, *lacking), [0] * len(lacking)),
            Tokens((*lacking, FREE_TERM), [0] * len(lacking))]


def is_content_word(word: str) -> bool:
    """A word a question or a description searches for: not a function word, and indexed."""
    return not is_function_word(word) and bool(analyze(word))
