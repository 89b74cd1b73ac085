"""What is derived from an abstract when it is stored: its topics (app/topics/topics.json), its
keyphrases (TF-IDF against the catalog's word statistics) and its part in those statistics.
Ingest enriches the papers it adds (`ON_INGEST`, handed to the loader: ingest/enrichment.py);
`catalog retopic` recomputes every paper's topics (and, when asked, keyphrases).
"""

from __future__ import annotations

import json
import multiprocessing
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult, Pool

from sqlalchemy import delete, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.db import (
    KEYPHRASES_PENDING_KEY,
    batched,
    bump_catalog_version,
    paper_total,
    pending_keyphrases,
    require_full_rebuild,
)
from app.faults import pause_point
from app.ingest.enrichment import Chunk, Rows
from app.keyphrases import KeyphraseExtractor, document_frequencies
from app.models import CatalogState, Edition, Paper, WordStat
from app.topics import PaperText, TopicScorer, default_scorer, reload_taxonomy

# A retopic that moves more papers to another primary topic than this rebuilds the indexes;
# fewer are updated in place, as an ingest's papers are (a rebuild of L takes ~2.5 minutes).
RETOPIC_UPDATE_LIMIT = 20_000


def topic_fields(scorer: TopicScorer,
                 papers: Sequence[PaperText]) -> list[dict[str, str]]:
    """Each paper's `topic` (the primary one) and `topic_scores` (up to three, as JSON), from
    its headline, plain text and series (its conference's slug)."""
    return [{"topic": topics[0][0], "topic_scores": json.dumps(topics)}
            for topics in scorer.assign_of(papers)]


def update_word_stats(session: Session, delta: Counter[str]) -> None:
    """Add each word's change of document frequency (`document_frequencies` of the added
    plain texts, less that of the removed ones) to the statistics."""
    changes = [{"word": word, "df": change} for word, change in delta.items() if change]
    if not changes:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    upsert = dialect.insert(WordStat).values(changes[:1])  # shape of the statement only
    statement = dialect.insert(WordStat).on_conflict_do_update(
        index_elements=["word"], set_={"df": WordStat.df + upsert.excluded.df})
    for batch in batched(changes, 5000):
        session.execute(statement, batch)
    session.execute(delete(WordStat).where(col(WordStat.df) <= 0))


def complete_keyphrases(session: Session) -> int:
    """Count the words of the papers an ingest left without keyphrases, and extract theirs as
    it would have (the same statistics and paper count); store both at once with a new
    catalog version, so that pages show all or none. How many papers got theirs (0 when none
    were left, or another process stored them first)."""
    documents = pending_keyphrases(session)
    if documents is None:
        return 0
    ids = list(session.exec(select(Paper.id).where(Paper.keyphrases == "")))
    words = document_frequencies(text for batch in batched(ids, 2000) for text in session.exec(
        select(Paper.plain).where(col(Paper.id).in_(batch))))
    word_df = Counter(dict(session.exec(select(WordStat.word, WordStat.df)).all()))
    word_df.update(words)
    extractor = KeyphraseExtractor(+word_df, documents)
    texts = (list(session.exec(select(Paper.id, Paper.plain, Paper.title)
                               .where(col(Paper.id).in_(batch))))
             for batch in batched(ids, 2000))
    chunks = ([{"id": pid, "plain": plain, "title": title} for pid, plain, title in chunk]
              for chunk in texts)
    rows = [{"id": row["id"], "keyphrases": row["keyphrases"]}
            for chunk in _extracted(chunks, extractor) for row in chunk]
    pause_point("keyphrases-extracted")  # crash tests: extracted, none stored
    claimed = session.execute(delete(CatalogState).where(
        col(CatalogState.key) == KEYPHRASES_PENDING_KEY,
        col(CatalogState.value) == str(documents)))
    if not claimed.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        return 0
    update_word_stats(session, words)
    for batch in batched(rows, 2000):
        session.execute(update(Paper), batch)
    bump_catalog_version(session)
    session.commit()
    return len(rows)


