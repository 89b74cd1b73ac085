"""The text analyzer shared by indexing and querying.

Tokens are lowercased, British spellings are mapped to American ones (so "generalisation" and
"generalization" become one term) and inflections are folded: plurals, possessives and verb
endings (networks → network, policies → policy, learned/learning → learn), never derivations
(transformer ≠ transform, generative ≠ generation, positive ≠ position), which a stemmer such as
Snowball folds together and which made counts and trends wrong (docs/search.md, "Words").
Words in the dictionary take their lemma (LemmInflect's tables, as lemma_table.py reads them);
others, mostly field jargon ("finetuned", "autoencoders"), the inflectional steps of Porter's
algorithm only. Acronyms as written ("LLMs", "LoRA", "AIS") only lose a plural s: AIS is not
"ai". Only a handful of stop words are dropped: "in" and "to" carry meaning in "in-context"
and "weak-to-strong".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from whoosh.analysis import (
    Analyzer,
    CharsetFilter,
    Filter,
    LowercaseFilter,
    RegexTokenizer,
    StopFilter,
    Token,
    Tokenizer,
)
from whoosh.formats import Positions
from whoosh.lang import porter2
from whoosh.support.charset import accent_map

from app.search.words.american_spelling import americanize
from app.search.words.lemma_table import lemmas
from app.search.words.math_symbols import MathSymbolFilter
from app.words import STOP_WORDS

# A word's part of speech is unknown: "-ing" and "-ed" forms are read as verbs (learning →
# learn), other words as nouns first (data → data, does → do). Adjectives and adverbs keep
# their form: their lemmas undo comparison (worst → bad, greater → great), no inflection
# researchers mean the same by.
_VOWEL = re.compile("[aeiouy]")
_VERB_FIRST = ("VERB", "AUX", "NOUN")
_NOUN_FIRST = ("AUX", "NOUN", "VERB")


def _lemma(word: str) -> str | None:
    """The word's lemma as a noun or verb; the word itself for an adjective or adverb; None
    for a word the tables do not know."""
    lemmas_ = lemmas(word)
    if not lemmas_:
        return None
    order = _VERB_FIRST if word.endswith(("ing", "ed")) else _NOUN_FIRST
    part = next((p for p in order if p in lemmas_), None)
    return lemmas_[part][0] if part else word


def _porter_inflections(word: str) -> str:
    """Porter's (Snowball English) steps for inflections only, 0, 1a-c and 5: the same
    word for every inflection of an unknown word (finetune, finetuned, finetuning → finetun),
    without steps 2-4, which strip derivational suffixes (-er, -ive, -ation, -al)."""
    if len(word) <= 2:
        return word
    if word[-1] == "s" and not _VOWEL.search(word[:-1]):
        return word[:-1]  # an acronym written in lowercase: llms → llm
    word = porter2.remove_initial_apostrophe(word)
    if word in porter2.exceptional_forms:
        return porter2.exceptional_forms[word]
    word = porter2.capitalize_consonant_ys(word)
    r1, r2 = porter2.get_r1(word), porter2.get_r2(word)
    word = porter2.step_1a(porter2.step_0(word))
    if word not in porter2.exceptional_early_exit_post_1a:
        word = porter2.step_5(porter2.step_1c(porter2.step_1b(word, r1)), r1, r2)
    return porter2.normalize_ys(word)


def fold_inflections(word: str) -> str:
    """One lowercase word without its inflection, in American spelling (an idempotent map:
    "embeddings" → "embedding" → "embed" is folded until it stays)."""
    for _ in range(3):
        american = americanize(word)
        lemma = _lemma(word) or (_lemma(american) if american != word else None)
        folded = americanize(lemma if lemma else _porter_inflections(american))
        if folded == word or lemma is None:
            return folded
        word = folded
    return word


def acronym_term(word: str) -> str | None:
    """The term of a word written as an acronym (two capitals or more, ending in a capital or
    a digit, maybe with a plural s: "LLMs", "LoRA", "ViT", "ResNet50"): lowercased without the
    plural s and never stemmed. None for other words ("ImageNet", "Transformers")."""
    if word[1:].islower() or len(word) < 2:  # most words: quickly told apart
        return None
    body = word[:-1] if len(word) > 2 and word[-1] == "s" and not word[-2].islower() else word
    if (body.isascii() and sum(ch.isupper() for ch in body) >= 2
            and (body[-1].isupper() or body[-1].isdigit())):
        return body.lower()
    return None


class AcronymTerm(str):
    """The term of a word written as an acronym, which the index also holds as its `marker`
    ("MAP" for MAP and MAPs), at the same position: a search for the acronym MAP finds the
    papers that write MAP, not every "feature map", while `map` still finds both."""

    marker: str


def acronym_marker(term: str) -> str:
    """The marker the index holds beside an acronym's term: the term in capitals. Terms are
    otherwise lowercase, so no word collides with it."""
    return term.upper()


def _acronym(term: str) -> AcronymTerm:
    text = AcronymTerm(term)
    text.marker = acronym_marker(term)
    return text


class AcronymFilter(Filter):
    """Words written as acronyms become their term, marked to keep it from folding."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for token in tokens:
            term = acronym_term(token.text)
            token.acronym = term is not None
            if term is not None:
                token.text = term
            yield token


