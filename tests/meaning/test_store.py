"""The papers' vectors in the catalog (app/meaning/store.py) and the job that makes them
(app/meaning/job.py): every paper encoded once, again when its text changes, never again
after a kill -9 for the batches committed before it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sqlmodel import Session, select

from app.config import PROJECT_ROOT
from app.db import get_engine
from app.meaning.encoder import DIMENSIONS, Encoder
from app.meaning.job import ENCODE_LOCK, EncodingElsewhere, encode_missing
from app.meaning.store import (
    MAX_TOKENS,
    all_vectors,
    counts,
    missing_ids,
    paper_text,
    vectors_of,
)
from app.models import Paper, PaperVector
from app.schema import catalog_lock
from app.search.index.meaning_updates import encode_and_publish
from app.search.index.sync import publish_vectors
from app.search.rank.by_meaning import behind
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from tests.conftest import Catalog, write_list
from tests.meaning.test_search_by_meaning import DEPTH, GUESS

pytestmark = pytest.mark.database

TITLED = [{"venue": "VECTORS", "year": 2026, "title": title, "abstract": abstract,
           "authors": "Ada Lovelace"} for title, abstract in [
    ("Quokka Gradients", "We estimate gradients of marsupial hopping policies."),
    ("Do Wombats Dream?", "We ask whether burrowing agents plan in their sleep."),
]]


def _jsonl(path: Path, *rows: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _paper(session: Session, title: str) -> Paper:
    return session.exec(select(Paper).where(Paper.title == title)).one()


def _stored_rows(catalog: Catalog) -> int:
    """Rows of the vectors' table, those of papers gone included."""
    with catalog.session() as session:
        return len(session.exec(select(PaperVector.paper_id)).all())


def test_every_paper_is_encoded_once_and_counted(fresh: Catalog, encoder: Encoder):
    with fresh.session() as session:
        total = counts(session)[1]
        assert total > 50 and counts(session) == (0, total)
        seen: list[tuple[int, int]] = []
        assert encode_missing(session, encoder, batch=40, progress=lambda *at: seen.append(at)
                              ) == total
        assert seen == [(0, total), (40, total), (80, total), (total, total)]
        assert counts(session) == (total, total) and missing_ids(session) == []
        assert encode_missing(session, encoder) == 0


def test_a_stored_vector_is_the_encoders_of_title_and_abstract(fresh: Catalog, tmp_path: Path,
                                                             encoder: Encoder):
    fresh.ingest(_jsonl(tmp_path / "titled.jsonl", *TITLED))
    with fresh.session() as session:
        encode_missing(session, encoder)
        quokka, wombat = _paper(session, "Quokka Gradients"), _paper(session, "Do Wombats Dream?")
        untitled = session.exec(select(Paper).where(Paper.title == "")).first()
        assert untitled is not None
        assert paper_text(quokka) == f"Quokka Gradients. {quokka.plain}"
        assert paper_text(wombat) == f"Do Wombats Dream? {wombat.plain}"
        assert paper_text(untitled) == untitled.plain
        papers = [quokka, wombat, untitled]
        expected = encoder.encode([paper_text(paper) for paper in papers], MAX_TOKENS)
        stored = vectors_of(session, [paper.id for paper in papers])
        ids, matrix = all_vectors(session)
        total = counts(session)[1]
    assert [float(stored[paper.id] @ vector) for paper, vector in zip(papers, expected,
                                                                      strict=True)] == [
        pytest.approx(1, abs=1e-3)] * 3
    assert ids == sorted(ids) and len(ids) == total and matrix.shape == (total, DIMENSIONS)
    assert matrix.dtype == np.float16
    assert np.array_equal(matrix[ids.index(quokka.id)].astype(np.float32), stored[quokka.id])
    # A seed abstract is longer than 128 word pieces: what follows them is not read
    assert len(encoder.tokenizer.encode(paper_text(untitled)).ids) > MAX_TOKENS
    whole = encoder.encode([paper_text(untitled)], 512)[0]
    assert float(stored[untitled.id] @ whole) < 0.99


def test_a_paper_whose_text_changes_is_encoded_again_and_one_whose_people_change_is_not(
        fresh: Catalog, tmp_path: Path, encoder: Encoder):
    path = _jsonl(tmp_path / "titled.jsonl", *TITLED)
    fresh.ingest(path)
    with fresh.session() as session:
        encode_missing(session, encoder)
        quokka = _paper(session, "Quokka Gradients").id
        before = vectors_of(session, [quokka])[quokka]
    # Re-read: the first paper's title changes, the second's authors (both are stored anew)
    _jsonl(path, {**TITLED[0], "title": "Kangaroo Gradients"},
           {**TITLED[1], "authors": "Grace Hopper"})
    fresh.ingest(path)
    with fresh.session() as session:
        renamed = _paper(session, "Kangaroo Gradients")
        assert missing_ids(session) == [renamed.id]
        assert encode_missing(session, encoder) == 1
        after = vectors_of(session, [renamed.id])[renamed.id]
        expected = encoder.encode([paper_text(renamed)], MAX_TOKENS)[0]
    assert float(after @ expected) == pytest.approx(1, abs=1e-3)
    assert float(after @ before) < 0.99


