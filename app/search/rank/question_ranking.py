"""How a question's or a description's papers are listed and ordered, top to bottom. What
the query asks (which words are function words, which parts are concepts) was read before
(question.py, query.py); the numbers are in weights.py.

1. **Each part's papers, and its weight** (`PartMatches`): a part (a word, a phrase, a synonym
   group) is held by the papers matching it (1.0), or by those holding only words of its
   family (`weights.family`); it weighs its IDF, `ln((N + 1) / (n + 0.5))`, where a question's
   phrase counts as many papers as say it in words (`said_as_words`).
2. **Listed** (`listing`): the papers (passing the inline filters, not excluded) holding at
   least `weights.bag_share` of the weight the best paper holds; with the sentence vectors,
   the `by_meaning.NEAR_PAPERS` closest in meaning follow, labelled.
3. **Ordered** (`ordered`): a question's papers holding every part first; within each group
   by `BM25F over the parts (ranking.match_scores) × share of the weight ** weights.coverage`,
   fused with the closeness in meaning (`by_meaning.fused`); each group's head re-ranked by
   how close the typed words stand (proximity.rerank). A description's papers are one group:
   of a sentence's many concepts, a paper holding every one often holds an incidental word
   ("introduce", "novel") where the paper described says it otherwise (docs/search.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np
from whoosh.query import Phrase, Query, Term
from whoosh.searching import Searcher

from app.search.query.parts import QueryParts
from app.search.query.question import Reading
from app.search.rank import by_meaning, weights

Mask = Callable[[np.ndarray], np.ndarray]  # the documents a search's filters let through
Ranked = list[tuple[int, float]]  # documents and their scores, best first
Rerank = Callable[[Ranked], Ranked]


def said_as_words(searcher: Searcher, query: Query) -> int:
    """About how many papers speak of a part in words: for each of its forms (a word, or a
    phrase by its rarest word), the papers holding it; the most of any form."""
    frequency = partial(searcher.doc_frequency, "text")
    return max((frequency(leaf.text) if isinstance(leaf, Term)
                else min(map(frequency, leaf.words), default=0)
                for leaf in ([query] if query.is_leaf() else query.leaves())
                if leaf.field() == "text" and isinstance(leaf, (Term, Phrase))), default=0)


@dataclass(frozen=True)
class PartMatches:
    """Which papers hold each of a query's parts, and what each part weighs: its IDF, from
    the number of papers holding it, so that a rare concept outweighs a common word. What is
    derived from `has` is computed once: a page asks it of every hit."""

    labels: list[str]  # the parts as typed
    held: np.ndarray  # float, parts × documents: 1 for the part itself, less for its family
    weights: np.ndarray  # per part

    @classmethod
    def of(cls, parts: list[tuple[str, Query]], matching: Callable[[Query], np.ndarray],
           total: int, words_held: Callable[[Query], int] | None = None,
           family: list[Query] | None = None) -> PartMatches:
        """`words_held`: about how many papers speak of a part in words (its commonest form,
        a phrase counted by its rarest word). A phrase ("small language models") weighs no
        more than that: few papers write the phrase, many more say the same thing in other
        words, so its own IDF would outweigh the concepts beside it. `family`: per part, the
        part or'ed with the words of its family (`expand.with_family`); a paper with only
        those ("transform" for "transformer") holds `weights.WEIGHTS.family` of the part, and
        lacks the part itself."""
        held = np.zeros((len(parts), total), dtype=np.float32)
        for row, (_, query) in enumerate(parts):
            if family is not None and family[row] is not query:
                held[row, matching(family[row])] = weights.WEIGHTS.family
            held[row, matching(query)] = 1.0
        papers = (held == 1.0).sum(axis=1)
        if words_held is not None:
            papers = np.maximum(papers, [words_held(query) for _, query in parts])
        idf = np.array([math.log((total + 1) / (n + 0.5)) for n in papers])
        return cls([label for label, _ in parts], held, idf)

    @cached_property
    def has(self) -> np.ndarray:
        """Which papers hold each part itself (bool, parts × documents)."""
        return self.held == 1.0

    @cached_property
    def count(self) -> np.ndarray:
        """How many of the parts each paper holds."""
        return self.has.sum(axis=0)

    @cached_property
    def complete(self) -> np.ndarray:
        """Which papers hold every part."""
        return self.has.all(axis=0)

    @cached_property
    def share(self) -> np.ndarray:
        """The share of the parts' weight each paper holds."""
        return self.weights @ self.held / (self.weights.sum() or 1.0)

    def missing(self, doc: int) -> list[str]:
        return [label for row, label in enumerate(self.labels) if not self.has[row, doc]]


