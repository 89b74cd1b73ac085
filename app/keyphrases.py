"""Keyphrases: the five phrases that best characterise an abstract, by TF-IDF.

Candidates are runs of one to three content words (split at stop words and punctuation).
A candidate scores count × mean IDF of its words × a bonus for longer phrases; IDF comes from
word document frequencies over the whole catalog, kept in the `word_stat` table and updated
by each ingest, so "learning" ranks low and "grokking" high.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

KEYPHRASES_PER_PAPER = 5
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*|[.,;:!?()\[\]\"]")
# Function words and the verbs and nouns every abstract uses: they split candidates.
STOP = frozenset("""
a about above across after again against all almost along also although always among an and
another any are around as at be because been before being below between both but by can could
do does doing done due during each either enable enables enabling et etc even every few for
from further given has have having here how however i if in into is it its itself just less
like may more most much must no nor not of off often on once one only or other our ours out
over own per rather same several should show shows shown since so some such than that the their
them then there these they this those through thus to too two under until up upon us use used
uses using very via was we well were what when where whether which while who whom why will with
within without would yet you your al e g i.e e.g paper papers propose proposed proposes present
presents approach approaches method methods result results work works novel new existing prior
recent recently demonstrate demonstrates experiments experimental extensive significantly
significant state art outperforms achieve achieves achieved based first second three key study
studies provide provides introduce introduces different various remains remain however
furthermore moreover specifically particular particularly effective effectively improve
improves improved improving performance model models framework task tasks problem problems data
show find finds found make makes across able ability large small high low many including
include includes theoretical empirical code available often strong stronger now still yet
""".split())


_PHRASE_WORDS: dict[str, str] = {}  # token → its form in a phrase; "" when it ends phrases
_PHRASE_WORDS_LIMIT = 500_000


def _phrase_word(token: str) -> str:
    lowered = token.lower()
    # Adverbs ("fundamentally", "nearly") end phrases as stop words do.
    if (lowered in STOP or not token[0].isalpha() or len(token) < 2
            or lowered.endswith("ly")):
        return ""
    return lowered


def candidate_phrases(text: str) -> Counter[str]:
    """Candidate phrases (lowercased) with their counts in one text."""
    known = _PHRASE_WORDS  # tokens recur across abstracts: each is classified once
    if len(known) > _PHRASE_WORDS_LIMIT:
        known.clear()
    phrases: list[str] = []
    run: list[str] = []
    for token in _WORD.findall(text):
        word = known.get(token)
        if word is None:
            word = known[token] = _phrase_word(token)
        if word:
            run.append(word)
        elif run:
            _add_runs(phrases, run)
            run = []
    _add_runs(phrases, run)
    return Counter(phrases)


def _add_runs(phrases: list[str], run: list[str]) -> None:
    """The run's words, pairs and triples of consecutive words."""
    phrases.extend(run)
    if len(run) > 1:
        phrases.extend(map(" ".join, zip(run, run[1:], strict=False)))
        if len(run) > 2:
            phrases.extend(map(" ".join, zip(run, run[1:], run[2:], strict=False)))


def content_words(text: str) -> set[str]:
    return {w for w in (t.lower() for t in _WORD.findall(text))
            if w[0].isalpha() and w not in STOP and len(w) > 1}


class KeyphraseExtractor:
    """Keyphrases against word document frequencies (`word_df`, out of `documents`)."""

    def __init__(self, word_df: dict[str, int], documents: int) -> None:
        self.word_df = word_df
        self.documents = documents
        self.idfs: dict[str, float] = {}  # computed once per word: most recur in every paper

    def _idf(self, word: str) -> float:
        idf = self.idfs.get(word)
        if idf is None:
            idf = self.idfs[word] = math.log(
                (self.documents + 1) / (self.word_df.get(word, 0) + 1)) + 1
        return idf

    def extract(self, text: str, limit: int = KEYPHRASES_PER_PAPER) -> list[str]:
        """The best `limit` candidates; a phrase inside a better one is not repeated."""
        idf = self._idf
        scored = []
        for phrase, count in candidate_phrases(text).items():
            words = phrase.split()
            mean_idf = sum(map(idf, words)) / len(words)
            scored.append((-count * mean_idf * (1 + 0.6 * (len(words) - 1)), phrase))
        chosen: list[str] = []
        for _, phrase in sorted(scored):
            if any(phrase in other or other in phrase for other in chosen):
                continue
            chosen.append(phrase)
            if len(chosen) == limit:
                break
        return chosen


def document_frequencies(texts: Iterable[str]) -> Counter[str]:
    df: Counter[str] = Counter()
    for text in texts:
        df.update(content_words(text))
    return df
