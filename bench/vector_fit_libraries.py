"""The paper vectors' fit (app/search/index/vector_fit.py) against scikit-learn's
TfidfVectorizer and TruncatedSVD (issue 60): time, peak memory and the quality of the
neighbours they give.

    python -m bench.vector_fit_libraries --data /tmp/L --work /tmp/vector-fits \
        [--methods ours sklearn sklearn-svd] [--lists 150] [--pasted 300]

scikit-learn is not a dependency of the catalog: install it in a virtualenv of its own
(`python3 -m venv /tmp/mvenv && /tmp/mvenv/bin/pip install -e . scikit-learn`) and run this
with its python. `--data` (a full-corpus catalog) is only read.

Methods, each fitted in a child process of its own (one at a time, its vectors kept in
`--work`): `ours`, vector_fit's steps as a build runs them (the index's posting arrays, the
TF-IDF matrix, the randomized SVD; nothing written to the generation); `sklearn`, the papers'
text as the index's text field holds it (title, keywords, plain abstract) read from the
database, TfidfVectorizer(sublinear_tf, min_df 2, max_df 0.5; its own tokenizer) and
TruncatedSVD (its defaults: randomized, 5 power iterations, 10 oversamples) to as many
dimensions as ours; `sklearn-svd`, our TF-IDF matrix with scikit-learn's TruncatedSVD. All are
centred and made unit length as vector_fit does.

Quality, as bench/recommend.py judges it (ICLR author keywords):
- on the catalog of `--data`: among its ICLR papers, P@10 of a paper's nearest ICLR papers by
  cosine (relevant when it shares an author keyword; every ICLR paper with a keyword) and of
  the nearest to the mean of 3 papers sharing a keyword (bench.recommend's judged lists).
  The L catalog's text field holds the ICLR keywords, so both methods read the judgments
  here: the ICLR catalog below does not;
- topic@10 and area@10 of the vectors (bench/map_variants.py);
- on bench/recommend.py's own ICLR catalog (built here without keywords, no sentence
  vectors): each method fitted on it too, its vectors put in place of the catalog's, and
  P@10 of the catalog's related papers and recommendations (without the encoder) and of the
  vectors alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from app.search.index.vectors import VECTORS_FILE, unit_rows

TIMEOUT = 25 * 60
TOP = 10


def document_ids(directory: Path) -> list[str]:
    from app.search.index.whoosh import open_index

    ix = open_index(directory)
    try:
        with ix.searcher() as searcher:
            return list(searcher.reader().column_reader("id"))
    finally:
        ix.close()


def dimensions(papers: int) -> int:
    from app.search.index.vector_fit import DIMENSIONS

    return max(1, min(DIMENSIONS, int(np.sqrt(papers))))


def centred(projected: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """As vector_fit writes them: unit rows, the mean of the non-empty taken away, unit."""
    projected = unit_rows(projected.astype(np.float32))
    mean = projected[~empty].mean(axis=0)
    vectors = unit_rows(projected - mean)
    vectors[empty] = 0
    return vectors


def truncated_svd(matrix, k: int) -> np.ndarray:
    from sklearn.decomposition import TruncatedSVD

    return TruncatedSVD(n_components=k, random_state=0).fit_transform(matrix)


def fit(method: str, directory: Path, database: Path) -> tuple[np.ndarray, dict[str, float]]:
    """One method's vectors for the generation `directory`, and its steps' seconds."""
    steps: dict[str, float] = {}
    started = time.perf_counter()

    def step(name: str) -> None:
        nonlocal started
        steps[name] = time.perf_counter() - started
        started = time.perf_counter()

    if method in ("ours", "sklearn-svd"):
        from app.search.index import vector_fit
        from app.search.index.whoosh import open_index

        ix = open_index(directory)
        try:
            with ix.searcher() as searcher:
                fields, live = vector_fit._postings(searcher)
        finally:
            ix.close()
        terms, idf = vector_fit._vocabulary(fields, int(live.sum()))
        matrix = vector_fit._tfidf(fields, live, terms, idf)
        step("tfidf_s")
        empty = np.diff(matrix.indptr) == 0
        if method == "ours":
            _, projected = vector_fit._fit(matrix, terms, idf, live)
        else:
            projected = truncated_svd(matrix, dimensions(int(live.sum())))
        step("svd_s")
        steps["terms"] = len(terms)
        return centred(projected, empty), steps
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids = document_ids(directory)
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    text = {pid: "\n".join([*([title] if title else []), *filter(None, keywords.split("\n")),
                            plain])
            for pid, title, keywords, plain in db.execute(
                "SELECT id, title, keywords, plain FROM paper")}
    db.close()
    texts = [text.get(pid, "") for pid in ids]
    step("read_s")
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2, max_df=0.5, dtype=np.float32)
    matrix = vectorizer.fit_transform(texts)
    step("tfidf_s")
    projected = truncated_svd(matrix, dimensions(sum(map(bool, texts))))
    step("svd_s")
    steps["terms"] = len(vectorizer.vocabulary_)
    return centred(projected, np.diff(matrix.indptr) == 0), steps


def run_fit(method: str, directory: Path, database: Path, out: Path) -> None:
    """In this process: one fit, its vectors saved and its costs beside them."""
    wall, cpu = time.perf_counter(), time.process_time()
    vectors, steps = fit(method, directory, database)
    costs = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
             "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **steps}
    np.save(out, vectors)
    out.with_suffix(".json").write_text(json.dumps(costs))
    print(json.dumps(costs), flush=True)


def fitted(methods: list[str], directory: Path, database: Path, work: Path) -> dict[str, Path]:
    """Each method's vectors file, fitted in a child unless kept from a run before."""
    work.mkdir(parents=True, exist_ok=True)
    found = {}
    for method in methods:
        out = work / f"{method}.npy"
        if not out.exists():
            print(f"fitting {method} in {directory}", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "bench.vector_fit_libraries", "--fit", method,
                            "--index", str(directory), "--database", str(database),
                            "--out", str(out)], check=True, timeout=TIMEOUT)
        found[method] = out
    return found