def part_matches(searcher: Searcher, parts: QueryParts, matching: Callable[[Query], np.ndarray],
                 as_words: bool = False, family: list[Query] | None = None) -> PartMatches:
    """Which papers hold each part (or only words of its `family`); with `as_words` (a
    question's concepts), a phrase weighs no more than the papers saying it in words make it
    weigh."""
    return PartMatches.of(parts.words, matching, searcher.doc_count_all(),
                          partial(said_as_words, searcher) if as_words else None, family)


def required(parts: QueryParts, matching: Callable[[Query], np.ndarray],
             total: int) -> np.ndarray:
    """Which documents pass the parts' inline filters and are not excluded."""
    passing = np.ones(total, dtype=bool)
    for query in parts.filters:
        passing &= matching(query)
    if parts.excluded is not None:
        passing &= ~matching(parts.excluded)
    return passing


@dataclass(frozen=True)
class Listing:
    """A question's papers: what its parts weigh and who holds them, those listed (a mask),
    and, with the sentence vectors, those listed for their meaning and every paper's
    closeness to the query."""

    bag: PartMatches
    listed: np.ndarray
    near: np.ndarray | None
    closeness: by_meaning.Closeness | None
    joinable: np.ndarray | None = None  # those `near` is chosen from, unfiltered


def listing(bag: PartMatches, passing: np.ndarray, filtered: Mask,
            closeness: by_meaning.Closeness | None) -> Listing:
    """The papers holding at least `bag_share` of the weight the best papers hold (all of it
    when some hold every part), then the closest in meaning of the rest."""
    share = np.where(passing, bag.share, 0.0)
    listed = (share > 0) & (share >= weights.WEIGHTS.bag_share * share.max(initial=0.0))
    if closeness is None:
        return Listing(bag, listed, None, None)
    # The papers closest in meaning follow, labelled; none when no paper holds a word ("what
    # is zzqx qqzx"): the encoder places any text near some
    joinable = passing & ~listed & listed.any() & by_meaning.within_reach(closeness.of)
    near = by_meaning.near(closeness.of, filtered(joinable))
    return Listing(bag, listed | near, near, closeness, joinable)


def ordered(bag: PartMatches, closeness: by_meaning.Closeness | None, docs: np.ndarray,
            scores: np.ndarray | None, rerank: Rerank, head: int, limit: int,
            reading: Reading) -> list[tuple[int, float]]:
    """The best `limit` of the listed papers that the filters allow (`docs`): those with
    every part first where the `reading` says so (a question's), then by BM25F over the
    parts they share (`scores`, by document number: ranking.match_scores) times the share
    of the weight they hold, fused with their closeness in meaning at the reading's weight;
    each group's best `head` re-ranked by `rerank` (proximity.rerank: how close the typed
    words stand)."""
    score = (scores[docs] if scores is not None else np.zeros(len(docs))) * (
        bag.share[docs] ** weights.WEIGHTS.coverage)
    if closeness is not None:
        score = by_meaning.fused(score, closeness.of[docs], float(closeness.of.max()),
                                 reading.meaning_weight)
    first = bag.complete if reading.complete_first else np.zeros(len(bag.complete), bool)
    order = np.lexsort((docs, -score, ~first[docs]))[:max(limit, head)]
    best = [(int(docs[i]), float(score[i])) for i in order]
    leading = [hit for hit in best if first[hit[0]]]
    return (rerank(leading) + rerank(best[len(leading):]))[:limit]
