"""Papers like one paper (related papers), like a pasted text, and like a reading list
(recommendations).

Each scores every paper by BM25F over posting arrays (`bm25.bm25_sums`) for weighted terms
drawn from the texts it starts from, blended, where the index has paper vectors (vectors.py),
with the cosine of their vectors; and names the concepts a found paper shares with them
(reasons.py).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from whoosh.searching import Searcher

from app.search.index.columns import FacetColumn, as_mask
from app.search.index.paper_ids import PaperIds
from app.search.index.vectors import Model
from app.search.query.clauses import GappedPhrase
from app.search.rank import reasons, weights
from app.search.rank.bm25 import Leaf, best_scores, bm25_sums
from app.search.rank.by_meaning import SentenceVectors
from app.search.rank.filters import FacetFilter
from app.search.rank.matches import matching_docs
from app.search.rank.reasons import Concept, Frequencies
from app.search.words.analysis import analyze

RELATED_PAPERS = 5
KEY_TERMS = 40  # of a text: 20 and 40 measured, 40 better (docs/search.md)
LIST_TERMS = 40
# A term's weight in a list's profile grows with the square of the number of listed papers
# using it: what the papers have in common is the list's theme (measured: docs/search.md).
AGREEMENT_POWER = 2
LIST_PHRASES = 5  # the heaviest phrases that two listed papers or more share rank too
FEEDBACK_PAPERS = 5  # the papers found first whose mean sentence vector counts too

Texts = Callable[[list[str]], dict[str, str]]


@dataclass(frozen=True)
class RelatedPaper:
    id: str
    shared_terms: list[str]  # the concepts of the paper that this one shares


@dataclass(frozen=True)
class Recommendation:
    id: str
    score: float
    shares: list[str]  # the list's concepts this paper uses, the list's most typical first


@dataclass(frozen=True)
class Vectors:
    """The paper vectors of an index (vectors.py), one row per document number, and the
    documents that have one (deleted ones have none); and the papers' sentence vectors by
    document number where the index has them (by_meaning.py: zeros for a paper without)."""

    rows: np.ndarray
    documents: np.ndarray
    meaning: SentenceVectors | None = None

    @classmethod
    def of(cls, rows: np.ndarray | None, documents: np.ndarray | None,
           meaning: SentenceVectors | None = None) -> Vectors | None:
        return None if rows is None or documents is None else cls(rows, documents, meaning)

    def meaning_of(self, docs: list[int]) -> np.ndarray | None:
        """The unit mean of these documents' sentence vectors; None without any."""
        return None if self.meaning is None else _unit_mean(self.meaning[docs])


def _unit_mean(rows: np.ndarray) -> np.ndarray | None:
    mean = rows.mean(axis=0)
    norm = np.linalg.norm(mean)
    return mean / norm if norm > 0 else None


def _meaningful(term: str) -> bool:
    # Numbers and one- or two-letter symbols are rare but say nothing about a paper ("10", "k").
    return len(term) > 2 and not term.isdigit()


def text_key_terms(searcher: Searcher, text: str) -> list[tuple[str, float]]:
    """The `KEY_TERMS` terms that most set a text apart from the catalog, with their weights
    (Whoosh's Bo1 model): what papers like the text are found by."""
    return [(term, weight) for term, weight
            in searcher.key_terms_from_text("text", text, numterms=2 * KEY_TERMS)
            if _meaningful(term)][:KEY_TERMS]