class InflectionFilter(Filter):
    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for token in tokens:
            if not (token.acronym or token.stopped):  # stop words kept marked stay as written
                token.text = fold_inflections(token.text)
            yield token


class AcronymMarkerFilter(Filter):
    """When indexing, an acronym's marker follows its term at the same position."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for token in tokens:
            yield token
            if token.acronym and not token.stopped and token.mode == "index":
                token.text = acronym_marker(token.text)
                yield token


TOKEN_PATTERN = r"\w+(?:\.\w+)*"
_TOKEN = re.compile(TOKEN_PATTERN)
_WORD_CACHE_LIMIT = 500_000


def _stemming_chain() -> Analyzer:
    # CachedAnalyzer caches whole words: the chain runs once per distinct word.
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | AcronymFilter()
        | LowercaseFilter()
        | MathSymbolFilter()
        | CharsetFilter(accent_map)
        | StopFilter(stoplist=STOP_WORDS, minsize=1)
        | InflectionFilter()
        | AcronymMarkerFilter()
    )


def _word_chain() -> Analyzer:
    return RegexTokenizer(TOKEN_PATTERN) | LowercaseFilter() | CharsetFilter(accent_map)


_CHAINS = {"stem": _stemming_chain, "word": _word_chain}


class _WordCache(dict[str, str | None]):
    """Words → the chain's output for each (None for a stop word), run on a miss: looked up
    with `map(cache.__getitem__, words)`, a text's words cost no Python call but its new
    ones'."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.met: list[tuple[str, str | None]] | None = None  # see words_met

    def __missing__(self, word: str) -> str | None:
        # Requests share the cache: another thread may clear it at any moment, so what is
        # returned is the value computed here, never a second lookup.
        if len(self) > _WORD_CACHE_LIMIT:
            self.clear()
        text = next((t.text for t in _chain(self.kind)(word, tokenize=False)), None)
        if text is not None and self.kind == "stem" and acronym_term(word) is not None:
            text = _acronym(text)
        self[word] = text
        if self.met is not None:
            self.met.append((word, text))
        return text


_caches = {"stem": _WordCache("stem"), "word": _WordCache("word")}


def words_met() -> list[tuple[str, str | None]]:
    """The words the catalog analyzer analyzes until `forget_words_met`, with their terms, in
    order (a growing list): what another process learns (`learn_words`) instead of analyzing."""
    met: list[tuple[str, str | None]] = []
    _caches["stem"].met = met
    return met


def forget_words_met() -> None:
    _caches["stem"].met = None


def learn_words(analyzed: list[tuple[str, str | None]]) -> None:
    """Words another process analyzed with the catalog analyzer, into this one's cache."""
    _caches["stem"].update(analyzed)


_recent_words: tuple[tuple[str, list[str]], ...] = ()


def text_words(value: str) -> list[str]:
    """The words of a text, those of the last four texts read once: an index build reads a
    paper's text for its positions, its other fields, then the text for its vocabulary."""
    global _recent_words
    recent = _recent_words  # one read: another thread may replace it meanwhile
    for text, words in recent:
        if text is value:
            return words
    words = _TOKEN.findall(value)
    _recent_words = ((value, words), *recent[:3])
    return words


# A stored position is the word's place (renumbered over stop words, as StopFilter does) over
# STOP_BITS bits holding how many stop words stood just before it (at most MAX_STOPS): a
# typed phrase matches only where as many stop words part its words ("in-context learning"
# is not "in the context of learning"); one made of analyzed words matches across them.
STOP_BITS = 2
MAX_STOPS = (1 << STOP_BITS) - 1


def stored_position(place: int, stops: int) -> int:
    return place << STOP_BITS | min(stops, MAX_STOPS)


def word_place(position: int) -> int:
    """A stored position's place among the kept words."""
    return position >> STOP_BITS


