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
from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index import vector_fit
from app.search.index.manifest import MANIFEST_FILE
from app.search.index.opened import OpenIndex
from app.search.index.sync import SyncKind, sync_index
from app.search.index.vector_fit import write_vectors
from app.search.index.vectors import VECTORS_FILE, read_vectors
from app.search.index.whoosh import open_index
from app.search.rank import similar
from app.search.searcher import PaperSearch
from app.search.words.analysis import analyze
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
    catalog.ingest(write(root / "themes.jsonl", 40, seed=1), rebuild=True)  # a model of them
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
    plains = texts(search.with_index(lambda current: list(current.ids), []))
    kernels = {pid for pid, plain in plains.items() if plain.startswith("kernels")}
    assert len(kernels) == 40
    for pid in sorted(kernels)[:8]:
        related = search.related(pid, plains[pid], texts, limit=25)
        # Papers of its theme (and seed papers on kernels), before any robot paper: also
        # those that share none of its theme's words, which words alone never find.
        assert not any(plains[r.id].startswith("robots") for r in related)
        assert any(r.id in kernels and not set(plains[r.id].split()) & set(plains[pid].split())
                   & set(THEMES["kernels"]) for r in related)


def test_a_text_is_projected_as_the_papers_are(themed: Catalog):
    search = PaperSearch(themed.settings.index_path)
    current = search.with_index(lambda current: current, None)
    assert current is not None and current.vector_model is not None
    plains = texts_of(themed)(list(current.ids))
    for doc, pid in enumerate(current.ids[:20]):
        projected = current.vector_model.project(analyze(plains[pid]))
        assert float(projected @ current.vectors[doc]) > 0.99
    assert not current.vector_model.project(analyze("zzyzx qwertz")).any()


def test_papers_like_a_pasted_text_are_of_its_theme_beyond_shared_words(themed: Catalog):
    """A text of kernel words, none of them the seeds': the papers like it by words and by
    vectors are kernel papers, also those sharing none of its words."""
    search = PaperSearch(themed.settings.index_path)
    plains = texts_of(themed)(search.with_index(lambda current: list(current.ids), []))
    text = " ".join(THEMES["kernels"][:4])

    def like(current: OpenIndex) -> list[tuple[int, float]]:
        key_terms = similar.text_key_terms(current.searcher, text)
        return similar.like_text(current.searcher, key_terms, text, 30,
                                 similar.Vectors.of(current.vectors, current.with_vectors),
                                 current.vector_model)

    found = [plains[search.with_index(lambda current: current.ids, [])[doc]]
             for doc, _ in search.with_index(like, [])]
    assert len(found) == 30 and all(plain.startswith("kernels") for plain in found)
    assert any(not set(analyze(plain)) & set(analyze(text)) for plain in found)


