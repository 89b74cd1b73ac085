"""Fitting the paper vectors (vectors.py) when a generation is built, from the posting arrays
of the text field (the analyzer's terms and frequencies: nothing is analyzed again): each
paper's sublinear TF-IDF, reduced by a truncated SVD of the whole catalog, centred and of unit
length; or, after an update, every paper projected again with the generation's model.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from whoosh.searching import Searcher

from app.search.index.arrays import deleted_docs, drop_pages, field_arrays
from app.search.index.vectors import MODEL_FILE, VECTORS_FILE, Model, read_model, unit_rows
from app.search.index.whoosh import open_index

if TYPE_CHECKING:  # imported where a fit runs: a server worker only reads the vectors
    import scipy.sparse as sp

DIMENSIONS = 64  # 32-128 measured alike, 256 worse (docs/discover.md)
# ... and at most the square root of the papers: a small catalog's few directions are its
# themes, where as many directions as papers would only write each paper again.
MIN_DF = 2
MAX_DF_SHARE = 0.5  # words in half the papers ("learn", "model") carry no meaning
OVERSAMPLE, POWER_STEPS, SEED = 10, 4, 0
BLOCK = 1 << 18  # postings turned into rows at a time: bounds their int64 temporaries


def _meaningful(term: str) -> bool:
    return len(term) > 2 and not term.isdigit() and term == term.lower()  # no acronym marker


def _postings(searcher: Searcher) -> tuple[list[tuple[object, int]], np.ndarray]:
    """The text field's arrays of each segment with its offset, and which documents live."""
    live = np.ones(searcher.doc_count_all(), dtype=bool)
    fields = []
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        live[deleted_docs(reader) + offset] = False
        arrays = field_arrays(reader, "text")
        if arrays is not None:
            fields.append((arrays, offset))
    return fields, live


def _vocabulary(fields: list[tuple[object, int]], papers: int) -> tuple[list[str], np.ndarray]:
    """The terms in `MIN_DF` papers or more and at most `MAX_DF_SHARE` of them, and IDFs."""
    df: dict[str, int] = {}
    for arrays, _ in fields:
        lengths = np.diff(arrays.starts)
        for i, term in enumerate(arrays.terms):
            if _meaningful(term):
                df[term] = df.get(term, 0) + int(lengths[i])
    kept = sorted(t for t, n in df.items() if MIN_DF <= n <= MAX_DF_SHARE * papers)
    return kept, np.array([np.log(papers / df[t]) for t in kept], dtype=np.float32)


