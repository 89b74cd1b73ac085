"""The map's layout: one fixed 2-D place per paper, computed when a generation is built from
its paper vectors (vectors.py), with numpy and scipy only; app/map/drawing.py draws it.

UMAP's layout (McInnes, Healy and Melville, 2018) written as whole-array numpy: the exact
cosine k nearest neighbours (blocked matrix products), UMAP's fuzzy graph of them, a start at
the first two principal components (a spectral start scored no better, and its eigensolver
can fail), and epochs in which every sampled edge pulls its ends together along UMAP's
1 / (1 + a d^2b) curve while negative samples push away, all points moving at once by the mean
of their forces. A helper chose it by measurement (branch `map-experiment`, docs/discover.md).

At most `SAMPLE` papers are laid out so (all of L took 200 s and 0.95 GB); the others, and the
papers an update adds, are placed beside their most similar laid-out paper (`place`), so an
update moves no paper. At L: 10 nearest on the map among the 50 nearest by vector 0.32, same
topic among the 10 nearest 0.62 (the vectors themselves 0.70, a random layout 0.20), 43 s.

`map.npz` of a generation holds `xy` (float32, one row per document number, in [0, 1]², NaN
where deleted) and `ids`, by which an update keeps each paper's place. The layout is the
map's part of every generation (`MAP_PART`, registered with it by app/feature_parts.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from app.search.index.registry import Held
from app.search.index.vectors import VECTORS_FILE, read_vectors
from app.search.index.whoosh import open_index

if TYPE_CHECKING:  # imported where the map is laid out (see `curve`)
    import scipy.sparse as sp

MAP_FILE = "map.npz"
SAMPLE = 20_000  # papers laid out; the others placed beside the nearest of them
PLACED_APART = 0.004  # a placed paper's offset from its neighbour, in spreads of the map
NEIGHBOURS = 15
EPOCHS = 200
NEGATIVES = 5
MIN_DIST, SPREAD = 0.1, 1.0
LEARNING_RATE = 4.0  # per point and epoch, times the mean of its forces
BLOCK = 1024
SEED = 0


def knn(vectors: np.ndarray, k: int, queries: np.ndarray | None = None,
        exclude_self: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The `k` most cosine-similar rows of `vectors` (unit rows) for each row of `queries`
    (default: all of `vectors`, each without itself), by blocked matrix products: indices
    and similarities, best first."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    own = queries is None
    queries = vectors if own else np.ascontiguousarray(queries, dtype=np.float32)
    n = len(queries)
    index = np.empty((n, k), dtype=np.int32)
    sims = np.empty((n, k), dtype=np.float32)
    # The k-th best of each row by np.partition (SIMD-sorted in numpy 2, where argpartition
    # of whole rows is ~10x slower), then only the entries at or above it are sorted.
    columns = len(vectors)
    # buffers reused block after block: fresh ones of this size cost more in page faults
    # than the products themselves
    product = np.empty((min(BLOCK, n), columns), dtype=np.float32)
    scratch, above = np.empty_like(product), np.empty(product.shape, dtype=bool)
    for start in range(0, n, BLOCK):
        rows = np.arange(min(BLOCK, n - start))
        block, work, mask = product[:len(rows)], scratch[:len(rows)], above[:len(rows)]
        np.matmul(queries[start:start + len(rows)], vectors.T, out=block)
        if own and exclude_self:
            block[rows, rows + start] = -np.inf
        np.copyto(work, block)
        work.partition(columns - k, axis=1)
        np.greater_equal(block, work[:, columns - k:columns - k + 1], out=mask)
        row, col = np.nonzero(mask)
        found = block[row, col]
        order = np.lexsort((-found, row))
        row, col, found = row[order], col[order], found[order]
        take = np.searchsorted(row, rows)[:, None] + np.arange(k)
        top, top_sims = col[take], found[take]
        order = np.argsort(-top_sims, axis=1, kind="stable")
        index[start:start + BLOCK] = np.take_along_axis(top, order, axis=1)
        sims[start:start + BLOCK] = np.take_along_axis(top_sims, order, axis=1)
    return index, sims


def fuzzy_graph(index: np.ndarray, sims: np.ndarray) -> sp.csr_matrix:
    """UMAP's fuzzy simplicial set of a kNN graph: each paper's edges weighted
    exp(-(d - rho) / sigma) with rho its nearest distance and sigma chosen so that its
    weights add to log2(k), then the fuzzy union W + W' - W∘W'."""
    import scipy.sparse as sp

    n, k = index.shape
    dist = np.maximum(1.0 - sims.astype(np.float64), 0.0)  # cosine distance
    rho = dist[:, 0:1]
    target = np.log2(k)
    lo, hi = np.zeros((n, 1)), np.full((n, 1), np.inf)
    sigma = np.ones((n, 1))
    for _ in range(64):
        total = np.exp(-np.maximum(dist - rho, 0) / sigma).sum(axis=1, keepdims=True)
        high = total > target
        hi = np.where(high, sigma, hi)
        lo = np.where(high, lo, sigma)
        sigma = np.where(np.isinf(hi), sigma * 2, (lo + hi) / 2)
    mean_dist = dist.mean()
    sigma = np.maximum(sigma, 1e-3 * np.where(rho > 0, dist.mean(axis=1, keepdims=True),
                                              mean_dist))
    weights = np.exp(-np.maximum(dist - rho, 0) / sigma)
    graph = sp.csr_matrix((weights.ravel(), (np.repeat(np.arange(n), k), index.ravel())),
                          shape=(n, n))
    graph.eliminate_zeros()
    product = graph.multiply(graph.T)
    return sp.csr_matrix(graph + graph.T - product)


def curve(min_dist: float = MIN_DIST, spread: float = SPREAD) -> tuple[float, float]:
    """UMAP's a and b: 1 / (1 + a x^2b) fitted to 1 within min_dist, exp(-(x - min_dist) /
    spread) beyond."""
    # Imported here, by the process that lays the map out: every server worker imports this
    # module to read the map, and scipy.optimize was 11 MB of each one's private memory (and
    # scipy.sparse, with scipy.linalg, 24 MB more).
    from scipy.optimize import curve_fit

    x = np.linspace(0, spread * 3, 300)
    y = np.where(x < min_dist, 1.0, np.exp(-(x - min_dist) / spread))
    (a, b), _ = curve_fit(lambda x, a, b: 1.0 / (1.0 + a * x ** (2 * b)), x, y)
    return float(a), float(b)


def pca_layout(vectors: np.ndarray) -> np.ndarray:
    """The first two principal components of the rows."""
    centred = vectors.astype(np.float32) - vectors.mean(axis=0, dtype=np.float64)
    _, _, vt = np.linalg.svd(centred.T @ centred)
    return (centred @ vt[:2].T.astype(np.float32)).astype(np.float32)


def optimise(graph: sp.csr_matrix, start: np.ndarray, epochs: int = EPOCHS,
             negatives: int = NEGATIVES, min_dist: float = MIN_DIST,
             learning_rate: float = LEARNING_RATE, normalise: bool = True,
             seed: int = SEED, fixed: np.ndarray | None = None) -> np.ndarray:
    """UMAP's optimisation with every point moving at once: in an epoch, each edge whose turn
    it is (an edge of weight w every max(w) / w epochs) attracts its two ends and repels its
    head from `negatives` random points; a point moves by the mean (`normalise`, else the
    sum) of its clipped forces times a learning rate falling linearly to 0. `fixed` rows
    (bool mask) never move."""
    a, b = curve(min_dist)
    rng = np.random.default_rng(seed)
    coo = graph.tocoo()
    keep = coo.data >= coo.data.max() / epochs
    head, tail, weight = coo.row[keep], coo.col[keep], coo.data[keep]
    n = graph.shape[0]
    y = np.array(start, dtype=np.float32)
    y = 10 * (y - y.mean(axis=0)) / np.abs(y - y.mean(axis=0)).max()
    y += rng.normal(scale=1e-4, size=y.shape).astype(np.float32)
    period = weight.max() / weight
    next_epoch = period.copy()
    movable = None if fixed is None else (~fixed)[:, None]
    for epoch in range(epochs):
        alpha = learning_rate * (1 - epoch / epochs)
        due = next_epoch <= epoch + 1
        next_epoch[due] += period[due]
        i, j = head[due], tail[due]
        diff = y[i] - y[j]
        d2 = (diff * diff).sum(axis=1)
        coeff = np.where(d2 > 0, -2 * a * b * np.power(d2, b - 1) / (a * np.power(d2, b) + 1), 0)
        pull = np.clip(coeff[:, None] * diff, -4, 4).astype(np.float32)
        ni = np.repeat(i, negatives)
        nk = rng.integers(0, n, size=len(ni))
        diff_n = y[ni] - y[nk]
        d2n = (diff_n * diff_n).sum(axis=1)
        coeff_n = 2 * b / ((0.001 + d2n) * (a * np.power(d2n, b) + 1))
        push = np.where(d2n[:, None] > 0, np.clip(coeff_n[:, None] * diff_n, -4, 4), 4)
        push[ni == nk] = 0
        move = np.zeros((n, 2), dtype=np.float64)
        for axis in range(2):
            move[:, axis] = (np.bincount(i, pull[:, axis], n) - np.bincount(j, pull[:, axis], n)
                             + np.bincount(ni, push[:, axis], n))
        if normalise:
            count = (np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
                     + np.bincount(ni, minlength=n))
            move /= np.maximum(count, 1)[:, None]
        if movable is not None:
            move *= movable
        y += (alpha * move).astype(np.float32)
    return y


def layout(vectors: np.ndarray, live: np.ndarray, k: int = NEIGHBOURS,
           epochs: int = EPOCHS) -> np.ndarray:
    """2-D positions of the live rows of `vectors` (unit rows, one per document number):
    float32 (documents x 2), NaN for the rows not live. At most `SAMPLE` of them (a fixed
    random choice) are laid out, the others placed beside them. Deterministic."""
    out = np.full((len(vectors), 2), np.nan, dtype=np.float32)
    rows = np.flatnonzero(live)
    if len(rows) <= k + 1:
        if len(rows):
            out[rows] = pca_layout(vectors[rows]) if len(rows) > 2 else 0
        return out
    rng = np.random.default_rng(SEED)
    laid = np.sort(rng.choice(rows, SAMPLE, replace=False)) if len(rows) > SAMPLE else rows
    kept = vectors[laid].astype(np.float32)
    index, sims = knn(kept, k)
    graph = fuzzy_graph(index, sims)
    out[laid] = optimise(graph, pca_layout(kept), epochs)
    rest = np.setdiff1d(rows, laid)
    if len(rest):
        out[rest] = place(vectors[rest], vectors, out, live)
    return out


def place(new: np.ndarray, vectors: np.ndarray, positions: np.ndarray,
          live: np.ndarray) -> np.ndarray:
    """Positions for papers not laid out, without moving the others: beside the most similar
    placed paper (measured better than the mean of its 5, 15 or 30 nearest), a little apart
    from it."""
    rows = np.flatnonzero(live & ~np.isnan(positions[:, 0]))
    index, _ = knn(vectors[rows], 1, queries=new)
    spread = np.nanstd(positions[rows], axis=0) * PLACED_APART
    offsets = np.random.default_rng(SEED).normal(size=(len(new), 2)) * spread
    return (positions[rows][index[:, 0]] + offsets).astype(np.float32)


def unit_square(positions: np.ndarray) -> np.ndarray:
    """Positions scaled into [0, 1]² (both axes alike), the farthest 0.1 % held at the edge."""
    placed = positions[~np.isnan(positions[:, 0])]
    if not len(placed):
        return positions
    low, high = np.percentile(placed, [0.1, 99.9], axis=0)
    scale = max(float((high - low).max()), 1e-9)
    centre = (low + high) / 2
    return np.clip((positions - centre) / scale + 0.5, 0, 1).astype(np.float32)


def write_layout(directory: Path, relayout: bool = True) -> None:
    """Lay the generation's papers out, or (`relayout` False, after an update) keep every
    paper's place and place the new ones."""
    if not (directory / VECTORS_FILE).exists():  # no paper with a word to place by
        return
    ix = open_index(directory)
    try:
        with ix.searcher() as searcher:
            ids = list(searcher.reader().column_reader("id"))
    finally:
        ix.close()
    found = read_vectors(directory, len(ids))
    if found is None:
        return
    live = found.any(axis=1)
    before = None if relayout else _read(directory)
    if before is None:
        positions = unit_square(layout(found, live))
    else:
        place_of = dict(zip(before[1], before[0], strict=True))
        positions = np.full((len(ids), 2), np.nan, dtype=np.float32)
        for doc, pid in enumerate(ids):
            if live[doc] and pid in place_of:
                positions[doc] = place_of[pid]
        new = np.flatnonzero(live & np.isnan(positions[:, 0]))
        if len(new):
            positions[new] = np.clip(place(found[new], found, positions, live), 0, 1)
    tmp = directory / f".{MAP_FILE}.tmp.npz"
    np.savez(tmp, xy=positions, ids=np.array(ids))
    os.replace(tmp, directory / MAP_FILE)


