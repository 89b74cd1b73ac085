"""Relevance on ICLR abstracts judged by their authors' keywords, beside SQLite FTS5.

    .venv/bin/python -m bench.relevance.keywords [--queries 150] [--headline-boosts 0.5,1,2]
        [--proximity-weights 0,0.3,1]

The ICLR papers of ../shared/corpus/ml-abstracts.jsonl.gz (titles and abstracts; their
keywords are left out of the catalog, as they are the judgments) are ingested into a fresh
catalog. Each query is an author keyword that 5 to 150 papers carry, the most common first;
a paper is relevant when its authors gave it that keyword. Printed: nDCG@10, P@5 and
recall@10 (of min(10, relevant)) for the catalog's search at each headline boost and
proximity weight tried, and for FTS5 (bm25 over title and abstract) with all words and with
any word.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path

from sqlmodel import Session

from app.config import Settings
from app.db import get_engine
from app.ingest.load import ingest_paths
from app.search import expand, proximity
from app.search.index import build_index
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.load import CORPUS
from bench.relevance.evaluate import ndcg
from bench.run import build_fts5

MIN_PAPERS, MAX_PAPERS = 5, 150


def iclr_rows() -> list[dict]:
    with gzip.open(CORPUS / "ml-abstracts.jsonl.gz", "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [row for row in rows if row["venue"] == "ICLR" and row.get("keywords")]


def judged_queries(rows: list[dict], count: int) -> list[tuple[str, set[str]]]:
    """(keyword, the titles of the papers carrying it), the most common keywords first."""
    papers: dict[str, set[str]] = {}
    for row in rows:
        for keyword in {" ".join(k.lower().split()) for k in row["keywords"]}:
            papers.setdefault(keyword, set()).add(row["title"])
    usable = [(k, t) for k, t in papers.items() if MIN_PAPERS <= len(t) <= MAX_PAPERS
              and len(k) > 2]
    usable.sort(key=lambda kt: (-len(kt[1]), kt[0]))
    return usable[:count]


def build_catalog(rows: list[dict], root: Path) -> Settings:
    source = root / "iclr.jsonl"
    source.write_text("".join(json.dumps({"venue": r["venue"], "year": r["year"],
                                          "title": r["title"], "abstract": r["abstract"]}) + "\n"
                              for r in rows), encoding="utf-8")
    settings = Settings(data_dir=root / "data", seeds_dir=root)
    settings.data_dir.mkdir(parents=True)
    with Session(get_engine(settings.database_url)) as session:
        ingest_paths(session, [source])
        build_index(settings, session)
    return settings


def scores(ranked: list[str], relevant: set[str]) -> tuple[float, float, float]:
    grades = dict.fromkeys(relevant, 1)
    return (ndcg(ranked, grades), len(set(ranked[:5]) & relevant) / min(5, len(relevant)),
            len(set(ranked[:10]) & relevant) / min(10, len(relevant)))


def mean(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--headline-boosts", default=str(expand.HEADLINE_BOOST))
    parser.add_argument("--proximity-weights", default=str(proximity.WEIGHT))
    args = parser.parse_args()
    rows = iclr_rows()
    queries = judged_queries(rows, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        settings = build_catalog(rows, Path(tmp))
        db = sqlite3.connect(settings.database_path)
        title_of = dict(db.execute("SELECT id, title FROM paper"))
        fts = build_fts5(settings, Path(tmp) / "fts5.db")
        results: dict[str, tuple[float, float, float]] = {}
        for joiner, name in ((" AND ", "FTS5 all words"), (" OR ", "FTS5 any word")):
            per_query = []
            for keyword, relevant in queries:
                words = [f'"{w}"' for w in keyword.replace("-", " ").split()]
                ranked = [title_of[pid] for (pid,) in fts.execute(
                    "SELECT id FROM papers WHERE papers MATCH ? ORDER BY bm25(papers) LIMIT 10",
                    [joiner.join(words)])]
                per_query.append(scores(ranked, relevant))
            results[name] = mean(per_query)
        for boost in (float(b) for b in args.headline_boosts.split(",")):
            for weight in (float(w) for w in args.proximity_weights.split(",")):
                expand.HEADLINE_BOOST, proximity.WEIGHT = boost, weight
                search = PaperSearch(settings.index_path, result_cache=0)
                per_query = []
                for keyword, relevant in queries:
                    result = search.search(SearchRequest(q=keyword), lambda ids: {})
                    ranked = [title_of[hit.id] for hit in [*result.hits, *result.partial]]
                    per_query.append(scores(ranked, relevant))
                search.close()
                results[f"catalog, headline {boost:g}, proximity {weight:g}"] = mean(per_query)
    counts = Counter(len(r) for _, r in queries)
    print(f"{len(rows)} ICLR papers, {len(queries)} keyword queries "
          f"({min(counts)}-{max(counts)} relevant papers each)")
    print(f"{'':34} {'nDCG@10':>8} {'P@5':>6} {'R@10':>6}")
    for name, (n, p, r) in results.items():
        print(f"{name:34} {n:8.3f} {p:6.3f} {r:6.3f}")


if __name__ == "__main__":
    main()
