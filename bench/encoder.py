"""The numpy sentence encoder (app/meaning/encoder.py) against sentence-transformers on the
same texts, in one run: papers ("title. abstract" at 128 word pieces, batched) and queries
(two or three words of a title, one at a time, as a search encodes them); texts a second,
the ratio, the numpy side's peak memory and the largest cosine gap between the two.

    /tmp/stvenv/bin/pip install httpx  # the venv of bench/encoder_reference.py, for bench.load
    PYTHONPATH=. /tmp/stvenv/bin/python -m bench.encoder [--papers 2000] [--queries 500]
        [--threads 2] [--rounds 10]

The numpy side runs in a process of its own that never imports torch, so its peak RSS is its
own; both sides get `--threads` threads (the encoder's, each with one BLAS thread; torch's).
The two take turns, a round of papers and queries each, so that a load that other processes
put on the machine meanwhile weighs on both alike. Without sentence-transformers (the
catalog's .venv) only the numpy side is measured.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import tempfile
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from bench.load import CORPUS, first_records, title_queries

PAPER_TOKENS = 128
QUERY_TOKENS = 256
BATCH = 32

Encode = Callable[[list[str], int], np.ndarray]
_numpy_encoder: Any = None  # the child's encoder, loaded once by _load_numpy


def paper_texts(count: int) -> list[str]:
    """The first `count` papers of the corpus, as "title. abstract"."""
    records = islice(first_records(CORPUS / "ml-abstracts.jsonl.gz"), count)
    return [f"{record['title']}. {record['abstract']}" for record in records]


def timed_round(encode: Encode, papers: list[str], queries: list[str]) -> dict:
    """Papers in one call, then each query alone: the vectors and the seconds of each."""
    started = time.perf_counter()
    paper_vectors = encode(papers, PAPER_TOKENS)
    paper_seconds = time.perf_counter() - started
    vectors, latencies = [], []
    for query in queries:
        started = time.perf_counter()
        vectors.append(encode([query], QUERY_TOKENS))
        latencies.append(time.perf_counter() - started)
    return {"papers": paper_vectors, "queries": np.vstack(vectors),
            "paper seconds": paper_seconds, "query seconds": latencies}


def _load_numpy(cache: str, threads: int) -> None:
    global _numpy_encoder
    from app.meaning.encoder import Encoder

    _numpy_encoder = Encoder.load(Path(cache), threads=threads)
    _numpy_encoder.encode(["warm"])  # the first call's page faults and allocations aside


def _numpy_round(papers: list[str], queries: list[str]) -> dict:
    return timed_round(lambda texts, tokens: _numpy_encoder.encode(texts, tokens, BATCH),
                       papers, queries)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sentence_transformers_encode(into: Path, threads: int) -> Encode | None:
    try:
        from bench.encoder_reference import sentence_transformer
        model = sentence_transformer(into, threads)
    except ImportError:
        return None

    def encode(texts: list[str], max_tokens: int) -> np.ndarray:
        model.max_seq_length = max_tokens
        return model.encode(texts, batch_size=BATCH, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False)

    encode(["warm"], QUERY_TOKENS)
    return encode


def _joined(rounds: list[dict]) -> dict:
    latencies = [seconds for found in rounds for seconds in found["query seconds"]]
    return {"papers": np.vstack([found["papers"] for found in rounds]),
            "queries": np.vstack([found["queries"] for found in rounds]),
            "papers/s": sum(len(found["papers"]) for found in rounds)
            / sum(found["paper seconds"] for found in rounds),
            "queries/s": len(latencies) / sum(latencies),
            "query ms (median)": 1000 * float(np.median(latencies))}


def report(ours: dict, theirs: dict | None) -> None:
    print(f"{'':20}{'numpy':>9}{'torch+ST':>10}{'numpy/ST':>10}")
    for row, faster in (("papers/s", 1), ("queries/s", 1), ("query ms (median)", -1)):
        line = f"{row:20}{ours[row]:9.1f}"
        if theirs is not None:  # the ratio is of speeds: above 1, numpy is faster
            line += f"{theirs[row]:10.1f}{(ours[row] / theirs[row]) ** faster:10.2f}"
        print(line)
    print(f"numpy side: peak RSS {ours['peak RSS MB']:.0f} MB, first load (extracting) "
          f"{ours['load s']:.1f} s")
    if theirs is not None:
        print(f"torch side: peak RSS {_peak_rss_mb():.0f} MB (this process: the texts too)")
        gaps = [1 - np.einsum("ij,ij->i", ours[kind], theirs[kind]).min()
                for kind in ("papers", "queries")]
        print(f"largest cosine gap to sentence-transformers: papers {gaps[0]:.1e}, "
              f"queries {gaps[1]:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=10)
    arguments = parser.parse_args()
    papers, queries = paper_texts(arguments.papers), title_queries(arguments.queries)
    rounds = arguments.rounds
    print(f"{len(papers)} papers at {PAPER_TOKENS} word pieces, {len(queries)} queries, "
          f"{arguments.threads} threads, {rounds} rounds each")
    with tempfile.TemporaryDirectory() as cache, \
            multiprocessing.get_context("spawn").Pool(1) as child:
        started = time.perf_counter()
        child.apply(_load_numpy, (cache, arguments.threads))
        loaded = time.perf_counter() - started
        theirs = sentence_transformers_encode(Path(cache) / "st", arguments.threads)
        ours_rounds, their_rounds = [], []
        for at in range(rounds):
            part = (papers[at::rounds], queries[at::rounds])
            ours_rounds.append(child.apply(_numpy_round, part))
            if theirs is not None:
                their_rounds.append(timed_round(theirs, *part))
        ours = _joined(ours_rounds) | {"peak RSS MB": child.apply(_peak_rss_mb), "load s": loaded}
    report(ours, _joined(their_rounds) if theirs is not None else None)


if __name__ == "__main__":
    main()
