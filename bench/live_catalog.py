"""A full-corpus catalog's live generation read as arrays, read-only, for the benches that
compare ways of deriving its vectors, map and topics (bench/map_variants.py,
bench/topic_vectors.py, bench/vector_fit_libraries.py): each document's paper ID, primary
topic and series, and the corpus row it was ingested from (for the venues' own areas and
the ICLR author keywords). Nothing here writes: the database is opened `mode=ro`.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from app.ids import edition_slug, paper_id

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
EVALUATION_VENUES = ("AAAI", "IJCAI")  # their `primary_area` evaluates, never tunes


def read_only(data_dir: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{data_dir / 'catalog.db'}?mode=ro", uri=True)


@dataclass
class LiveCatalog:
    data_dir: Path

    @property
    def generation(self) -> Path:
        return (self.data_dir / "index").resolve()

    @cached_property
    def ids(self) -> list[str]:
        """Paper IDs by document number (the map's file keeps them in that order)."""
        with np.load(self.generation / "map.npz") as found:
            return [str(pid) for pid in found["ids"]]

    @cached_property
    def papers(self) -> dict[str, tuple[str, str, str]]:
        """Paper ID → (edition slug, title, primary topic)."""
        db = read_only(self.data_dir)
        try:
            return {pid: (edition, title, topic) for pid, edition, title, topic in db.execute(
                "SELECT id, edition_slug, title, topic FROM paper")}
        finally:
            db.close()

    @cached_property
    def topics(self) -> np.ndarray:
        """Each document's primary topic (a string array)."""
        return np.array([self.papers[pid][2] for pid in self.ids])

    @cached_property
    def series(self) -> np.ndarray:
        """Each document's series slug ("iclr"), from its edition's slug."""
        return np.array([self.papers[pid][0].rsplit("-", 1)[0] for pid in self.ids])

    @cached_property
    def rows(self) -> list[dict | None]:
        """The corpus row of each document (None for the few not found): by paper ID from
        the abstract, else by edition and title where one paper has that title."""
        doc_of = {pid: doc for doc, pid in enumerate(self.ids)}
        by_title: dict[tuple[str, str], list[str]] = {}
        for pid, (edition, title, _) in self.papers.items():
            by_title.setdefault((edition, title), []).append(pid)
        found: list[dict | None] = [None] * len(self.ids)
        for path in sorted(CORPUS.glob("*.jsonl.gz")):
            with gzip.open(path, "rt", encoding="utf-8") as lines:
                for line in lines:
                    row = json.loads(line)
                    edition = edition_slug(row["venue"], row["year"])
                    pid = paper_id(edition, row["abstract"])
                    if pid not in doc_of:
                        same = by_title.get((edition, row.get("title") or ""), [])
                        pid = same[0] if len(same) == 1 else None
                    if pid is not None and pid in doc_of:
                        found[doc_of[pid]] = row
        return found

    def vectors(self, name: str) -> np.ndarray:
        """A float32 array of the generation (`vectors.npy`, `meaning.npy`), in memory."""
        return np.load(self.generation / name).astype(np.float32, copy=False)
