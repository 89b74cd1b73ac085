"""The job that gives every paper of the catalog its vector (app/meaning/store.py): new
papers and papers whose text changed, a batch at a time, each batch committed, so that a
process killed loses at most one batch and the next run goes on from there.

    python -m app.meaning.job [--batch 256]

encodes the catalog of the environment's settings (CATALOG_DATA_DIR, CATALOG_DATABASE_URL),
with the model extracted into the data directory's `model` folder.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from sqlmodel import Session

from app.config import get_settings
from app.db import batched, get_engine
from app.faults import pause_point
from app.meaning.encoder import Encoder
from app.meaning.store import MAX_TOKENS, drop_orphans, missing_ids, store_vectors, texts_of
from app.schema import catalog_lock

# Any fixed number other than app.schema's: the PostgreSQL advisory lock that lets one
# process of all the catalog's nodes encode at a time.
ENCODE_LOCK = 7_411_968
# Papers encoded and committed at a time, what a kill loses at most: about 10 s of one core
# (26 papers a CPU second, the 13,408 of the corpus at 128 word pieces), beside which its
# commit (0.06 s) is nothing.
BATCH = 256


class EncodingElsewhere(RuntimeError):
    """Another process encodes this catalog's papers now."""


def encode_missing(session: Session, encoder: Encoder, batch: int = BATCH,
                   progress: Callable[[int, int], None] = lambda done, total: None,
                   should_stop: Callable[[], bool] = lambda: False, wait: bool = True) -> int:
    """Encode every paper that has no vector of its text now (store.missing_ids), `batch`
    papers at a time, committing each batch; drop the vectors of papers gone. Returns how
    many papers it encoded.

    `progress(done, total)` is called before the first batch and after each; `should_stop()`
    before each, and ends the run when true (the batches done stay). One run at a time per
    catalog, across processes and, on PostgreSQL, across nodes: a run waits for another to
    end (and finds what that one encoded done), or, without `wait`, raises
    EncodingElsewhere."""

    def elsewhere() -> None:
        if not wait:
            raise EncodingElsewhere("another process is encoding this catalog's papers")

    with catalog_lock(session.get_bind().engine, "encode", ENCODE_LOCK, elsewhere):
        drop_orphans(session)
        session.commit()
        ids = missing_ids(session)
        encoded = 0
        progress(encoded, len(ids))
        for chunk in batched(ids, batch):
            if should_stop():
                break
            texts = texts_of(session, chunk)
            store_vectors(session, texts, encoder.encode(list(texts.values()), MAX_TOKENS))
            session.commit()
            encoded += len(texts)
            progress(encoded, len(ids))
            pause_point("encoded-batch")
        return encoded


def _show(done: int, total: int) -> None:
    print(f"\rvectors: {done}/{total} papers encoded", end="", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.meaning.job", description=__doc__)
    parser.add_argument("--batch", type=int, default=BATCH, help="papers committed at a time")
    batch = parser.parse_args(argv).batch
    settings = get_settings()
    encoder = Encoder.load(settings.data_dir / "model")
    with Session(get_engine(settings.database_url)) as session:
        encoded = encode_missing(session, encoder, batch, _show)
    print(file=sys.stderr)  # after the progress line
    print(f"{encoded} papers encoded")


if __name__ == "__main__":
    main()