def _read(directory: Path) -> tuple[np.ndarray, list[str]] | None:
    try:
        with np.load(directory / MAP_FILE) as found:
            return found["xy"], [str(pid) for pid in found["ids"]]
    except (OSError, KeyError, ValueError):
        return None


@dataclass(frozen=True)
class MapLayout:
    """An opened generation's places."""

    positions: np.ndarray  # each document's place in [0, 1]², NaN where deleted

    @cached_property
    def placed(self) -> np.ndarray:
        """The documents that have a place (deleted ones have none)."""
        return ~np.isnan(self.positions[:, 0])


def read_layout(directory: Path, documents: int) -> MapLayout | None:
    """The generation's places, or None: not drawn yet."""
    found = _read(directory)
    return MapLayout(found[0]) if found is not None and len(found[0]) == documents else None


def opened_layout(parts: Mapping[str, object]) -> MapLayout | None:
    """The places of an opened generation (`OpenIndex.parts`), or None: not drawn yet."""
    layout = parts[MAP_PART.name]
    assert layout is None or isinstance(layout, MapLayout)
    return layout


# Laid out from the vectors, so made after them; no search waits for it (`Held.deferred`).
MAP_PART = Held("positions", (MAP_FILE,), derive=write_layout, open=read_layout,
                deferred=True, after="vectors")
