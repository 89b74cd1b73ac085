"""A generation's sentence vectors in int8 with a scale per row (by_meaning.SentenceVectors):
written and mapped back, they multiply and index as the float32 matrix they stand for, to
within the rounding of one step in 127 of a row's largest coordinate; and a query's closeness
to them (by_meaning.closeness_to), moved toward its closest papers where it is unsure."""

import numpy as np

from app.meaning.encoder import DIMENSIONS
from app.search.rank.by_meaning import BLOCK_ROWS, closeness_to, read_meaning, write_meaning
from app.search.rank.weights import WEIGHTS


def _unit_rows(count: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(count, DIMENSIONS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_int8_rows_stand_for_the_vectors(tmp_path):
    # More rows than a block, so that the product runs over blocks and a short last one.
    count = BLOCK_ROWS + 1000
    vectors = _unit_rows(count - 2)
    ids = [f"p{n}" for n in range(count - 2)]
    # Document numbers: the papers in reverse order, one deleted document, one paper lacking
    # a vector (zeros in both cases).
    documents = np.array([f"p{n}".encode() for n in reversed(range(count - 1))] + [b"gone"])
    live = np.arange(count - 1)
    write_meaning(tmp_path, documents, live, ids[1:], vectors[1:])  # p0 has none yet
    matrix = read_meaning(tmp_path, count)
    assert matrix is not None and matrix.codes.dtype == np.int8 and len(matrix) == count
    # Document k is paper p{count - 2 - k}: document 0 (p{count - 2}, never given a vector),
    # count - 2 (p0, lacking one) and count - 1 (deleted) have none.
    exact = np.zeros((count, DIMENSIONS), np.float32)
    for doc in range(1, count - 2):
        exact[doc] = vectors[count - 2 - doc]
    query = _unit_rows(1, seed=1)[0]
    assert np.abs(matrix @ query - exact @ query).max() < 0.003
    assert not (matrix @ query)[[0, count - 2, count - 1]].any()
    some = [0, 5, count - 3]
    assert np.abs(matrix[some] - exact[some]).max() <= np.abs(exact[some]).max() / 254 + 1e-6
    columns = exact[some].T
    assert np.abs(matrix @ columns - exact @ columns).max() < 0.003


def test_a_generation_of_another_layout_has_no_sentence_vectors(tmp_path):
    np.save(tmp_path / "meaning.npy", _unit_rows(4))  # float32, as format 27 wrote it
    assert read_meaning(tmp_path, 4) is None


def test_a_query_no_paper_is_close_to_is_moved_toward_its_closest_papers(tmp_path):
    """Pseudo-relevance feedback where the encoder is unsure (weights.unsure_below): a vague
    query lies as near one stray paper as the ones about its idea, whose mean draws it to
    them; a query close to a paper is read as it is."""
    rng = np.random.default_rng(2)
    idea, stray, vague = (_unit_rows(1, seed)[0] for seed in (3, 4, 5))
    cluster = idea + 0.35 * rng.normal(size=(30, DIMENSIONS)) / np.sqrt(DIMENSIONS)
    # The query: as near the stray paper as the idea's papers, and near neither.
    query = 0.5 * idea + 0.55 * stray + 0.67 * vague
    query /= np.linalg.norm(query)
    rows = np.vstack([cluster / np.linalg.norm(cluster, axis=1, keepdims=True), stray,
                      _unit_rows(100, seed=6)]).astype(np.float32)
    ids = [f"p{n}" for n in range(len(rows))]
    write_meaning(tmp_path, np.array([i.encode() for i in ids]), np.arange(len(rows)), ids,
                  rows)
    matrix = read_meaning(tmp_path, len(rows))
    plain = matrix @ query
    assert plain.max() < WEIGHTS.unsure_below and int(np.argmax(plain)) == 30  # the stray
    moved = closeness_to(matrix, lambda text: query, "vague")
    assert moved is not None and moved.unsure
    assert set(np.argsort(-moved.of)[:10]) < set(range(30))  # the idea's papers first
    sure = closeness_to(matrix, lambda text: rows[31], "a paper's own words")
    assert sure is not None and not sure.unsure and np.allclose(sure.of, matrix @ rows[31])
