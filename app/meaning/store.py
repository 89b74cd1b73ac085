"""The papers' sentence vectors in the catalog database (the `paper_vector` table): what a
paper's vector encodes, which papers have none that is current, and the vectors read back,
one paper's or every paper's at once.

A vector is float16, little-endian (768 bytes): search ranks by cosines of unit vectors,
which float16 keeps to about 1e-3, at half the size of float32. Each row carries the digest
of the model and the exact text encoded, so a paper whose title or abstract changed, or a
change of the model or of how many word pieces are read, makes the vector missing again.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Protocol

import numpy as np
from sqlalchemy import delete, func, insert, select
from sqlmodel import Session, col

from app.db import batched
from app.meaning.encoder import DIMENSIONS, NAME
from app.models import Paper, PaperVector

# A paper's text is encoded up to this many word pieces ([CLS] and [SEP] included): issue 59
# measured title and abstract at 128 (the model was trained on texts of at most 128).
MAX_TOKENS = 128
VECTOR_DTYPE = np.dtype("<f2")
VECTOR_BYTES = DIMENSIONS * VECTOR_DTYPE.itemsize
# Rows of the scan for missing vectors fetched at a time: the texts of 88k papers are
# 100 MB, which the scan never holds at once.
SCAN_ROWS = 2_000
# Papers per statement that names them (a statement's parameters are bounded, app.db.batched).
IDS_PER_STATEMENT = 500
log = logging.getLogger("uvicorn.error.meaning")


class Texted(Protocol):
    """A Paper, or a row of its title and plain text."""

    @property
    def title(self) -> str: ...

    @property
    def plain(self) -> str: ...


def paper_text(paper: Texted) -> str:
    """What a paper's vector encodes: its title, then its abstract as plain text ("Title.
    Abstract", as issue 59 measured it); the abstract alone when the source has no title."""
    title = paper.title.strip()
    if not title:
        return paper.plain
    return f"{title} {paper.plain}" if title[-1] in ".?!" else f"{title}. {paper.plain}"


def text_digest(encoded: str) -> str:
    """A short hash of the model, the word pieces it reads and the text it encodes."""
    return hashlib.blake2b(f"{NAME}\n{MAX_TOKENS}\n{encoded}".encode(),
                           digest_size=8).hexdigest()


def sound(blob: bytes) -> bool:
    """Whether a stored vector is one: 384 finite numbers. A damaged row (cut short, or bits
    turned into NaN) is no vector: one NaN would make every query's closest cosine NaN."""
    return len(blob) == VECTOR_BYTES and bool(np.isfinite(np.frombuffer(blob, VECTOR_DTYPE)).all())


def missing_ids(session: Session) -> list[str]:
    """The papers with no vector, one of a text other than theirs now, or a damaged one, by
    id: one pass over the papers' texts."""
    rows = session.execute(
        select(Paper.id, Paper.title, Paper.plain, PaperVector.digest, PaperVector.vector)
        .outerjoin(PaperVector, col(PaperVector.paper_id) == Paper.id)
        .order_by(Paper.id).execution_options(yield_per=SCAN_ROWS))
    return [row.id for row in rows
            if row.digest != text_digest(paper_text(row)) or not sound(row.vector)]


def texts_of(session: Session, ids: list[str]) -> dict[str, str]:
    """The text each of these papers encodes (papers removed meanwhile are left out)."""
    found = {}
    for batch in batched(ids, IDS_PER_STATEMENT):
        found.update((row.id, paper_text(row)) for row in session.execute(
            select(Paper.id, Paper.title, Paper.plain).where(col(Paper.id).in_(batch))))
    return found


def store_vectors(session: Session, texts: dict[str, str], vectors: np.ndarray) -> None:
    """Keep each paper's vector (the rows of `vectors`, in the order of `texts`) with its
    text's digest, in place of the one it had; the caller commits."""
    ids = list(texts)
    for batch in batched(ids, IDS_PER_STATEMENT):
        session.execute(delete(PaperVector).where(col(PaperVector.paper_id).in_(batch)))
    blobs = vectors.astype(VECTOR_DTYPE)
    session.execute(insert(PaperVector), [
        {"paper_id": paper_id, "digest": text_digest(texts[paper_id]),
         "vector": blobs[at].tobytes()} for at, paper_id in enumerate(ids)])


def drop_orphans(session: Session) -> int:
    """Delete the vectors of papers no longer in the catalog; how many. The caller commits."""
    return session.execute(delete(PaperVector).where(~select(Paper.id).where(
        col(Paper.id) == PaperVector.paper_id).exists())).rowcount


def counts(session: Session) -> tuple[int, int]:
    """(papers with a vector, papers): for /healthz, in two counts; a vector cut short is
    none, so a server's keeper encodes the paper again (NaNs in one are seen when the
    vectors are laid out: all_vectors). A paper whose text
    changed keeps its older vector, and its count, until the encoding job replaces it
    (telling it apart takes a pass over every text: missing_ids)."""
    with_vectors = session.execute(select(func.count()).select_from(PaperVector).join(
        Paper, col(Paper.id) == PaperVector.paper_id).where(
        func.length(PaperVector.vector) == VECTOR_BYTES)).scalar_one()
    return with_vectors, session.execute(select(func.count()).select_from(Paper)).scalar_one()


def vectors_of(session: Session, ids: list[str]) -> dict[str, np.ndarray]:
    """The float32 vector of each of these papers that has one."""
    found = {}
    for batch in batched(ids, IDS_PER_STATEMENT):
        found.update((paper_id, np.frombuffer(blob, VECTOR_DTYPE).astype(np.float32))
                     for paper_id, blob in session.execute(
                         select(PaperVector.paper_id, PaperVector.vector)
                         .where(col(PaperVector.paper_id).in_(batch))))
    return found


def all_vectors(session: Session) -> tuple[list[str], np.ndarray]:
    """Every paper's vector, in one query: the papers' ids by id, and their vectors as the
    rows of a float16 (n, 384) matrix. Papers without a vector are left out, and so are those
    whose vector is cut short; one holding NaNs reads as zeros, as no closeness at all (so
    that the papers listed are those `counts` counts). Either is named in the log, and is
    missing to missing_ids, which has it encoded again."""
    # Through the driver's cursor: SQLAlchemy's rows took 1.07 s of the query's 88k, the
    # driver's tuples 0.64 s (SQLite, 2 busy cores)
    cursor = session.connection().connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    cursor.execute("SELECT paper_vector.paper_id, paper_vector.vector FROM paper_vector "
                   "JOIN paper ON paper.id = paper_vector.paper_id "
                   "ORDER BY paper_vector.paper_id")
    stored = cursor.fetchall()
    cursor.close()
    rows = [(paper_id, blob) for paper_id, blob in stored if len(blob) == VECTOR_BYTES]
    # One copy of every blob, read as one array: row by row, 88k arrays stacked took 3 s more
    matrix = np.frombuffer(b"".join(blob for _, blob in rows), VECTOR_DTYPE)
    matrix = matrix.reshape(len(rows), DIMENSIONS)
    nan = ~np.isfinite(matrix).all(axis=1)
    if damaged := len(stored) - len(rows) + int(nan.sum()):
        log.warning("%d stored sentence vectors are damaged and left out: `catalog "
                    "update-index` encodes those papers again", damaged)
        matrix = np.where(nan[:, None], np.float16(0), matrix)
    return [paper_id for paper_id, _ in rows], matrix
