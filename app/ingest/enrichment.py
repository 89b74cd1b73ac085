"""What the catalog derives from the papers an ingest stores, as the loader asks for it
(`Enrichment`): their topics and keyphrases come from the topic model and the analyzer, which
are features above the loader, so the ingest's caller hands them in (app/enrich.ON_INGEST)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

from sqlmodel import Session

from app.models import Edition

Rows = Sequence[dict[str, object]]
Chunk = TypeVar("Chunk")


class Enrichment(Protocol):
    """Called by the loader in this order: topics as each chunk of new papers is normalized,
    word counts of the papers added and removed, then keyphrases once every file is read."""

    def score_topics(self, rows: Rows, venues: Sequence[Edition]) -> None:
        """Set each new paper row's `topic` and `topic_scores` (`venues`: each row's)."""

    def count_words(self, texts: Iterable[str]) -> Counter[str]:
        """The document frequencies of the texts' words."""

    def store_word_counts(self, session: Session, delta: Counter[str]) -> None:
        """Add the change of each word's document frequency to the statistics."""

    def leave_keyphrases(self, session: Session, adding: int) -> None:
        """Leave the keyphrases of the `adding` papers stored without them to derive later."""

    def keyphrased(self, session: Session, adding: int, chunks: Iterable[Chunk],
                   rows_of: Callable[[Chunk], Rows]) -> Iterator[Chunk]:
        """Each chunk, in order, with its rows' `keyphrases` set (after the word counts)."""