def test_a_removed_papers_vector_is_dropped(fresh: Catalog, tmp_path: Path, encoder: Encoder):
    path = _jsonl(tmp_path / "titled.jsonl", *TITLED)
    fresh.ingest(path)
    with fresh.session() as session:
        encode_missing(session, encoder)
        wombat = _paper(session, "Do Wombats Dream?").id
        total = counts(session)[1]
    _jsonl(path, TITLED[0])
    fresh.ingest(path)
    with fresh.session() as session:
        # Counted and read only with their paper, even before the job drops it
        assert counts(session) == (total - 1, total - 1)
        assert wombat not in all_vectors(session)[0]
        assert _stored_rows(fresh) == total
        assert encode_missing(session, encoder) == 0
        assert vectors_of(session, [wombat]) == {}
    assert _stored_rows(fresh) == total - 1


def _encode_command(catalog: Catalog, model_cache: Path, *options: str,
                    env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """`python -m app.meaning.job` on the catalog, its model linked from the run's cache."""
    model = catalog.settings.data_dir / "model"
    if not model.exists():
        model.mkdir()
        for file in model_cache.iterdir():
            os.link(file, model / file.name)
    return subprocess.Popen([sys.executable, "-m", "app.meaning.job", *options],
                            cwd=PROJECT_ROOT, env=env or catalog.env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_kill_9_keeps_the_committed_batches_and_a_rerun_encodes_only_the_rest(
        fresh: Catalog, tmp_path: Path, model_cache: Path):
    marker = tmp_path / "encoded-batch.reached"
    killed = _encode_command(fresh, model_cache, "--batch", "32", env={
        **fresh.env(), "CATALOG_PAUSE_AT": "encoded-batch", "CATALOG_PAUSE_FILE": str(marker)})
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert killed.poll() is None, killed.communicate()
        assert time.monotonic() < deadline, "the first batch was never committed"
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.communicate()
    with fresh.session() as session:
        total = counts(session)[1]
        assert counts(session) == (32, total)
        kept = {row.paper_id: row.vector for row in session.exec(select(PaperVector))}
    rerun = _encode_command(fresh, model_cache)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    assert out == f"{total - 32} papers encoded\n"
    assert f"vectors: {total - 32}/{total - 32} papers encoded" in err
    with fresh.session() as session:
        assert counts(session) == (total, total)
        assert {row.paper_id: row.vector for row in session.exec(select(PaperVector))
                if row.paper_id in kept} == kept


def test_one_encoder_at_a_time_and_the_other_steps_aside_when_asked(fresh: Catalog,
                                                                     encoder: Encoder):
    engine = get_engine(fresh.settings.database_url)
    with catalog_lock(engine, "encode", ENCODE_LOCK), fresh.session() as session:
        with pytest.raises(EncodingElsewhere):
            encode_missing(session, encoder, wait=False)
        assert counts(session)[0] == 0
    seen: list[tuple[int, int]] = []
    with fresh.session() as session:  # the lock is free again: this run takes it and starts
        assert encode_missing(session, encoder, wait=False, should_stop=lambda: True,
                              progress=lambda *at: seen.append(at)) == 0
        assert seen == [(0, counts(session)[1])]


def test_a_damaged_vector_is_left_out_named_and_encoded_again(
        fresh: Catalog, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """One stored vector cut short and one whose numbers turned NaN: the generation is still
    laid out (a short one had failed every build), without them, so a description still
    finds its paper first (one NaN had made every closeness NaN); the short one is counted
    as no vector, both are named and encoded again."""
    fresh.ingest(write_list(tmp_path / "depth.txt", "DEPTH 2026 Papers", DEPTH))
    settings = replace(fresh.settings, encode_vectors=True)
    with fresh.session() as session:
        encode_and_publish(settings, session, publish_vectors)
        total = counts(session)[1]
        depth = session.exec(select(Paper).where(Paper.abstract == DEPTH)).one().id
        short, nan = [row.paper_id for row in session.exec(
            select(PaperVector).where(PaperVector.paper_id != depth).order_by(
                PaperVector.paper_id).limit(2))]
        session.get(PaperVector, short).vector = session.get(PaperVector, short).vector[:100]
        session.get(PaperVector, nan).vector = np.full(DIMENSIONS, np.nan, "<f2").tobytes()
        session.commit()
        assert counts(session) == (total - 1, total)
        assert missing_ids(session) == sorted([short, nan])
        ids, matrix = all_vectors(session)
        assert len(ids) == total - 1 and short not in ids
        assert np.isfinite(matrix).all() and not matrix[ids.index(nan)].any()
        assert "2 stored sentence vectors are damaged" in caplog.text
        publish_vectors(settings, session)
        # laid out once: the generation holds as many vectors as the catalog counts
        assert not behind(fresh.settings.index_path.resolve(), counts(session)[0])
    found = PaperSearch(fresh.settings.index_path, result_cache=0).search(
        SearchRequest(q=GUESS), lambda ids: {})
    assert [hit.id for hit in found.hits][:1] == [depth]
    with fresh.session() as session:
        assert encode_and_publish(settings, session, publish_vectors) == 2
        assert counts(session) == (total, total) and missing_ids(session) == []