def _scores(searcher: Searcher, leaves: list[Leaf], boost: np.ndarray | None,
            vectors: Vectors | None, like: np.ndarray | None, weight: float,
            close: np.ndarray | None = None, meaning_weight: float = 0.0,
            feedback: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The documents found and every document's score: BM25F of the leaves (times `boost`
    by document), blended with the cosine of the documents' vectors with `like` where given,
    `(1 - weight) × score / best + weight × cosine`, over every document with a vector; plus
    `meaning_weight` × the cosine of their sentence vectors with `close` where given, and
    `feedback` × their cosine with the mean of the best `FEEDBACK_PAPERS` so far."""
    docs, scores = bm25_sums(searcher, leaves, None)
    if boost is not None:
        scores = scores * boost
    if vectors is None or like is None or weight <= 0 or not like.any():
        return docs, scores
    scores = (1 - weight) * scores / (scores.max() or 1) + weight * (vectors.rows @ like)
    if vectors.meaning is None or close is None or meaning_weight <= 0:
        return vectors.documents, scores
    scores += meaning_weight * (vectors.meaning @ close)
    if feedback > 0:
        # A round of feedback: the papers found closest say more of what is alike than the
        # given one alone (measured: docs/search.md).
        docs = vectors.documents
        found = docs[np.argpartition(-scores[docs], FEEDBACK_PAPERS)[:FEEDBACK_PAPERS]
                     if len(docs) > FEEDBACK_PAPERS else slice(None)]
        alike = _unit_mean(vectors.meaning[found])
        if alike is not None:
            scores += feedback * (vectors.meaning @ alike)
    return vectors.documents, scores


def _without(docs: np.ndarray, excluded: list[int]) -> np.ndarray:
    return docs[~np.isin(docs, np.asarray(excluded, dtype=np.int64))]


MAX_LESS = 100  # papers marked "less like this" in one request


@dataclass(frozen=True)
class Choice:
    """Which papers like the given ones a reader asked for: of a series and a year (facet
    values; "" or None for any), the most alike first or the newest first (of the most
    alike), and none like those marked "less like this" (a reading list's)."""

    series: str = ""
    year: int | None = None
    newest: bool = False
    less: tuple[str, ...] = ()

    def allowed(self, searcher: Searcher, columns: dict[str, FacetColumn],
                docs: np.ndarray) -> np.ndarray:
        """The documents of `docs` in the chosen series and year."""
        chosen = {name: value for name, value in (("series", self.series), ("year", self.year))
                  if value not in ("", None)}
        if not chosen:
            return docs
        return np.flatnonzero(FacetFilter(columns, chosen, as_mask(
            docs, searcher.doc_count_all())).allowed())

    def ordered(self, columns: dict[str, FacetColumn],
                best: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The most alike documents, as found or newest first (year codes sort as years)."""
        if not self.newest or "year" not in columns:
            return best
        years = columns["year"].codes
        return sorted(best, key=lambda found: (-int(years[found[0]]), -found[1]))


ANY = Choice()  # every paper like the given ones, the most alike first


def _likeness(vectors: Vectors, docs: list[int]) -> np.ndarray:
    """Every document's closeness to the closest of these: the cosine of their sentence
    vectors where the index has them, else of their vectors (vectors.py)."""
    rows = vectors.meaning if vectors.meaning is not None else vectors.rows
    return (rows @ rows[docs].T).max(axis=1)


def _lowering(meaning: float, feedback: float) -> float:
    """How much a paper marked "less like this" lowers the others, times their closeness to
    it: as much as closeness counts in their score (`meaning` + `feedback`), `less_like`
    being set for one paper's (measured: docs/search.md)."""
    one_paper = weights.WEIGHTS.related_meaning + weights.WEIGHTS.feedback_meaning
    return weights.WEIGHTS.less_like * ((meaning + feedback) / one_paper if one_paper else 1.0)


def _chosen(searcher: Searcher, columns: dict[str, FacetColumn], vectors: Vectors | None,
            choice: Choice, given: list[int], scored: tuple[np.ndarray, np.ndarray],
            limit: int, lowering: float) -> list[tuple[int, float]]:
    """The `limit` best of the scored documents as `choice` asks, never one of the `given`
    ones (those the papers are like) nor one marked "less like this", and those like the
    marked ones lowered by `lowering` × their closeness to the closest marked one."""
    docs, scores = scored
    less = _documents(searcher, choice.less)
    if vectors is not None and less:
        scores = scores - lowering * _likeness(vectors, less)
    docs = choice.allowed(searcher, columns, _without(docs, given + less))
    return choice.ordered(columns, best_scores((docs, scores), limit))


def _documents(searcher: Searcher, paper_ids: Iterable[str]) -> list[int]:
    return [doc for doc in (searcher.document_number(id=pid) for pid in paper_ids)
            if doc is not None]


def like_text(searcher: Searcher, key_terms: list[tuple[str, float]], text: str, limit: int,
              vectors: Vectors | None = None,
              model: Model | None = None) -> list[tuple[int, float]]:
    """The `limit` papers most like a text (a pasted abstract), best first, with their
    scores: BM25F of its key terms (`text_key_terms`), blended with the cosine of the text's
    vector on the papers' (`model`) where the index has them."""
    like = model.project(analyze(text)) if vectors is not None and model is not None else None
    leaves: list[Leaf] = [("text", term, weight, None) for term, weight in key_terms]
    return best_scores(_scores(searcher, leaves, None, vectors, like,
                               weights.WEIGHTS.related_vectors), limit)


def related_papers(searcher: Searcher, ids: PaperIds, columns: dict[str, FacetColumn],
                   paper_id: str, plain: str, texts: Texts, limit: int = RELATED_PAPERS,
                   vectors: Vectors | None = None,
                   choice: Choice = ANY) -> list[RelatedPaper]:
    """The papers most like one paper (by the key terms of its abstract, Whoosh's Bo1 model),
    those of its primary topic raised, blended with the cosine of their `vectors` where
    given, as `choice` asks; each with the concepts of the paper it shares."""
    docnum = searcher.document_number(id=paper_id)
    if docnum is None or not plain:
        return []
    key_terms = text_key_terms(searcher, plain)
    if not key_terms:
        return []
    topics = columns["topic"].codes if "topic" in columns else None
    boost = (None if topics is None  # papers of the same primary topic rise: a similar area
             else np.where(topics == topics[docnum], weights.WEIGHTS.same_topic, 1.0))
    like = vectors.rows[docnum] if vectors is not None else None
    close = vectors.meaning_of([docnum]) if vectors is not None else None
    docs, scores = _scores(searcher, [("text", term, w, None) for term, w in key_terms],
                           boost, vectors, like, weights.WEIGHTS.related_vectors, close,
                           weights.WEIGHTS.related_meaning, weights.WEIGHTS.feedback_meaning)
    found = [ids[doc] for doc, _ in _chosen(searcher, columns, vectors, choice, [docnum],
                                             (docs, scores), limit,
                                             _lowering(weights.WEIGHTS.related_meaning,
                                                       weights.WEIGHTS.feedback_meaning))]
    other_texts = texts(found)
    ordered = reasons.concepts(searcher, [plain], {term for term, _ in key_terms})
    return [RelatedPaper(other, reasons.shared(ordered, other_texts.get(other, "")))
            for other in found]


def list_profile(searcher: Searcher, plains: list[str],
                 df: Frequencies | None = None) -> list[tuple[str, float, int]]:
    """The list's weighted terms: the mean of its papers' unit TF-IDF vectors, each term's
    weight raised by how many of the papers use it; the `LIST_TERMS` heaviest, each with its
    document frequency."""
    total = searcher.doc_count_all() or 1
    df = Frequencies(searcher) if df is None else df
    profile: Counter[str] = Counter()
    users: Counter[str] = Counter()
    for plain in plains:
        counts = Counter(term for term in analyze(plain) if _meaningful(term))
        vector = {term: (1 + math.log(n)) * math.log(total / (1 + df[term]))
                  for term, n in counts.items()}
        norm = math.sqrt(sum(x * x for x in vector.values())) or 1.0
        for term, x in vector.items():
            profile[term] += x / norm / len(plains)
        users.update(vector.keys())  # papers using each term, not their weights
    weighted = Counter({term: weight * users[term] ** AGREEMENT_POWER
                        for term, weight in profile.items() if weight > 0})
    return [(term, weight, df[term]) for term, weight in weighted.most_common(LIST_TERMS)]


def _list_leaves(searcher: Searcher, profile: list[tuple[str, float, int]],
                 ordered: list[Concept]) -> list[Leaf]:
    """The profile's terms, and the words of the phrases that several of the papers share
    where the phrase stands, each at `list_phrases` times the profile's mean weight: over
    the text, and over the headline at the search's headline weight."""
    mean = sum(weight for _, weight, _ in profile) / len(profile)
    phrases = [c.terms for c in ordered if len(c.terms) > 1 and c.users > 1][:LIST_PHRASES]
    leaves: list[Leaf] = []
    for field, boost in (("text", 1.0), ("headline", weights.WEIGHTS.headline_match)):
        leaves += [(field, term, weight * boost, None) for term, weight, _ in profile]
        weight = weights.WEIGHTS.list_phrases * mean * boost
        for terms in phrases:
            where = matching_docs(searcher, GappedPhrase(field, list(terms)))
            leaves += [(field, term, weight, where) for term in terms]
    return leaves


def recommendations(searcher: Searcher, ids: PaperIds, columns: dict[str, FacetColumn],
                    listed: list[str], texts: Texts, limit: int,
                    vectors: Vectors | None = None,
                    choice: Choice = ANY) -> list[Recommendation]:
    """The `limit` papers most like the listed ones taken together, as `choice` asks, never
    one of them nor one marked "less like this", blended with the cosine of the papers'
    `vectors` with their mean where given; each with the list's concepts it shares. `texts`
    gives plain texts by paper ID."""
    listed_docs = _documents(searcher, listed)
    plains = [plain for plain in texts(listed).values() if plain]
    if not listed_docs or not plains:
        return []
    df = Frequencies(searcher)
    profile = list_profile(searcher, plains, df)
    if not profile:
        return []
    ordered = reasons.concepts(searcher, plains, {term for term, _, _ in profile},
                               AGREEMENT_POWER, df)
    like = close = None
    if vectors is not None:
        like, close = _unit_mean(vectors.rows[listed_docs]), vectors.meaning_of(listed_docs)
    # A list of one paper is its related papers' question; of several, the profile of the
    # terms they share already says most of what they have in common.
    meaning, feedback = ((weights.WEIGHTS.list_meaning, 0.0) if len(listed_docs) > 1 else
                         (weights.WEIGHTS.related_meaning, weights.WEIGHTS.feedback_meaning))
    docs, scores = _scores(searcher, _list_leaves(searcher, profile, ordered), None, vectors,
                           like, weights.WEIGHTS.list_vectors, close, meaning, feedback)
    best = _chosen(searcher, columns, vectors, choice, listed_docs, (docs, scores), limit,
                   _lowering(meaning, feedback))
    found = [ids[doc] for doc, _ in best]
    other_texts = texts(found)
    return [Recommendation(paper, round(score, 4),
                           reasons.shared(ordered, other_texts.get(paper, "")))
            for paper, (_, score) in zip(found, best, strict=True)]
