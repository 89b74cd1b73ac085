"""One index generation as opened (by live.py): a Whoosh searcher per request thread, the facet
columns, paper IDs, vocabulary, completions, acronyms, edition terms, paper vectors and map
read beside it."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from whoosh import index as whoosh_index
from whoosh.searching import Searcher

from app.search import bm25
from app.search.acronyms import Meaning
from app.search.columns import FacetColumn
from app.search.completions import Completions
from app.search.expand import Synonyms
from app.search.paper_ids import PaperIds
from app.search.vectors import Model, read_model
from app.search.vocabulary import Vocabulary
from app.whats_new.edition_terms import EditionTerms

_openings = itertools.count()


@dataclass
class OpenIndex:
    """One version of the index, its facet columns, and a searcher for each thread.

    Whoosh searchers are not safe to share between threads; opening one on a segment written
    with compound=False costs about a millisecond, so every request thread gets its own and
    no request waits for another's search.
    """

    index: whoosh_index.Index
    identity: tuple[str, float]
    # What the generation holds beside Whoosh's files (generation.HELD), as opened.
    ids: PaperIds  # paper ID per document number (Whoosh's stored fields unpickle a dict)
    columns: dict[str, FacetColumn]  # facet name → value per document number
    vocabulary: Vocabulary
    completions: Completions
    meanings: list[Meaning]  # acronyms learned from the catalog
    edition_terms: EditionTerms
    vectors: np.ndarray | None  # unit paper vectors by document number (vectors.py)
    positions: np.ndarray | None  # places on the map, by document number (layout.py)
    local: threading.local = field(default_factory=threading.local)
    # Which opening this is, never reused in the process: two openings of one generation (two
    # apps on one catalog, an app started again) share the identity, not what they hold open.
    opening: int = field(default_factory=lambda: next(_openings))
    synonyms: Synonyms = field(init=False)

    def __post_init__(self) -> None:
        self.synonyms = Synonyms.of(self.meanings)

    @cached_property
    def with_vectors(self) -> np.ndarray:
        """The documents that have a vector (deleted ones have none): related papers' field."""
        return (np.flatnonzero(self.vectors.any(axis=1)) if self.vectors is not None
                else np.zeros(0, np.int64))

    @cached_property
    def vector_model(self) -> Model | None:
        """What projects a text beside the papers' vectors (pasted texts), where they exist."""
        return read_model(Path(self.identity[0])) if self.vectors is not None else None

    @cached_property
    def live(self) -> np.ndarray:
        """The documents that have a place on the map (deleted ones have none)."""
        return ~np.isnan(self.positions[:, 0]) if self.positions is not None else np.zeros(0, bool)

    @property
    def searcher(self) -> Searcher:
        searcher = getattr(self.local, "searcher", None)
        if searcher is None:
            searcher = self.local.searcher = self.index.searcher(weighting=bm25.weighting())
        return searcher
