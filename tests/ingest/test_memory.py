"""An ingest's memory is bounded by a chunk of papers, not by its input (issue 27): what it
allocates beyond the file's own bytes does not grow with the papers a file holds."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from app.config import Settings
from app.db import get_engine
from app.enrich import ON_INGEST
from app.ingest import load
from app.ingest.load import ingest_paths
from app.models import Paper
from tests.postgres import new_database_url, postgresql_run

WORDS = ("graph neural network attention transformer diffusion policy gradient kernel "
         "bound regret sparse robust causal inference latent variational training data "
         "model learning representation optimization convergence benchmark").split()


def write_papers(path: Path, papers: int) -> int:
    """A JSON Lines file of distinct abstracts over a fixed vocabulary (so that the word
    statistics do not grow with the file); returns its size in bytes."""
    rng = random.Random(papers)
    with path.open("w") as out:
        for i in range(papers):
            words = " ".join(rng.choice(WORDS) for _ in range(180))
            out.write(json.dumps({"venue": "Growth", "year": 2026, "title": f"Paper {i}",
                                  "authors": [f"Author {i % 97}", f"Author {i % 89}"],
                                  "abstract": f"We study {words} (paper {i})."}) + "\n")
    return path.stat().st_size


def peak_beyond_input(tmp_path: Path, papers: int) -> tuple[int, int]:
    """The Python memory an ingest of `papers` allocates at its peak beyond its input file's
    bytes, and how many papers it stored."""
    size = write_papers(tmp_path / f"papers-{papers}.jsonl", papers)
    settings = Settings(data_dir=tmp_path / f"data-{papers}", seeds_dir=tmp_path,
                        database=new_database_url())
    settings.data_dir.mkdir()
    url = settings.database_url
    with Session(get_engine(url)) as session:
        tracemalloc.start()
        try:
            report = ingest_paths(session, [tmp_path / f"papers-{papers}.jsonl"], ON_INGEST)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        stored = session.exec(select(func.count()).select_from(Paper)).one()
    assert report.errors == [] and report.added == papers == stored
    get_engine(url).dispose()
    return peak - size, stored


@postgresql_run  # the chunks are the ingest's own, whatever the database: once, in the shorter run
def test_an_ingest_holds_a_chunk_of_papers_whatever_the_size_of_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(load, "STORE_CHUNK", 100)
    peak_beyond_input(tmp_path, 100)  # models, tables and caches loaded once per process
    small, _ = peak_beyond_input(tmp_path, 300)
    large, _ = peak_beyond_input(tmp_path, 1_200)
    # Holding every paper, four times the papers cost about four times the memory (measured
    # with 400 and 1,600 papers: the code before chunks 3.3 -> 10.5 MB); a chunk at a time,
    # what grows is little more than the set of their IDs (1.4 -> 2.1 MB).
    assert large - small < 1_500_000, (small, large)
