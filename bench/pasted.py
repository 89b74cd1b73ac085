"""Papers like a pasted text (issue 22): does pasting a paper's abstract into the search box find
that paper first, and its related papers after it, and how fast?

    .venv/bin/python -m bench.pasted --catalog DATA_DIR [--papers 200]
    make bench                                  # printed after the L figures

For a fixed sample of the catalog's papers with abstracts of more than 40 words, the abstract
(its plain text, as a reader would paste it) is searched as a query, first time each (no
result cache). Printed: the share of pastes whose first hit is the paper itself, the mean
reciprocal rank of the paper in the first 10, how many of the paper's related papers (the
paper page's five) are among the next 10 hits, and the search time (p50 / p95; target p95
<= 150 ms at L).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np
from sqlmodel import Session, select

from app.config import Settings, get_settings
from app.db import get_engine
from app.models import Paper
from app.search.query.pasted import PASTED_TEXT_WORDS
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch

SAMPLE_SEED = 22
P95_TARGET_MS = 150


def measure_pasted(settings: Settings, papers: int = 200) -> dict:
    with Session(get_engine(settings.database_url)) as session:
        rows = session.exec(select(Paper.id, Paper.plain).order_by(Paper.id)).all()
        plains = dict(rows)
    usable = sorted(pid for pid, plain in rows if len(plain.split()) > PASTED_TEXT_WORDS)
    sample = random.Random(SAMPLE_SEED).sample(usable, min(papers, len(usable)))
    search = PaperSearch(settings.index_path)
    search.warm()
    texts = lambda ids: {pid: plains.get(pid, "") for pid in ids}  # noqa: E731
    first = reciprocal = related_found = related_total = 0.0
    times: list[float] = []
    for paper_id in sample:
        started = time.perf_counter()
        result = search.search(SearchRequest(q=plains[paper_id]), texts)
        times.append((time.perf_counter() - started) * 1000)
        found = [hit.id for hit in result.hits[:11]]
        first += bool(found) and found[0] == paper_id
        reciprocal += 1 / (found.index(paper_id) + 1) if paper_id in found[:10] else 0
        related = [r.id for r in search.related(paper_id, plains[paper_id], texts)]
        related_found += len(set(related) & set(found[1:11]))
        related_total += len(related)
    search.close()
    return {"papers": len(sample), "first": first / len(sample),
            "mrr": reciprocal / len(sample),
            "related_share": related_found / related_total if related_total else 0.0,
            "ms": {"p50": round(float(np.percentile(times, 50)), 1),
                   "p95": round(float(np.percentile(times, 95)), 1)}}


def print_pasted(report: dict) -> None:
    ms = report["ms"]
    print(f"\n### Papers like a pasted abstract ({report['papers']} abstracts)\n")
    print("| paper first | MRR@10 | related papers among the next 10 | p50 ms | p95 ms |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {report['first']:.1%} | {report['mrr']:.3f} | {report['related_share']:.1%} | "
          f"{ms['p50']} | {ms['p95']} (target <= {P95_TARGET_MS}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, required=True, help="the catalog's data dir")
    parser.add_argument("--papers", type=int, default=200)
    args = parser.parse_args()
    settings = Settings(data_dir=args.catalog.resolve(), seeds_dir=get_settings().seeds_dir)
    print_pasted(measure_pasted(settings, args.papers))


if __name__ == "__main__":
    main()
