"""Sentence vectors for a catalog a bench builds: borrowed by text digest from a catalog that
has them (a full-corpus catalog encoded once: 88k papers take about an hour on 2 cores), the
rest encoded by the catalog's own job (app/meaning/job.py), then laid out in its index as a
server's keeper would (`encode_and_publish`).

A vector is the encoder's of a paper's exact text (`store.text_digest` names the model, the
word pieces read and the text), so one borrowed by digest is the vector the job would make.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from types import SimpleNamespace

from sqlmodel import Session

from app.config import Settings
from app.db import get_engine
from app.meaning.store import paper_text, text_digest
from app.search.index.meaning_updates import encode_and_publish
from app.search.index.sync import publish_vectors, sync_index


def borrow_vectors(settings: Settings, source: Path) -> int:
    """Copy into the catalog's `paper_vector` the vectors of `source` (a catalog database)
    whose text is one of its papers'; how many."""
    db = sqlite3.connect(settings.database_path)
    try:
        db.execute("ATTACH DATABASE ? AS source", (str(source),))
        have = dict(db.execute("SELECT digest, vector FROM source.paper_vector"))
        rows = [(paper_id, digest, have[digest]) for paper_id, digest in (
            (row[0], text_digest(paper_text(SimpleNamespace(title=row[1] or "", plain=row[2]))))
            for row in db.execute("SELECT id, title, plain FROM paper")) if digest in have]
        db.execute("DETACH DATABASE source")
        db.executemany("INSERT OR REPLACE INTO paper_vector (paper_id, digest, vector) "
                       "VALUES (?, ?, ?)", rows)
        db.commit()
    finally:
        db.close()
    return len(rows)


def with_vectors(settings: Settings, source: Path | None) -> Settings:
    """Give every paper of the catalog a vector (borrowed from `source` where it has them)
    and publish its index with them."""
    if source is not None:
        print(f"vectors: {borrow_vectors(settings, source / 'catalog.db'):,} borrowed from "
              f"{source}", file=sys.stderr)
    with Session(get_engine(settings.database_url)) as session:
        encoded = encode_and_publish(settings, session, publish_vectors)
        sync_index(settings, session, complete=False)  # the borrowed ones, if none was encoded
    print(f"vectors: {encoded:,} encoded here", file=sys.stderr)
    return settings
