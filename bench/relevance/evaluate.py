"""Relevance of search over the seed catalog: precision@5, recall@10 and nDCG@10.

    .venv/bin/python -m bench.relevance.evaluate [--json PATH]

Builds a fresh catalog from seeds/ in a temporary directory (the real ingest, SQLite and Whoosh
index), runs every judged query of judgments.json through PaperSearch and prints the metrics
per query, per kind of query and overall.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlmodel import Session

from app.config import PROJECT_ROOT, Settings
from app.db import get_engine
from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index.sync import build_index
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch

JUDGMENTS = Path(__file__).with_name("judgments.json")


@dataclass
class QueryScore:
    q: str
    kind: str
    precision_at_5: float
    recall_at_10: float
    ndcg_at_10: float
    ranked: list[str]


def ndcg(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** grades.get(pid, 0) - 1) / math.log2(i + 2) for i, pid in enumerate(ranked[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def score_query(q: str, kind: str, ranked: list[str], grades: dict[str, int]) -> QueryScore:
    relevant = set(grades)
    return QueryScore(
        q=q, kind=kind,
        precision_at_5=len(set(ranked[:5]) & relevant) / min(5, len(relevant)),
        recall_at_10=len(set(ranked[:10]) & relevant) / len(relevant),
        ndcg_at_10=ndcg(ranked, grades),
        ranked=ranked[:10],
    )


def build_seed_catalog(root: Path) -> Settings:
    settings = Settings(data_dir=root / "data", seeds_dir=PROJECT_ROOT / "seeds")
    settings.data_dir.mkdir(parents=True)
    with Session(get_engine(settings.database_url)) as session:
        ingest_paths(session, [settings.seeds_dir], ON_INGEST)
        build_index(settings, session)
    return settings


def evaluate(settings: Settings) -> list[QueryScore]:
    judged = json.loads(JUDGMENTS.read_text())["queries"]
    search = PaperSearch(settings.index_path)
    scores = []
    for entry in judged:
        result = search.search(SearchRequest(q=entry["q"]), lambda ids: {})
        ranked = [hit.id for hit in [*result.hits, *result.partial]]
        scores.append(score_query(entry["q"], entry["kind"], ranked, entry["relevant"]))
    search.close()
    return scores


def summary(scores: list[QueryScore]) -> dict[str, float]:
    n = len(scores)
    return {
        "queries": n,
        "precision_at_5": sum(s.precision_at_5 for s in scores) / n,
        "recall_at_10": sum(s.recall_at_10 for s in scores) / n,
        "ndcg_at_10": sum(s.ndcg_at_10 for s in scores) / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the scores here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scores = evaluate(build_seed_catalog(Path(tmp)))
    print(f"{'query':45} {'kind':9} {'P@5':>5} {'R@10':>5} {'nDCG':>5}")
    for s in scores:
        print(f"{s.q[:45]:45} {s.kind:9} {s.precision_at_5:5.2f} {s.recall_at_10:5.2f} "
              f"{s.ndcg_at_10:5.2f}")
    by_kind: dict[str, list[QueryScore]] = defaultdict(list)
    for s in scores:
        by_kind[s.kind].append(s)
    print()
    for kind, group in sorted(by_kind.items()):
        m = summary(group)
        print(f"{kind:12} n={m['queries']:2}  P@5 {m['precision_at_5']:.3f}  "
              f"R@10 {m['recall_at_10']:.3f}  nDCG@10 {m['ndcg_at_10']:.3f}")
    m = summary(scores)
    print(f"\nALL          n={m['queries']}  P@5 {m['precision_at_5']:.3f}  "
          f"R@10 {m['recall_at_10']:.3f}  nDCG@10 {m['ndcg_at_10']:.3f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": m, "queries": [asdict(s) for s in scores]},
                                        indent=2))


if __name__ == "__main__":
    main()