def _extracted(chunks: Iterable[Rows], extractor: KeyphraseExtractor) -> Iterator[Rows]:
    """The chunks with their keyphrases, by two processes where this one may start another
    (a server keeper's update runs in a daemon process, which may not)."""
    if multiprocessing.current_process().daemon:
        for chunk in chunks:
            add_keyphrases(chunk, extractor)
            yield chunk
        return
    with keyphrase_helper(extractor) as helper:
        yield from with_keyphrases(chunks, lambda chunk: chunk, extractor, helper)


def add_keyphrases(rows: Sequence[dict[str, object]], extractor: KeyphraseExtractor) -> None:
    """Set each new paper row's `keyphrases`."""
    for row in rows:
        row["keyphrases"] = "\n".join(extractor.extract(str(row["plain"]),
                                                        title=str(row["title"])))


def with_keyphrases(chunks: Iterable[Chunk], rows_of: Callable[[Chunk], Rows],
                    extractor: KeyphraseExtractor, helper: Pool) -> Iterator[Chunk]:
    """Each chunk, in order, with its new paper rows' `keyphrases` set: the first half of
    each by the `helper` (`keyphrase_helper`), which works on a chunk's while the caller
    stores the one before."""
    before: tuple[Chunk, AsyncResult[list[str]]] | None = None
    for chunk in chunks:
        rows = rows_of(chunk)
        half = len(rows) // 2
        theirs = helper.apply_async(_keyphrases, ([(str(row["plain"]), str(row["title"]))
                                                   for row in rows[:half]],))
        if before is not None:
            yield _joined(*before, rows_of)
        add_keyphrases(rows[half:], extractor)
        before = chunk, theirs
    if before is not None:
        yield _joined(*before, rows_of)


def _joined(chunk: Chunk, theirs: AsyncResult[list[str]],
            rows_of: Callable[[Chunk], Rows]) -> Chunk:
    for row, keyphrases in zip(rows_of(chunk), theirs.get(), strict=False):  # the first half
        row["keyphrases"] = keyphrases
    return chunk


@contextmanager
def keyphrase_helper(extractor: KeyphraseExtractor) -> Iterator[Pool]:
    """A second process extracting keyphrases with `extractor` (inherited, not copied: it is
    forked), so that extracting them is not one process's alone while the index's build
    writes (they were two thirds of an ingest's storing at L)."""
    with multiprocessing.get_context("fork").Pool(
            1, initializer=_use_extractor, initargs=(extractor,)) as pool:
        yield pool


_extractor: KeyphraseExtractor | None = None  # the helper's, set as it starts


def _use_extractor(extractor: KeyphraseExtractor) -> None:
    global _extractor
    _extractor = extractor


def _keyphrases(texts: list[tuple[str, str]]) -> list[str]:
    assert _extractor is not None
    return ["\n".join(_extractor.extract(plain, title=title)) for plain, title in texts]


class IngestEnrichment:
    """What an ingest derives from the papers it stores (ingest/enrichment.Enrichment)."""

    def score_topics(self, rows: Rows, venues: Sequence[Edition]) -> None:
        topics = topic_fields(default_scorer(), [
            (str(row["headline"]), str(row["plain"]), venue.series_slug)
            for row, venue in zip(rows, venues, strict=True)])
        for row, fields in zip(rows, topics, strict=True):
            row.update(fields)

    def count_words(self, texts: Iterable[str]) -> Counter[str]:
        return document_frequencies(texts)

    def store_word_counts(self, session: Session, delta: Counter[str]) -> None:
        update_word_stats(session, delta)

    def leave_keyphrases(self, session: Session, adding: int) -> None:
        """Leave the keyphrases of the papers stored without them (`keyphrases` ""), and
        their part in the word statistics, to `complete_keyphrases`, against the paper count
        `keyphrased` would read now."""
        documents = paper_total(session) + adding
        session.merge(CatalogState(key=KEYPHRASES_PENDING_KEY, value=str(documents)))

    def keyphrased(self, session: Session, adding: int, chunks: Iterable[Chunk],
                   rows_of: Callable[[Chunk], Rows]) -> Iterator[Chunk]:
        # The extractor for the `adding` new papers, after `store_word_counts` counted them in.
        word_df = dict(session.exec(select(WordStat.word, WordStat.df)).all())
        extractor = KeyphraseExtractor(word_df, paper_total(session) + adding)
        with keyphrase_helper(extractor) as helper:
            yield from with_keyphrases(chunks, rows_of, extractor, helper)


