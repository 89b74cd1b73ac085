"""One index generation as opened (by live.py): a Whoosh searcher per request thread, the facet
columns, paper IDs, vocabulary, completions, acronyms and paper vectors read beside it, and the
features' parts (what's new's edition terms, the map)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path

import numpy as np
from whoosh import index as whoosh_index
from whoosh.query import Term
from whoosh.searching import Searcher

from app.search.index.columns import FacetColumn
from app.search.index.paper_ids import PaperIds
from app.search.index.vectors import Model, read_model
from app.search.query.expand import Synonyms
from app.search.rank import bm25
from app.search.rank.by_meaning import SentenceVectors
from app.search.rank.matches import matching_docs
from app.search.words.acronyms import Meaning
from app.search.words.completions import Completions
from app.search.words.compounds import other_spelling
from app.search.words.vocabulary import Vocabulary

_openings = itertools.count()
TELLING_SHARE = 0.5


# An index generation as a server opens it (live.index_identity): its directory, when its
# version was written, and when damage was last marked in it (0.0: never).
Identity = tuple[str, float, float]


@dataclass
class OpenIndex:
    """One version of the index, its facet columns, and a searcher for each thread.

    Whoosh searchers are not safe to share between threads; opening one on a segment written
    with compound=False costs about a millisecond, so every request thread gets its own and
    no request waits for another's search.
    """

    index: whoosh_index.Index
    identity: Identity
    # What the generation holds beside Whoosh's files (generation.held()), as opened.
    ids: PaperIds  # paper ID per document number (Whoosh's stored fields unpickle a dict)
    columns: dict[str, FacetColumn]  # facet name → value per document number
    vocabulary: Vocabulary
    completions: Completions
    meanings: list[Meaning]  # acronyms learned from the catalog
    vectors: np.ndarray | None  # unit paper vectors by document number (vectors.py)
    meaning: SentenceVectors | None  # sentence vectors by document number (by_meaning.py)
    # What the features registered (registry.register), by name: each feature reads its own
    # (whats_new/edition_terms.opened_terms, map/layout.opened_layout).
    parts: dict[str, object]
    # The entries opened without: found damaged, made again alone (generation.damaged_parts).
    without: tuple[str, ...] = ()
    local: threading.local = field(default_factory=threading.local)
    # Which opening this is, never reused in the process: two openings of one generation (two
    # apps on one catalog, an app started again) share the identity, not what they hold open.
    opening: int = field(default_factory=lambda: next(_openings))
    synonyms: Synonyms = field(init=False)
    _telling: dict[tuple[tuple[str, ...], tuple[str, ...]], str | None] = field(
        default_factory=dict)

    def __post_init__(self) -> None:
        self.synonyms = replace(Synonyms.of(self.meanings), telling=self.telling_word,
                                spelling=partial(other_spelling,
                                                 written=self.vocabulary.words,
                                                 hyphenated=self.vocabulary.hyphenated))

    def telling_word(self, acronym: tuple[str, ...], long_form: tuple[str, ...]) -> str | None:
        """The long form's word that the fewest papers writing the acronym hold, when fewer
        than half of them do: there the acronym mostly means something else (IJCAI's
        keywords write DM for data mining; CF is collaborative filtering as often as
        catastrophic forgetting; "map" tells diffusion maps from the diffusion models that
        also write DM). None where most papers writing it mean this."""
        key = (acronym, long_form)
        if key not in self._telling:
            searcher = self.searcher
            writing = matching_docs(searcher, Term("text", acronym[0]))
            held = {term: int(np.count_nonzero(writing & matching_docs(
                searcher, Term("text", term)))) for term in long_form}
            word = min(long_form, key=lambda term: (held[term], searcher.doc_frequency(
                "text", term)))
            self._telling[key] = word if held[word] < TELLING_SHARE * np.count_nonzero(
                writing) else None
        return self._telling[key]

    @cached_property
    def with_vectors(self) -> np.ndarray:
        """The documents that have a vector (deleted ones have none): related papers' field."""
        return (np.flatnonzero(self.vectors.any(axis=1)) if self.vectors is not None
                else np.zeros(0, np.int64))

    @cached_property
    def vector_model(self) -> Model | None:
        """What projects a text beside the papers' vectors (pasted texts), where they exist."""
        return read_model(Path(self.identity[0])) if self.vectors is not None else None

    @property
    def searcher(self) -> Searcher:
        searcher = getattr(self.local, "searcher", None)
        if searcher is None:
            searcher = self.local.searcher = self.index.searcher(weighting=bm25.weighting())
        return searcher
