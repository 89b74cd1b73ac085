"""Paper vectors by meaning (issue 24, part 3): fitted with the index, projected again on an
update, and blended into related papers, which then find papers of the same theme that share
no word with the paper."""

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from app.catalog import papers_by_id
from app.ingest.load import ingest_paths
from app.search.index import SyncKind, sync_index
from app.search.searcher import PaperSearch
from app.search.vectors import VECTORS_FILE, read_vectors
from tests.conftest import Catalog, make_catalog

# Two themes, each written with words that meet in some papers and not in others.
THEMES = {
    "kernels": ["kernel", "margin", "hinge", "svm", "rkhs", "mercer", "slack", "dual", "gram",
                "feature", "nystrom", "bandwidth", "smoothness", "regularizer", "spline",
                "bochner"],
    "robots": ["gripper", "grasp", "manipulator", "torque", "actuator", "arm", "tactile",
               "payload", "joint", "servo", "wrist", "finger", "pose", "trajectory",
               "encoder", "motor"],
}


def abstract(rng: random.Random, words: list[str], n: str) -> str:
    """Four words of a theme, and a word of its own."""
    return f"{n} " + " ".join(rng.sample(words, 4)) + "."


def write(path: Path, count: int, seed: int) -> Path:
    rng = random.Random(seed)
    rows = [{"venue": "Theme", "year": 2024,
             "abstract": abstract(rng, words, f"{name}{n}x{seed}")}
            for name, words in THEMES.items() for n in range(count)]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def themed(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("themed")
    catalog = make_catalog(root)
    catalog.ingest(write(root / "themes.jsonl", 40, seed=1))
    return catalog


def texts_of(catalog: Catalog) -> Callable[[list[str]], dict[str, str]]:
    def texts(ids: list[str]) -> dict[str, str]:
        with catalog.session() as session:
            return {pid: paper.plain for pid, paper in papers_by_id(session, ids).items()}
    return texts


def test_vectors_are_unit_rows_one_per_document(themed: Catalog):
    search = PaperSearch(themed.settings.index_path)
    documents = search.with_index(lambda current: len(current.ids), 0)
    vectors = read_vectors(themed.settings.index_path.resolve(), documents)
    assert vectors is not None and vectors.shape[0] == documents
    assert not vectors.flags.owndata  # mapped from the file: the workers share one copy
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-2)


def test_related_papers_find_the_theme_beyond_shared_words(themed: Catalog):
    search = PaperSearch(themed.settings.index_path)
    texts = texts_of(themed)
    plains = texts(search.with_index(lambda current: current.ids, []))
    kernels = {pid for pid, plain in plains.items() if plain.startswith("kernels")}
    assert len(kernels) == 40
    for pid in sorted(kernels)[:8]:
        related = search.related(pid, plains[pid], texts, limit=25)
        # Papers of its theme (and seed papers on kernels), before any robot paper: also
        # those that share none of its theme's words, which words alone never find.
        assert not any(plains[r.id].startswith("robots") for r in related)
        assert any(r.id in kernels and not set(plains[r.id].split()) & set(plains[pid].split())
                   & set(THEMES["kernels"]) for r in related)


def test_an_update_projects_the_new_papers(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(write(tmp_path / "themes.jsonl", 30, seed=1))
    with catalog.session() as session:
        ingest_paths(session, [write(tmp_path / "more.jsonl", 5, seed=2)])
        assert sync_index(catalog.settings, session).kind is SyncKind.UPDATED
    search = PaperSearch(catalog.settings.index_path)
    vectors, ids = search.with_index(lambda current: (current.vectors, current.ids), None)
    assert vectors is not None and len(vectors) == len(ids)
    texts = texts_of(catalog)
    new = [pid for pid, plain in texts(ids).items() if plain.split()[0].endswith("x2")]
    assert new and all(vectors[ids.index(pid)].any() for pid in new)


def test_without_vectors_related_papers_are_found_by_words(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(write(tmp_path / "themes.jsonl", 20, seed=1))
    (catalog.settings.index_path.resolve() / VECTORS_FILE).unlink()
    search = PaperSearch(catalog.settings.index_path)
    assert search.with_index(lambda current: current.vectors, "none") is None
    texts = texts_of(catalog)
    pid = search.with_index(lambda current: current.ids, [])[-1]
    related = search.related(pid, texts([pid])[pid], texts, limit=5)
    assert related and all(set(r.shared_terms) for r in related)
