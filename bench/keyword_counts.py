"""Keyword queries keep their counts (issue 40): the total and the per-year counts of every
keyword query (bench/words.py's everyday words, the trends page's queries, phrases, acronyms,
filters, exclusions, a few word pairs), written to a file on one catalog and compared on it
after a change to the search.

    .venv/bin/python -m bench.keyword_counts --catalog DATA_DIR --write before.json
    .venv/bin/python -m bench.keyword_counts --catalog DATA_DIR --compare before.json

tests/search/test_keyword_counts.py compares the seed catalog's counts with
tests/data/keyword_counts.json, written before questions were read as bags of words.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.config import get_settings
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.words import INFLECTIONS

# The trends page's example, phrases and acronyms, filters and their mixes, word pairs.
QUERIES = (
    *INFLECTIONS, "lstm", '"graph neural network"', '"large language model"',
    "in-context learning", "reinforcement learning", "LLM", "LLMs", "GNN", "RL", "LoRA",
    "diffusion models", "kernel methods", "best arm identification", "federated learning",
    "graph neural network node classification", "mixture of experts routing",
    "tabular data", "grokking memorization transformers algorithmic", "learning model",
    "transformer year:2020-2024", "attention -transformer", "diffusion OR flow",
    "(vision OR image) transformer", "has:code", "year:2026", "venue:icml",
    "series:neurips", "author:hinton", "diffusion series:iclr", "optim*", "robot*",
    '"in-context learning"', "what", "how", "best", "way",
)


def keyword_counts(search: PaperSearch) -> dict[str, dict[str, object]]:
    """Each query's total and its papers per year, as the trends page counts them."""
    counts: dict[str, dict[str, object]] = {}
    for q in QUERIES:
        result = search.counts(SearchRequest(q=q))
        years = {str(year): count for year, count in result.facets.get("year", [])}
        counts[q] = {"total": result.total, "years": dict(sorted(years.items())),
                     "reading": result.reading.kind if result.reading else "keywords"}
    return counts


def differences(before: dict, after: dict) -> list[str]:
    """The queries whose total or years changed, each with how it is read now: a query of a
    few words that no paper holds all of is read as a description (search/query/question.py)."""
    return [f"{q}: {before[q]['total']} -> {after[q]['total'] if q in after else 'missing'}"
            + ("" if q in after and before[q]["years"] == after[q]["years"] else " (years)")
            + (f", read as a {after[q]['reading']}" if q in after else "")
            for q in before if q not in after or (before[q]["total"], before[q]["years"]) != (
                after[q]["total"], after[q]["years"])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, help="a data directory (default: settings)")
    parser.add_argument("--write", type=Path, help="write the counts to this JSON file")
    parser.add_argument("--compare", type=Path, help="compare with counts written before")
    args = parser.parse_args()
    index = (args.catalog / "index") if args.catalog else get_settings().index_path
    search = PaperSearch(index)
    counts = keyword_counts(search)
    search.close()
    if args.write:
        args.write.write_text(json.dumps(counts, indent=1, ensure_ascii=False) + "\n")
    if args.compare:
        changed = differences(json.loads(args.compare.read_text()), counts)
        print(f"{len(QUERIES)} keyword queries, {len(changed)} changed")
        for line in changed:
            print(f"  {line}")
    if not args.write and not args.compare:
        for q, found in counts.items():
            print(f"{found['total']:>8,}  {q}")


if __name__ == "__main__":
    main()