def nearest_precision(vectors: np.ndarray, docs: list[int], keywords: list[set[str]],
                      lists: list[tuple[list[int], set[int]]]) -> tuple[float, float]:
    """Among `docs`: P@10 of each paper's nearest (relevant when it shares a keyword; every
    paper with one) and of the nearest to each list's mean (relevant when in its set), by
    cosine; positions in `docs` throughout."""
    rows = vectors[docs]
    single = []
    for i, own in enumerate(keywords):
        if own:
            sims = rows @ rows[i]
            sims[i] = -np.inf
            single.append(np.mean([bool(own & keywords[j]) for j in np.argsort(-sims)[:TOP]]))
    listed = []
    for members, relevant in lists:
        sims = rows @ rows[members].mean(axis=0)
        sims[members] = -np.inf
        listed.append(np.mean([j in relevant for j in np.argsort(-sims)[:TOP]]))
    return float(np.mean(single)), float(np.mean(listed))


def on_live_catalog(data: Path, files: dict[str, Path], count: int) -> None:
    from bench.live_catalog import LiveCatalog
    from bench.map_variants import probes, vector_scores, venue_areas
    from bench.recommend import judged_lists, keyword_groups

    catalog = LiveCatalog(data)
    docs = [doc for doc, row in enumerate(catalog.rows) if row and row["venue"] == "ICLR"]
    rows = [catalog.rows[doc] for doc in docs]
    keywords = keyword_groups(rows)
    at: dict[str, int] = {}
    for i, row in enumerate(rows):
        at.setdefault(row["title"], i)
    lists = [([at[t] for t in titles], {at[t] for t in relevant})
             for titles, relevant in judged_lists(rows, count)]
    chosen, _ = probes(len(catalog.ids), 5000)
    areas = venue_areas(catalog)
    print(f"\nOn {data} ({len(catalog.ids)} papers; the keywords are in the text field): "
          f"{len(docs)} ICLR papers, {sum(map(bool, keywords))} with keywords, "
          f"{len(lists)} lists")
    print(f"{'':14} {'one paper P@10':>14} {'lists of 3 P@10':>15} {'topic@10':>8} "
          f"{'macro':>6} {'area@10':>7} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} steps")
    for method, path in files.items():
        vectors = np.load(path)
        one, three = nearest_precision(vectors, docs, keywords, lists)
        got = vector_scores(vectors, chosen, catalog.topics, areas)
        costs = json.loads(path.with_suffix(".json").read_text())
        print(f"{method:14} {one:14.3f} {three:15.3f} {got['topic10']:8.3f} "
              f"{got['topic10_macro']:6.3f} {got['area10']:7.3f} "
              f"{costs['wall_s']:7.1f} {costs['cpu_s']:7.1f} {costs['peak_rss_mb']:8.0f} "
              + json.dumps({k: round(v, 1) for k, v in costs.items()
                            if k.endswith("_s") and k not in ("wall_s", "cpu_s")})
              + f" terms {costs['terms']:,}", flush=True)


