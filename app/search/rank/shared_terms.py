"""The field's terms a description lacks, borrowed from the papers closest to it in meaning.

A description in plain words ("guessing how far away things are from a single photo") holds
few of the terms that the papers on its idea write ("depth estimation", "monocular"), and its
everyday words are held by papers on something else. The encoder is unsure of such a query:
no paper lies closer than `weights.unsure_below` (by_meaning.Closeness). Its
`SHARING_PAPERS` closest papers (after its vector was moved toward them) mostly speak of the
idea, each in its own words; the concepts that `SHARED_BY` of them write (reasons.concepts:
phrases and acronyms) are the field's terms for it. The first page of the description's
ranking (`HEAD` papers) is then scored again: each paper's score over the best one's, plus
`weights.shared_terms` times the share of those concepts' weight that its title or abstract
holds. Only the order of the first page changes, never what is listed or counted; a
question names its concepts itself (measured: docs/search.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from whoosh.query import Or, Query, Term
from whoosh.searching import Searcher

from app.search.index.paper_ids import PaperIds
from app.search.query.clauses import GappedPhrase
from app.search.query.question import Reading
from app.search.rank import reasons, weights
from app.search.rank.by_meaning import Closeness, closest_papers
from app.search.rank.matches import Phrases, matching_docs
from app.search.rank.reasons import Concept

SHARING_PAPERS = 15  # the closest papers in meaning whose concepts are read
SHARED_BY = 3  # of them, how many write a concept for it to count
HEAD = 20  # the papers scored again: the first page, so that later pages follow on
SHOWN = 4  # the borrowed terms a page names (a researcher may search by them next)

# As question_ranking.Ranked and similar.Texts: importing either module here makes the app's
# import chain longer than tests/test_layout.py allows.
Ranked = list[tuple[int, float]]  # documents and their scores, best first
Texts = Callable[[list[str]], dict[str, str]]  # plain texts by paper ID


def _written(terms: tuple[str, ...]) -> Query:
    """A concept in a paper's title or abstract: its word, or its words as a phrase."""
    return Or([Term(field, terms[0]) if len(terms) == 1 else GappedPhrase(field, list(terms))
               for field in ("text", "headline")])


def raised(searcher: Searcher, best: Ranked, concepts: list[Concept],
           phrases: Phrases) -> Ranked:
    """The first `HEAD` of `best` scored again by the share of the `concepts`' weight each
    holds (beside their score over the best's), then the rest as they were."""
    head = best[:HEAD]
    total = sum(concept.weight for concept in concepts)
    if not head or total <= 0:
        return best
    docs = np.array([doc for doc, _ in head])
    held = np.zeros(len(head))
    for concept in concepts:
        held += concept.weight * matching_docs(searcher, _written(concept.terms), phrases)[docs]
    # Each score over the best's plus the share held, times the best's score again: the same
    # order, and scores on the scale of the papers that follow (a hit's `score` in the JSON).
    top = max(score for _, score in head) or 1.0
    share = top * weights.WEIGHTS.shared_terms / total
    rescored = [(doc, score + share * weight)
                for (doc, score), weight in zip(head, held, strict=True)]
    rescored.sort(key=lambda hit: (-hit[1], hit[0]))
    return rescored + best[HEAD:]


def borrowed(searcher: Searcher, ids: PaperIds, texts: Texts, closeness: Closeness | None,
             reading: Reading) -> list[Concept]:
    """The concepts that at least `SHARED_BY` of a description's closest papers write, where
    the encoder was unsure of it (its first page is `raised` by them); else none."""
    if closeness is None or not closeness.unsure or not reading.borrows_terms:
        return []
    nearest = [ids[int(doc)] for doc in closest_papers(closeness.of, SHARING_PAPERS)
               if closeness.of[doc] > 0]  # a deleted document has no vector
    plains = [plain for plain in texts(nearest).values() if plain]
    return reasons.concepts(searcher, plains, set(), least=SHARED_BY)


def shown(concepts: list[Concept]) -> list[str]:
    """What a page names of the borrowed concepts: the first `SHOWN` phrases that name
    something (reasons.py: not "neural networks"), the heaviest first. An acronym alone is
    left out: "MAP", "FAST" or "UD" says little to a reader new to the field."""
    return [concept.name for concept in concepts
            if concept.named and len(concept.terms) > 1][:SHOWN]