def test_an_update_projects_the_new_papers(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(write(tmp_path / "themes.jsonl", 30, seed=1), rebuild=True)
    with catalog.session() as session:
        ingest_paths(session, [write(tmp_path / "more.jsonl", 5, seed=2)], ON_INGEST)
        assert sync_index(catalog.settings, session).kind is SyncKind.UPDATED
    search = PaperSearch(catalog.settings.index_path)
    vectors, ids = search.with_index(lambda current: (current.vectors, current.ids), None)
    assert vectors is not None and len(vectors) == len(ids)
    texts = texts_of(catalog)
    new = [pid for pid, plain in texts(ids).items() if plain.split()[0].endswith("x2")]
    assert new and all(vectors[ids.index(pid)].any() for pid in new)


def test_without_vectors_related_papers_are_found_by_words(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(write(tmp_path / "themes.jsonl", 20, seed=1), rebuild=True)
    # A generation written without vectors (and without a manifest that would list them).
    for left_out in (VECTORS_FILE, MANIFEST_FILE):
        (catalog.settings.index_path.resolve() / left_out).unlink()
    search = PaperSearch(catalog.settings.index_path)
    assert search.with_index(lambda current: current.vectors, "none") is None
    texts = texts_of(catalog)
    pid = search.with_index(lambda current: current.ids, [])[-1]
    related = search.related(pid, texts([pid])[pid], texts, limit=5)
    assert related and all(set(r.shared_terms) for r in related)


class Segment:
    """A segment's posting arrays as FieldArrays has them, from {term: {doc: frequency}}."""

    def __init__(self, postings: dict[str, dict[int, float]]) -> None:
        self.postings = postings
        self.terms = {term: i for i, term in enumerate(sorted(postings))}
        lists = [sorted(postings[term].items()) for term in self.terms]
        self.starts = np.cumsum([0] + [len(found) for found in lists]).astype(np.int64)
        self.ids = np.array([doc for found in lists for doc, _ in found], dtype=np.uint32)
        self.weights = np.array([tf for found in lists for _, tf in found], dtype=np.float32)


def segments(rng: np.random.Generator) -> list[tuple[Segment, int]]:
    """Three segments of 20, 12 and 8 documents over 30 words, each with words of its own
    and some documents without any word."""
    found, offset = [], 0
    for size, words in ((20, 30), (12, 25), (8, 18)):
        postings: dict[str, dict[int, float]] = {}
        for doc in range(size - 2):
            for w in rng.choice(words, size=rng.integers(1, 9), replace=False):
                postings.setdefault(f"word{w}", {})[doc] = float(rng.integers(1, 5))
        postings[f"own{offset}"] = {0: 1.0}  # a word of the segment only
        found.append((Segment(postings), offset))
        offset += size
    return found


def dense_tfidf(fields: list[tuple[Segment, int]], live: np.ndarray, terms: list[str],
                idf: np.ndarray) -> np.ndarray:
    """Sublinear TF-IDF with unit rows, computed entry by entry."""
    matrix = np.zeros((len(live), len(terms)))
    for segment, offset in fields:
        for term, docs in segment.postings.items():
            for doc, tf in docs.items():
                if term in terms and live[doc + offset]:
                    matrix[doc + offset, terms.index(term)] = (1 + np.log(tf)) * idf[
                        terms.index(term)]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1)


@pytest.mark.parametrize("block", [1, 5, 1 << 18])
def test_tfidf_from_the_posting_arrays_is_the_dense_one(monkeypatch: pytest.MonkeyPatch,
                                                         block: int):
    """Built in place from the arrays, block by block (a block of one posting, of a few terms,
    of the whole field): over several segments, without deleted documents or the words
    left out, each row its document's."""
    monkeypatch.setattr(vector_fit, "BLOCK", block)
    rng = np.random.default_rng(3)
    fields = segments(rng)
    live = rng.random(40) > 0.2
    terms = [f"word{w}" for w in range(0, 32, 2)] + ["own20"]  # word30, word31: nowhere
    idf = rng.uniform(0.5, 3, len(terms)).astype(np.float32)
    matrix = vector_fit._tfidf(fields, live, terms, idf)
    assert matrix.shape == (40, len(terms))
    assert matrix.indices.dtype == np.int32 and matrix.data.dtype == np.float32
    assert not np.diff(matrix.indptr)[~live].any()  # nothing stored for a deleted document
    assert np.allclose(matrix.toarray(), dense_tfidf(fields, live, terms, idf), atol=1e-6)


def test_fit_is_the_dense_svd(monkeypatch: pytest.MonkeyPatch):
    """The randomized SVD finds the dense SVD's top directions (up to sign), and the mean
    is that of the live documents' projections. Over 12 terms, fewer than the sketch's
    columns, the sketch holds the whole range: the directions are exact, not approximate."""
    monkeypatch.setattr(vector_fit, "BLOCK", 7)
    rng = np.random.default_rng(4)
    fields = segments(rng)
    live = rng.random(40) > 0.2
    terms = [f"word{w}" for w in range(12)]
    idf = rng.uniform(0.5, 3, len(terms)).astype(np.float32)
    matrix = vector_fit._tfidf(fields, live, terms, idf)
    model, projected = vector_fit._fit(matrix, terms, idf, live)
    k = int(np.sqrt(live.sum()))
    dense = dense_tfidf(fields, live, terms, idf)
    expected = np.linalg.svd(dense)[2][:k].T
    assert model.directions.shape == (len(terms), k)
    signs = np.sign((model.directions * expected).sum(axis=0))
    assert np.allclose(model.directions, expected * signs, atol=1e-4)
    units = dense @ model.directions
    units /= np.where((norms := np.linalg.norm(units, axis=1, keepdims=True)) > 0, norms, 1)
    assert np.allclose(projected, units, atol=1e-5)
    assert np.allclose(model.mean, units[live].mean(axis=0), atol=1e-5)


def test_a_deleted_paper_has_no_vector(tmp_path: Path):
    """Deleted from the index (as an update replaces a paper), a paper's row is empty, on an
    update's projection as on a new fit, and the others keep theirs."""
    catalog = make_catalog(tmp_path)
    catalog.ingest(write(tmp_path / "themes.jsonl", 20, seed=1), rebuild=True)
    directory = catalog.settings.index_path.resolve()
    before = np.load(directory / VECTORS_FILE)
    ix = open_index(directory)
    with ix.searcher() as searcher:
        pid = searcher.stored_fields(5)["id"]
    writer = ix.writer()
    writer.delete_by_term("id", pid)
    writer.commit()
    ix.close()
    write_vectors(directory, refit=False)
    projected = np.load(directory / VECTORS_FILE)
    others = np.arange(len(before)) != 5
    assert not projected[5].any()
    assert np.allclose(projected[others], before[others], atol=1e-6)
    write_vectors(directory)
    fitted = np.load(directory / VECTORS_FILE)
    assert not fitted[5].any()
    assert np.allclose(np.linalg.norm(fitted[others], axis=1), 1, atol=1e-5)
