"""Papers like one paper (related papers) and like a reading list (recommendations).

Both score every paper by BM25F over posting arrays (`ranking.top_by_terms`) for weighted
terms drawn from the texts they start from, and name the terms a found paper shares with them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from whoosh.searching import Searcher

from app.search import ranking
from app.search.analysis import analyze, surface_forms
from app.search.columns import FacetColumn, FacetFilter
from app.search.ranking import Leaf, best_scores, bm25_sums, top_by_terms

RELATED_PAPERS = 5
KEY_TERMS = 20
SHARED_SHOWN = 6
LIST_TERMS = 40
# A term's weight in a list's profile grows with the square of the number of listed papers
# using it: what the papers have in common is the list's theme (measured: docs/search.md).
AGREEMENT_POWER = 2
# Words in more than this share of the papers rank recommendations (leaving them out of the
# profile cost P@10) but say nothing as the words a paper shares ("learning", "also").
COMMON_SHARE = 0.1

Texts = Callable[[list[str]], dict[str, str]]


@dataclass(frozen=True)
class RelatedPaper:
    id: str
    shared_terms: list[str]  # the key terms of the paper that this one shares


@dataclass(frozen=True)
class Recommendation:
    id: str
    score: float
    shares: list[str]  # the list's words this paper uses, the list's most typical first


def _meaningful(term: str) -> bool:
    # Numbers and one- or two-letter symbols are rare but say nothing about a paper ("10", "k").
    return len(term) > 2 and not term.isdigit()


def _shared(key_terms: list[str], surface: dict[str, str], text: str) -> list[str]:
    stems = set(analyze(text))
    shared = [surface.get(term, term) for term in key_terms if term in stems]
    return list(dict.fromkeys(shared))[:SHARED_SHOWN]


def text_key_terms(searcher: Searcher, text: str) -> list[tuple[str, float]]:
    """The 20 terms that most set a text apart from the catalog, with their weights (Whoosh's
    Bo1 model): what papers like the text are found by."""
    return [(term, weight) for term, weight
            in searcher.key_terms_from_text("text", text, numterms=40)
            if _meaningful(term)][:KEY_TERMS]


def related_papers(searcher: Searcher, ids: list[str], topics: np.ndarray | None,
                   paper_id: str, plain: str, texts: Texts, limit: int = RELATED_PAPERS,
                   vectors: np.ndarray | None = None,
                   with_vectors: np.ndarray | None = None) -> list[RelatedPaper]:
    """The papers most like one paper (by the key terms of its abstract, Whoosh's Bo1 model),
    those of its primary topic raised, each with the key terms it shares. With the papers'
    `vectors` (vectors.py, one row per document number) and the documents that have one
    (`with_vectors`), the score is blended with the cosine of their vectors."""
    docnum = searcher.document_number(id=paper_id)
    if docnum is None or not plain:
        return []
    key_terms = text_key_terms(searcher, plain)
    if not key_terms:
        return []
    own_topic = topics[docnum] if topics is not None else None
    same_topic = ranking.WEIGHTS.same_topic
    weight = ranking.WEIGHTS.related_vectors
    if (vectors is not None and with_vectors is not None and weight > 0
            and vectors[docnum].any()):
        _, scores = bm25_sums(searcher, [("text", term, w, None) for term, w in key_terms],
                              None)
        if topics is not None:  # papers of the same primary topic rise: a similar area
            scores = scores * np.where(topics == own_topic, same_topic, 1.0)
        blended = ((1 - weight) * scores / (scores.max() or 1)
                   + weight * (vectors @ vectors[docnum]))
        ranked = best_scores((with_vectors[with_vectors != docnum], blended), limit)
    else:
        hits = [(doc, score) for doc, score
                in top_by_terms(searcher, "text", key_terms, limit * 4 + 1) if doc != docnum]
        ranked = sorted(hits, key=lambda hit: -hit[1] * (
            same_topic if topics is not None and topics[hit[0]] == own_topic else 1.0))[:limit]
    found = [ids[doc] for doc, _ in ranked]
    other_texts = texts(found)
    surface = surface_forms(plain)
    terms = [term for term, _ in key_terms]
    return [RelatedPaper(other, _shared(terms, surface, other_texts.get(other, "")))
            for other in found]


def list_profile(searcher: Searcher, plains: list[str]) -> list[tuple[str, float, int]]:
    """The list's weighted terms: the mean of its papers' unit TF-IDF vectors, each term's
    weight raised by how many of the papers use it; the `LIST_TERMS` heaviest, each with its
    document frequency."""
    total = searcher.doc_count_all() or 1
    df: dict[str, int] = {}
    profile: Counter[str] = Counter()
    users: Counter[str] = Counter()
    for plain in plains:
        counts = Counter(term for term in analyze(plain) if _meaningful(term))
        for term in counts:
            if term not in df:
                df[term] = searcher.doc_frequency("text", term)
        vector = {term: (1 + math.log(n)) * math.log(total / (1 + df[term]))
                  for term, n in counts.items()}
        norm = math.sqrt(sum(x * x for x in vector.values())) or 1.0
        for term, x in vector.items():
            profile[term] += x / norm / len(plains)
        users.update(vector.keys())  # papers using each term, not their weights
    weighted = Counter({term: weight * users[term] ** AGREEMENT_POWER
                        for term, weight in profile.items() if weight > 0})
    return [(term, weight, df[term]) for term, weight in weighted.most_common(LIST_TERMS)]


def recommendations(searcher: Searcher, ids: list[str], columns: dict[str, FacetColumn],
                    listed: list[str], texts: Texts, filters: dict[str, object],
                    limit: int) -> list[Recommendation]:
    """The `limit` papers (of the facet values `filters` names) most like the listed ones
    taken together, never one of them; each with the list's words it shares. `texts` gives
    plain texts by paper ID."""
    listed_docs = [doc for doc in (searcher.document_number(id=pid) for pid in listed)
                   if doc is not None]
    plains = [plain for plain in texts(listed).values() if plain]
    if not listed_docs or not plains:
        return []
    profile = list_profile(searcher, plains)
    if not profile:
        return []
    leaves: list[Leaf] = [("text", term, weight, None) for term, weight, _ in profile]
    headline = ranking.WEIGHTS.headline_match
    leaves += [("headline", term, weight * headline, None) for term, weight, _ in profile]
    docs, scores = bm25_sums(searcher, leaves, None)
    docs = docs[~np.isin(docs, np.asarray(listed_docs, dtype=np.int64))]
    chosen = {name: value for name, value in filters.items() if value not in ("", None)}
    if chosen:
        docs = FacetFilter(columns, chosen, docs).allowed()
    best = best_scores((docs, scores), limit)
    found = [ids[doc] for doc, _ in best]
    other_texts = texts(found)
    surface: dict[str, str] = {}
    for plain in plains:
        for stem, word in surface_forms(plain).items():
            surface.setdefault(stem, word)
    common = COMMON_SHARE * searcher.doc_count_all()
    terms = [term for term, _, df in profile if df <= common]
    return [Recommendation(paper, round(score, 4),
                           _shared(terms, surface, other_texts.get(paper, "")))
            for paper, (_, score) in zip(found, best, strict=True)]