def _blocks(fields: list[tuple[object, int]], live: np.ndarray, terms: list[str],
            idf: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The postings of `terms` in live documents, as documents, columns and sublinear TF-IDF,
    a block of a segment's terms at a time: per-posting int64 indices exist for a block of
    about `BLOCK` postings only, never for the whole field."""
    column = {term: i for i, term in enumerate(terms)}
    for arrays, offset in fields:
        columns = np.fromiter((column.get(term, -1) for term in arrays.terms), dtype=np.int64,
                              count=len(arrays.terms))
        starts = arrays.starts
        cuts = np.unique(np.append(
            np.searchsorted(starts, np.arange(0, starts[-1], BLOCK)), len(columns)))
        for first, last in itertools.pairwise(cuts):
            begin, end = int(starts[first]), int(starts[last])
            cols = np.repeat(columns[first:last], np.diff(starts[first:last + 1]))
            docs = arrays.ids[begin:end].astype(np.int64) + offset
            kept = (cols >= 0) & live[docs]
            tf = arrays.weights[begin:end][kept].astype(np.float32)  # float16 on disk
            yield docs[kept], cols[kept], (1 + np.log(np.maximum(tf, 1))) * idf[cols[kept]]
            for read in (arrays.ids, arrays.weights):  # read twice: held a block at a time
                drop_pages(read, begin, end)


def _tfidf(fields: list[tuple[object, int]], live: np.ndarray, terms: list[str],
           idf: np.ndarray) -> sp.csr_matrix:
    """Unit rows of sublinear TF-IDF, one per document number (empty where deleted).

    Held once, float32 values and int32 columns filled in place: the posting arrays are the
    matrix by columns, so a first pass counts each row's terms and sums their squares, and
    a second turns each block into rows (scipy's conversion, of a block only) and appends
    them to the rows' terms so far. COO triples with int64 indices, converted, held it
    several times over (+530 MB at 88k papers). Rows, not columns: both products of the SVD
    then gather from the dense side of terms, the smaller one (CSC's took twice as long)."""
    import scipy.sparse as sp  # scipy.sparse and .linalg: 24 MB of a worker that never fits

    counts = np.zeros(len(live), dtype=np.int64)
    squares = np.zeros(len(live), dtype=np.float64)
    for docs, _, values in _blocks(fields, live, terms, idf):
        counts += np.bincount(docs, minlength=len(live))
        squares += np.bincount(docs, values * values, minlength=len(live))
    norms = np.sqrt(squares).astype(np.float32)
    inverse = 1 / np.where(norms > 0, norms, 1)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    indices = np.empty(indptr[-1], dtype=np.int32)
    data = np.empty(indptr[-1], dtype=np.float32)
    slots = indptr[:-1].copy()  # where each row's next term goes
    for docs, cols, values in _blocks(fields, live, terms, idf):
        block = sp.csr_matrix((values * inverse[docs], (docs, cols)), shape=(len(live), len(terms)))
        lengths = np.diff(block.indptr)
        at = np.repeat(slots - block.indptr[:-1], lengths) + np.arange(block.nnz)
        indices[at] = block.indices
        data[at] = block.data
        slots += lengths
    return sp.csr_matrix((data, indices, indptr), shape=(len(live), len(terms)), copy=False)


def _orthonormal(product: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the columns, by Householder QR in float32, in the Fortran copy
    LAPACK needs. numpy's QR works in float64 whatever it is given and held the documents ×
    (k + oversampling) block eight times over (its copies and workspace), five times slower;
    scipy's, given a C array, copies it once more for its workspace query."""
    import scipy.linalg as sl

    return sl.qr(np.asfortranarray(product), mode="economic", overwrite_a=True,
                 check_finite=False)[0]


def _range(matrix: sp.csr_matrix, width: int) -> np.ndarray:
    """An orthonormal basis (documents × `width`) of the matrix's dominant range: a Gaussian
    sketch and power steps (Halko, Martinsson and Tropp, 2011)."""
    rng = np.random.default_rng(SEED)
    basis = _orthonormal(matrix @ rng.standard_normal((matrix.shape[1], width),
                                                      dtype=np.float32))
    for _ in range(POWER_STEPS):
        basis = _orthonormal(matrix.T @ basis)
        basis = _orthonormal(matrix @ basis)
    return basis


def _directions(matrix: sp.csr_matrix, live: np.ndarray) -> np.ndarray:
    """The top singular directions by a randomized SVD: an exact SVD of the matrix projected
    on its dominant range (the range's basis is let go first, the largest array here)."""
    k = max(1, min(DIMENSIONS, int(np.sqrt(live.sum())), min(matrix.shape) - 1))
    _, _, vt = np.linalg.svd((matrix.T @ _range(matrix, k + OVERSAMPLE)).T,
                             full_matrices=False)
    directions = np.ascontiguousarray(vt[:k].T, dtype=np.float32)
    # The SVD picks each direction's sign, and rounding can tip it: with the range found in
    # float32, one of L's 64 flipped between one and two BLAS threads. Its largest component
    # made positive (scikit-learn's svd_flip) holds unless two of them nearly tie.
    return directions * np.sign(directions[np.abs(directions).argmax(axis=0), np.arange(k)])


def _fit(matrix: sp.csr_matrix, terms: list[str], idf: np.ndarray,
         live: np.ndarray) -> tuple[Model, np.ndarray]:
    """The model, and the papers projected on its directions (unit rows, not yet centred)."""
    directions = _directions(matrix, live)
    projected = unit_rows(matrix @ directions)
    mean = (projected.mean(axis=0, where=live[:, None]) if live.any()
            else np.zeros(directions.shape[1], np.float32))
    return Model(terms, idf, directions, mean), projected


def write_vectors(directory: Path, refit: bool = True) -> None:
    """Fit the generation's model and write its vectors, or (`refit` False, after an update)
    project its papers with the model it has."""
    model = None if refit else read_model(directory)
    ix = open_index(directory)
    try:
        with ix.searcher() as searcher:
            fields, live = _postings(searcher)
    finally:
        ix.close()
    terms, idf = ((model.terms, model.idf) if model is not None
                  else _vocabulary(fields, int(live.sum())))
    if not terms:
        return
    # One matrix for the fit and the projection: it is the step's largest array.
    matrix = _tfidf(fields, live, terms, idf)
    if model is None:
        model, projected = _fit(matrix, terms, idf, live)
    else:
        projected = unit_rows(matrix @ model.directions)
    vectors = unit_rows(np.subtract(projected, model.mean, out=projected))
    vectors[np.diff(matrix.indptr) == 0] = 0  # no term: no meaning, not minus the mean
    tmp = directory / f".{VECTORS_FILE}.tmp.npy"
    np.save(tmp, vectors)
    os.replace(tmp, directory / VECTORS_FILE)
    tmp = directory / f".{MODEL_FILE}.tmp.npz"
    np.savez(tmp, terms=np.array("\n".join(model.terms)),
             idf=model.idf, directions=model.directions, mean=model.mean)
    os.replace(tmp, directory / MODEL_FILE)