def iclr_precisions(judging, rows: list[dict], count: int,
                    pasted: int) -> tuple[float, float, float, float]:
    """P@10 of the related papers and recommendations (without the encoder) and of the
    vectors alone, on bench.recommend's judged lists; and of the vectors alone from single
    papers (bench.recommend's sample, a paper relevant when it shares a keyword)."""
    from bench.neighbour_baselines import ranked
    from bench.recommend import (
        NO_MEANING,
        judged_lists,
        keywords_by_title,
        pasted_sample,
        precision,
        shared_precision,
        with_weights,
    )

    search, plain, texts, id_of, title_of = (judging.search, judging.plain, judging.texts,
                                             judging.id_of, judging.title_of)
    lists = [(t, r) for t, r in judged_lists(rows, count) if all(x in id_of for x in t)]
    alone = ranked(vector_scorer(search), TOP)
    related = with_weights(lambda ids: [r.id for r in search.related(
        ids[0], plain[ids[0]], texts, limit=TOP + 3)], **NO_MEANING)
    recommend = with_weights(lambda ids: [r.id for r in search.recommend(
        ids, texts, limit=TOP + 3)], **NO_MEANING)
    keywords = keywords_by_title(rows)
    one = shared_precision(lambda pid: alone([pid]), pasted_sample(judging, keywords, pasted),
                           lambda pid: keywords.get(title_of[pid], set()))[0]
    return (precision(related, lists, id_of, title_of)[0],
            precision(recommend, lists, id_of, title_of)[0],
            precision(alone, lists, id_of, title_of)[0], one)


def on_iclr_catalog(work: Path, methods: list[str], count: int, pasted: int) -> None:
    """bench/recommend.py's ICLR catalog (no keywords), each method's vectors in turn."""
    from app.config import Settings
    from bench.recommend import Judging
    from bench.relevance.keywords import build_catalog, iclr_rows

    rows = iclr_rows()
    root = work / "iclr"
    if not (root / "data" / "catalog.db").exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        build_catalog(rows, root)
    settings = Settings(data_dir=root / "data", seeds_dir=root)
    generation = settings.index_path.resolve()
    kept = work / "iclr-catalog-vectors.npy"
    if not kept.exists():
        shutil.copy(generation / VECTORS_FILE, kept)
    put_vectors(kept, generation)
    files = fitted(methods, generation, settings.database_path, work / "iclr-fits")
    print(f"\nbench/recommend.py's ICLR catalog ({len(rows)} papers, no keywords, no sentence "
          f"vectors): P@10")
    print(f"{'':14} {'related':>8} {'recommend':>9} {'vectors, lists of 3':>19} "
          f"{'vectors, one paper':>18} {'fit s':>6}")
    for method, path in files.items():
        put_vectors(path, generation)
        judging = Judging.open(settings, work / f"fts5-{method}.db")
        try:
            found = iclr_precisions(judging, rows, count, pasted)
        finally:
            judging.close()
            (work / f"fts5-{method}.db").unlink(missing_ok=True)
        costs = json.loads(path.with_suffix(".json").read_text())
        print(f"{method:14} " + " ".join(f"{p:{w}.3f}" for p, w in zip(
            found, (8, 9, 19, 18), strict=True)) + f" {costs['wall_s']:6.1f}", flush=True)
    put_vectors(kept, generation)


def put_vectors(path: Path, generation: Path) -> None:
    """The vectors of `path` in place of the generation's (a catalog this bench built), its
    manifest listing them: a file unlike the manifest's marks the generation damaged."""
    from app.search.index.manifest import DAMAGED_FILE, write_manifest

    shutil.copy(path, generation / VECTORS_FILE)
    (generation / DAMAGED_FILE).unlink(missing_ok=True)
    write_manifest(generation, None)


def vector_scorer(search):
    """Each paper's cosine with the unit mean of the listed papers' vectors (vectors.npy)."""
    def score(listed: list[str]) -> dict[str, float]:
        def cosines(current) -> dict[str, float]:
            docs = [current.searcher.document_number(id=pid) for pid in listed]
            mean = current.vectors[docs].mean(axis=0)
            found = current.vectors @ (mean / (np.linalg.norm(mean) or 1))
            return {current.ids[doc]: float(found[doc]) for doc in range(len(found))}

        return search.with_index(cosines, {})

    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a full-corpus catalog's data directory")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--methods", nargs="*", default=["ours", "sklearn", "sklearn-svd"])
    parser.add_argument("--lists", type=int, default=150)
    parser.add_argument("--pasted", type=int, default=300)
    parser.add_argument("--skip-iclr", action="store_true")
    parser.add_argument("--fit", help=argparse.SUPPRESS)  # the child's one method
    parser.add_argument("--index", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--database", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fit:
        run_fit(args.fit, args.index, args.database, args.out)
        return
    # The ICLR catalog's fits first: a child's peak RSS starts from its parent's at the fork
    # (Linux), so no child is started once the L catalog's vectors are loaded.
    if not args.skip_iclr:
        on_iclr_catalog(args.work, args.methods, args.lists, args.pasted)
    files = fitted(args.methods, (args.data / "index").resolve(), args.data / "catalog.db",
                   args.work / "live-fits")
    on_live_catalog(args.data, files, args.lists)


if __name__ == "__main__":
    main()