ON_INGEST = IngestEnrichment()


def rebuild_word_stats(session: Session) -> None:
    df = document_frequencies(session.exec(select(Paper.plain)))
    session.execute(delete(WordStat))
    for batch in batched([{"word": word, "df": n} for word, n in df.items()], 5000):
        session.execute(insert(WordStat), batch)


@dataclass(frozen=True)
class Retopic:
    papers: int  # recomputed
    moved: int  # papers whose primary topic changed: the index's only part in it


def retopic_all(session: Session, keyphrases: bool = False) -> Retopic:
    """Recompute every paper's topics (after topics.json or the topic model changed) and,
    with `keyphrases`, the word statistics and every keyphrase (their IDF drifts as ingests
    add papers). A new catalog version logs the papers whose primary topic moved, so indexes
    update just those; past RETOPIC_UPDATE_LIMIT, they rebuild."""
    count, moved = _enrich(session, keyphrases)
    if len(moved) > RETOPIC_UPDATE_LIMIT:
        require_full_rebuild(session)
    else:
        # A new version even when none moved: pages show secondary topics and scores too.
        bump_catalog_version(session, moved)
    session.commit()
    return Retopic(count, len(moved))


def enrich_all(session: Session) -> int:
    """Recompute the word statistics and every paper's topics and keyphrases with the
    taxonomy, analyzer and extractor of this release; the caller commits."""
    return _enrich(session, True)[0]


def _enrich(session: Session, keyphrases: bool) -> tuple[int, list[str]]:
    """Recompute every paper's topics (and keyphrases): how many papers, and the IDs of those
    whose primary topic moved."""
    reload_taxonomy()
    scorer = default_scorer()
    extract = None
    if keyphrases:
        rebuild_word_stats(session)
        # Every keyphrase is made here: none is left for `complete_keyphrases`.
        session.execute(delete(CatalogState).where(
            col(CatalogState.key) == KEYPHRASES_PENDING_KEY))
        word_df = dict(session.exec(select(WordStat.word, WordStat.df)).all())
        extract = KeyphraseExtractor(word_df, paper_total(session)).extract
    series = {venue.slug: venue.series_slug for venue in session.exec(select(Edition))}
    # Only the columns read and written: a migration runs this against the table as it was
    # then, without the columns later releases add.
    rows = session.exec(select(Paper.id, Paper.headline, Paper.plain, Paper.title,
                               Paper.edition_slug, Paper.topic)).all()
    changes: list[dict[str, object]] = []
    moved: list[str] = []
    for chunk in batched(rows, 2000):  # the topic models read a chunk at a time
        topics = topic_fields(scorer, [(headline, plain, series[edition_slug])
                                       for _, headline, plain, _, edition_slug, _ in chunk])
        for (pid, _, plain, title, _, old), change in zip(chunk, topics, strict=True):
            if extract is not None:
                change["keyphrases"] = "\n".join(extract(plain, title=title))
            if change["topic"] != old:
                moved.append(pid)
            changes.append({"id": pid, **change})
    for batch in batched(changes, 2000):
        session.execute(update(Paper), batch)
    count = len(changes)
    session.flush()
    return count, moved
