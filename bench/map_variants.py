"""The map laid out other ways, scored as bench/paper_map.py scores the catalog's: from the
sentence vectors (`meaning.npy`) or both kinds of vectors with the same layout code
(app/map/layout.py, issue 59), and by umap-learn or openTSNE instead of app/map/layout.py
(issue 60), on a full-corpus catalog's live generation, which is only read.

    python -m bench.map_variants --data /tmp/L --work /tmp/map-variants \
        [--methods ours:lsa ours:meaning ...] [--probes 5000]

umap-learn and openTSNE are not dependencies of the catalog: install them in a virtualenv of
their own (`python3 -m venv /tmp/mvenv && /tmp/mvenv/bin/pip install -e . umap-learn
openTSNE`) and run this with its python; the `ours:` methods need neither.

Each layout runs in a child process (one at a time; its positions kept in `--work`, so a
second run only scores): wall and CPU seconds of the layout, the child's peak RSS, and its RSS
before the layout (Python, numpy and the vectors loaded). Scores, on `--probes` papers
(fixed seed, as bench/paper_map.py): preservation (the share of a paper's 10 nearest on the
map among its 50 nearest by the vectors named), topic@10 (the share of its 10 nearest on the
map with its primary topic; macro: the mean over topics), and area@10: for the AAAI and IJCAI
papers, which carry their venue's own `primary_area` (bench/topics.py), the share of the
10 nearest papers of the same venue on the map with the same area: a label that no topic
phrase and no vector was fitted on.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.map.layout import SAMPLE, SEED, knn, layout, place, unit_square
from bench.live_catalog import EVALUATION_VENUES, LiveCatalog
from bench.paper_map import nearest_2d
from bench.topics import GROUPS

LSA, MEANING = "vectors.npy", "meaning.npy"
TIMEOUT = 25 * 60
# openTSNE's threads (umap-learn, seeded, takes one); run with OPENBLAS_NUM_THREADS=1 and
# BENCH_THREADS=1 to compare CPU seconds on a busy machine, where BLAS threads spin.
THREADS = int(os.environ.get("BENCH_THREADS", "2"))


def unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.where(norms > 0, norms, 1)).astype(np.float32)


def inputs(catalog: LiveCatalog, name: str) -> np.ndarray:
    """The vectors a layout starts from: "lsa", "meaning", or "both" (each unit, side by
    side, of unit length: the mean of the two cosines)."""
    if name == "both":
        return unit(np.hstack([catalog.vectors(LSA), catalog.vectors(MEANING)]))
    return unit(catalog.vectors({"lsa": LSA, "meaning": MEANING}[name]))


def ours(vectors: np.ndarray) -> np.ndarray:
    return layout(vectors, vectors.any(axis=1))


def sampled(lay_out: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """A library's layout of the same `SAMPLE` papers ours lays out, the others placed as ours
    places them (`layout.place`)."""
    def run(vectors: np.ndarray) -> np.ndarray:
        rows = np.flatnonzero(vectors.any(axis=1))
        laid = np.sort(np.random.default_rng(SEED).choice(rows, SAMPLE, replace=False))
        out = np.full((len(vectors), 2), np.nan, dtype=np.float32)
        out[laid] = lay_out(vectors[laid])
        live = np.zeros(len(vectors), bool)
        live[rows] = True
        rest = np.setdiff1d(rows, laid)
        out[rest] = place(vectors[rest], vectors, out, live)
        return out

    return run


def umap_learn(vectors: np.ndarray) -> np.ndarray:
    """umap-learn with the parameters ours copies (k 15, min_dist 0.1, cosine), its defaults
    otherwise (spectral start, 200 epochs above 10,000 points); seeded, so one thread."""
    import umap

    return umap.UMAP(n_neighbors=15, min_dist=0.1, metric="cosine",
                     random_state=SEED).fit_transform(vectors)


def open_tsne(vectors: np.ndarray) -> np.ndarray:
    """openTSNE's defaults (perplexity 30, PCA start, FFT gradients) with cosine."""
    from openTSNE import TSNE

    return np.asarray(TSNE(metric="cosine", n_jobs=THREADS, random_state=SEED).fit(vectors))


LAYOUTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "ours": ours, "umap": umap_learn, "umap-sample": sampled(umap_learn),
    "opentsne": open_tsne, "opentsne-sample": sampled(open_tsne),
}


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def lay_out(data: Path, method: str, out: Path) -> None:
    """In this process: one layout (`kind:vectors`), its positions saved, its costs printed."""
    kind, vectors_name = method.split(":")
    vectors = inputs(LiveCatalog(data), vectors_name)
    compile_s = 0.0
    if kind.startswith("umap"):  # numba compiles on first use: timed apart, on 2,000 papers
        started = time.perf_counter()
        umap_learn(vectors[np.random.default_rng(1).choice(len(vectors), 2000, replace=False)])
        compile_s = time.perf_counter() - started
    before = rss_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    positions = unit_square(LAYOUTS[kind](vectors).astype(np.float32))
    costs = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
             "warmup_s": compile_s, "rss_before_mb": before,
             "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    np.save(out, positions)
    out.with_suffix(".json").write_text(json.dumps(costs))
    print(json.dumps(costs))


def venue_areas(catalog: LiveCatalog) -> np.ndarray:
    """Each document's venue area ("" where it has none), grouped as bench/topics.py groups
    them, prefixed by its venue so that AAAI's and IJCAI's stay apart."""
    return np.array([f"{row['venue']}:{GROUPS.get(row['primary_area'], row['primary_area'])}"
                     if row and row["venue"] in EVALUATION_VENUES and row.get("primary_area")
                     else "" for row in catalog.rows])