class CachedAnalyzer(Tokenizer):
    """A filter chain whose filters all work word by word, run once per distinct word.

    Tokenizing and then looking each word up in a cache gives the chain's tokens at a
    fraction of the cost, positions stored as `stored_position` says: indexing and topic
    scoring analyze millions of tokens drawn from a small vocabulary.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CachedAnalyzer) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def normalize(self, word: str) -> str | None:
        """The chain's output for one word; None for a stop word."""
        return _caches[self.kind][word]

    def terms(self, value: str) -> tuple[str, ...]:
        """Just the token texts, stop words dropped: what topic scoring and queries need."""
        return tuple([text for text in map(_caches[self.kind].__getitem__, text_words(value))
                      if text is not None])

    def distinct(self, value: str) -> set[str]:
        """The text's distinct terms, stop words dropped: what the vocabulary counts."""
        found = set(map(_caches[self.kind].__getitem__, set(text_words(value))))
        found.discard(None)
        return found  # type: ignore[return-value]

    def spans(self, value: str, terms: set[str],
              words: re.Pattern[str] = _TOKEN) -> list[tuple[int, int]]:
        """Where the words that analyze to one of `terms` are in the text (start, end), as
        __call__(chars=True) would give them: what snippets mark. `words` may skip words
        that cannot match (word_starts.candidates); by default every word is analyzed."""
        normalize = _caches[self.kind].__getitem__
        found = []
        for match in words.finditer(value):
            text = normalize(match.group(0))
            if text in terms or (text.__class__ is AcronymTerm and text.marker in terms):
                found.append(match.span())
        return found

    def positions(self, value: str) -> dict[str, list[int]]:
        """Each term's positions, numbered as __call__ numbers them: what the index stores
        (an acronym's marker at its term's position)."""
        found: dict[str, list[int]] = {}
        place = -1  # the first kept word's place is its index, the next ones follow it
        stops = 0
        for text in map(_caches[self.kind].__getitem__, text_words(value)):
            if text is None:
                stops += 1
                continue
            place = stops if place < 0 else place + 1
            # stored_position, written out: this loop runs for every word indexed
            pos = place << STOP_BITS | (stops if stops < MAX_STOPS else MAX_STOPS)
            stops = 0
            held = found.get(text)
            if held is None:
                found[text] = [pos]
            else:
                held.append(pos)
            if text.__class__ is AcronymTerm:
                found.setdefault(text.marker, []).append(pos)  # type: ignore[attr-defined]
        return found

    def __call__(self, value: str, positions: bool = False, chars: bool = False,  # type: ignore[override]
                 keeporiginal: bool = False, removestops: bool = True, start_pos: int = 0,
                 start_char: int = 0, tokenize: bool = True, mode: str = "",
                 **kwargs: object) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        matches = ((value, 0, len(value)),) if not tokenize else (
            (m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(value))
        pos: int | None = None  # as StopFilter renumbers: kept words follow one another
        stops = 0
        for index, (word, start, end) in enumerate(matches):
            text = self.normalize(word)
            token.boost = 1.0
            if keeporiginal:
                token.original = word
            if chars:
                token.startchar = start_char + start
                token.endchar = start_char + end
            if text is None:  # a stop word: dropped, or kept marked when asked
                stops += 1
                if removestops:
                    continue
                token.text, token.stopped = word.lower(), True
                if positions:
                    token.pos = start_pos + index
            else:
                token.text, token.stopped = text, False
                pos = stored_position(
                    start_pos + index if pos is None else word_place(pos) + 1, stops)
                stops = 0
                if positions:
                    token.pos = pos
            yield token
            if mode == "index" and text.__class__ is AcronymTerm:
                token.text = text.marker  # type: ignore[union-attr]
                yield token


_chain_cache: dict[str, Analyzer] = {}


def _chain(kind: str) -> Analyzer:
    if kind not in _chain_cache:
        _chain_cache[kind] = _CHAINS[kind]()
    return _chain_cache[kind]


def catalog_analyzer() -> CachedAnalyzer:
    """Lowercase, fold accents and math symbols, unify spelling, drop a few stop words, fold
    inflections."""
    return CachedAnalyzer("stem")


def analyze(text: str) -> tuple[str, ...]:
    """The text's terms as the index holds them."""
    return catalog_analyzer().terms(text)


def word_analyzer() -> CachedAnalyzer:
    """Whole words as written (lowercased, accents folded): for prefixes and spelling."""
    return CachedAnalyzer("word")


class AnalyzedPositions(Positions):
    """Whoosh's Positions format, the same postings, computed without a Token per word when
    the field's analyzer is a CachedAnalyzer (analysis was a third of indexing, profiled)."""

    def word_values(self, value: str, analyzer: Analyzer,  # type: ignore[override]
                    **kwargs: object) -> Iterator[tuple[str, int, float, bytes]]:
        if not isinstance(analyzer, CachedAnalyzer):
            yield from super().word_values(value, analyzer, **kwargs)
            return
        boost = self.field_boost
        for text, positions in analyzer.positions(value).items():
            yield text, len(positions), len(positions) * boost, self.encode(positions)
