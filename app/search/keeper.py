"""IndexKeeper: keeps this node's search index in step with the shared catalog database.

Every node (and every worker process on a node) runs one in a background thread. It asks the
database for the catalog version every few seconds, one primary-key read, and when an ingest
from anywhere has moved it on, applies the change log to the local index (or rebuilds it).
PaperSearch notices the new index generation and swaps it in; requests meanwhile keep being
answered from the previous one. Workers sharing an index directory take turns through the
index lock: whoever holds it updates the index for all.
"""

from __future__ import annotations

import logging
import threading

from sqlmodel import Session

from app.config import Settings
from app.db import catalog_id, get_engine
from app.search.index import read_index_stamp, sync_index

# A child of uvicorn's own logger: printed beside the server's messages, in its format.
log = logging.getLogger("uvicorn.error.index")


class IndexKeeper:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.state = "not checked yet"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="index-keeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.check()
            self._stop.wait(self.settings.poll_seconds)

    def check(self) -> str:
        """Bring the index up to date if the catalog changed; returns what was done."""
        try:
            with Session(get_engine(self.settings.database_url)) as session:
                state = sync_index(self.settings, session, wait=False)
        except Exception as error:  # the database may be briefly unreachable: keep serving
            log.exception("search index update failed")
            state = f"update failed: {type(error).__name__}"
        if state != self.state and state not in ("up to date", "busy"):
            log.info("search index %s", state)
        self.state = state
        return state

    def ready(self, session: Session) -> bool:
        """Whether this node has an index of this catalog to answer from (maybe a bit behind)."""
        stamp = read_index_stamp(self.settings.index_path)
        return stamp is not None and stamp.catalog == catalog_id(session)