def area_at_10(areas: np.ndarray, nearest: Callable[[np.ndarray], np.ndarray]) -> float:
    """The share of the 10 nearest papers of the same venue with the same area, over the
    papers with an area; `nearest(rows)` gives each of `rows`' 10 nearest among `rows`."""
    same = []
    for venue in EVALUATION_VENUES:
        rows = np.flatnonzero(np.char.startswith(areas, f"{venue}:"))
        near = nearest(rows)
        same.append(areas[rows][near] == areas[rows][:, None])
    return float(np.concatenate(same).mean())


def topic_shares(topics: np.ndarray, chosen: np.ndarray,
                 near: np.ndarray) -> tuple[float, float]:
    """The share of the `chosen` papers' `near` papers with their primary topic, over all
    of them and (macro) the mean over topics."""
    own = topics[chosen]
    same = topics[near] == own[:, None]
    return float(same.mean()), float(np.mean([same[own == t].mean() for t in np.unique(own)]))


def vector_scores(vectors: np.ndarray, chosen: np.ndarray, topics: np.ndarray,
                  areas: np.ndarray) -> dict[str, float]:
    """topic@10 (and macro) and area@10 of the vectors' own 10 nearest by cosine."""
    near = knn(vectors, 11, queries=vectors[chosen])[0]  # the paper itself among them
    near = np.array([[d for d in row if d != c][:10] for row, c in zip(near, chosen,
                                                                         strict=True)])
    found = dict(zip(("topic10", "topic10_macro"), topic_shares(topics, chosen, near),
                     strict=True))
    found["area10"] = area_at_10(areas, lambda rows: knn(vectors[rows], 10)[0])
    return found


def probes(papers: int, count: int) -> tuple[np.ndarray, np.random.Generator]:
    """bench/paper_map.py's probes (fixed seed), and its generator to draw on."""
    rng = np.random.default_rng(0)
    return rng.choice(papers, min(count, papers), replace=False), rng


class Scoring:
    """The fixed probes and the vectors' own neighbours, shared by every layout scored."""

    def __init__(self, catalog: LiveCatalog, count: int) -> None:
        self.topics, self.areas = catalog.topics, venue_areas(catalog)
        self.chosen, rng = probes(len(self.topics), count)
        self.random = rng.random((len(self.topics), 2))
        self.vectors = {name: inputs(catalog, name) for name in ("lsa", "meaning", "both")}
        self.truth = {name: knn(self.vectors[name], 51,
                                queries=self.vectors[name][self.chosen])[0][:, 1:]
                      for name in ("lsa", "meaning")}

    def of_map(self, xy: np.ndarray) -> dict[str, float]:
        near = nearest_2d(xy, self.chosen)
        found = {f"preservation_{name}": float(np.mean(
            [len(set(a) & set(b)) / 10 for a, b in zip(near, truth, strict=True)]))
            for name, truth in self.truth.items()}
        found["topic10"], found["topic10_macro"] = topic_shares(self.topics, self.chosen, near)
        found["area10"] = area_at_10(self.areas, lambda rows: nearest_2d(
            xy[rows], np.arange(len(rows))))
        return found

    def of_vectors(self, name: str) -> dict[str, float]:
        return vector_scores(self.vectors[name], self.chosen, self.topics, self.areas)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a catalog's data directory")
    parser.add_argument("--work", type=Path, required=True, help="where positions are kept")
    parser.add_argument("--methods", nargs="*", default=["ours:lsa", "ours:meaning",
                                                         "ours:both"])
    parser.add_argument("--probes", type=int, default=5000)
    parser.add_argument("--lay-out", help=argparse.SUPPRESS)  # the child's one method
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.lay_out:
        lay_out(args.data, args.lay_out, args.work / f"{args.lay_out.replace(':', '-')}.npy")
        return
    for method in args.methods:
        out = args.work / f"{method.replace(':', '-')}.npy"
        if not out.exists():
            print(f"laying out {method}", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "bench.map_variants", "--data", str(args.data),
                            "--work", str(args.work), "--lay-out", method],
                           check=False, timeout=TIMEOUT)
    catalog = LiveCatalog(args.data)
    scoring = Scoring(catalog, args.probes)
    with np.load(catalog.generation / "map.npz") as found:
        maps = {"live map (map.npz)": found["xy"]}
    maps["random"] = scoring.random
    costs = {}
    for method in args.methods:
        out = args.work / f"{method.replace(':', '-')}.npy"
        if out.exists():
            maps[method] = np.load(out)
            costs[method] = json.loads(out.with_suffix(".json").read_text())
    print(f"{len(catalog.ids)} papers, {len(scoring.chosen)} probes; "
          f"{(scoring.areas != '').sum()} AAAI/IJCAI papers with an area")
    print(f"{'':26} {'pres.LSA':>8} {'pres.MiniLM':>11} {'topic@10':>8} {'macro':>6} "
          f"{'area@10':>7} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'before':>7} {'warm-up':>7}")
    for name in ("lsa", "meaning", "both"):
        got = scoring.of_vectors(name)
        print(f"{'vectors: ' + name:26} {'':>8} {'':>11} {got['topic10']:8.3f} "
              f"{got['topic10_macro']:6.3f} {got['area10']:7.3f}")
    for name, xy in maps.items():
        got = scoring.of_map(xy)
        line = (f"{name:26} {got['preservation_lsa']:8.3f} {got['preservation_meaning']:11.3f} "
                f"{got['topic10']:8.3f} {got['topic10_macro']:6.3f} {got['area10']:7.3f}")
        if name in costs:
            c = costs[name]
            line += (f" {c['wall_s']:7.1f} {c['cpu_s']:7.1f} {c['peak_rss_mb']:8.0f} "
                     f"{c['rss_before_mb']:7.0f} {c['warmup_s']:7.1f}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
