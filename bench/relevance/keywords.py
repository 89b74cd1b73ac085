"""Relevance on ICLR abstracts judged by their authors' keywords, beside SQLite FTS5.

    .venv/bin/python -m bench.relevance.keywords [--queries 150] [--headline-boosts 0.5,1,2]
        [--proximity-weights 0,0.3,1] [--losses 10] [--merge-variants]

The ICLR papers of ../shared/corpus/ml-abstracts.jsonl.gz (titles and abstracts; their
keywords are left out of the catalog, as they are the judgments) are ingested into a fresh
catalog. Each query is an author keyword that 5 to 150 papers carry, the most common first;
a paper is relevant when its authors gave it that keyword (with `--merge-variants`, any
spelling of it: hyphens as spaces, plural s dropped, see `variant_key`). Printed, as markdown
tables: nDCG@10, P@5 and recall@10 (of min(10, relevant)) for the catalog's search at each
headline boost and proximity weight tried, and for SQLite FTS5 (tokenizer `porter unicode61`,
bm25 over title and abstract, built from the same catalog) with all words and with any word,
each with its nDCG@10 as a multiple of the better FTS5 (the issue's target: at least 1.3×);
then the `--losses` queries where the catalog (first setting tried) falls furthest below FTS5
with all words in nDCG@10.

The helpers here (judged queries, the catalog and FTS5 rankings with an optional series
filter, the tables) are shared with bench/relevance/venues.py.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from sqlmodel import Session

from app.config import Settings
from app.db import get_engine
from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index.sync import build_index
from app.search.rank import weights
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.fts5 import build_fts5
from bench.load import CORPUS
from bench.relevance.evaluate import ndcg

MIN_PAPERS, MAX_PAPERS = 5, 150
Scores = tuple[float, float, float]  # nDCG@10, P@5, R@10
FTS5_ALL, FTS5_ANY = "SQLite FTS5 porter, all words", "SQLite FTS5 porter, any word"
FTS5_JOINERS = {FTS5_ALL: " AND ", FTS5_ANY: " OR "}


class Judged(NamedTuple):
    """A keyword query, the titles of the papers carrying it, and the series it is searched
    within ("" for the whole catalog)."""

    keyword: str
    relevant: set[str]
    series: str = ""


def keyword_rows(source: str, venues: Collection[str]) -> list[dict]:
    """The rows of one corpus file, of these venues, that carry author keywords."""
    with gzip.open(CORPUS / source, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [row for row in rows if row["venue"] in venues and row.get("keywords")]


def iclr_rows() -> list[dict]:
    return keyword_rows("ml-abstracts.jsonl.gz", {"ICLR"})


def variant_key(keyword: str) -> str:
    """What spellings of one keyword share: hyphens as spaces, and each word without a plural
    s ("meta-learning" = "meta learning", "graph neural networks" = "graph neural network",
    "gans" = "gan"). Acronyms and their long forms stay apart ("rnn", "recurrent neural
    network"): joining them would take a synonym table, which is what is being measured."""
    words = keyword.replace("-", " ").split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in words)


def judged_queries(rows: list[dict], count: int,
                   merge_variants: bool = False) -> list[tuple[str, set[str]]]:
    """(keyword, the titles of the papers carrying it), the most common keywords first. With
    `merge_variants`, the spellings of a keyword that share its `variant_key` are one query
    (written as its most common spelling) whose relevant papers carry any of them."""
    papers: dict[str, set[str]] = {}
    for row in rows:
        for keyword in {" ".join(k.lower().split()) for k in row["keywords"]}:
            papers.setdefault(keyword, set()).add(row["title"])
    if merge_variants:
        merged: dict[str, list[tuple[str, set[str]]]] = {}
        for keyword, titles in papers.items():
            merged.setdefault(variant_key(keyword), []).append((keyword, titles))
        papers = {min(group, key=lambda kt: (-len(kt[1]), kt[0]))[0]:
                  set().union(*(t for _, t in group)) for group in merged.values()}
    usable = [(k, t) for k, t in papers.items() if MIN_PAPERS <= len(t) <= MAX_PAPERS
              and len(k) > 2]
    usable.sort(key=lambda kt: (-len(kt[1]), kt[0]))
    return usable[:count]


def build_catalog(rows: list[dict], root: Path, name: str = "iclr.jsonl") -> Settings:
    """A fresh catalog under `root` of the rows' titles and abstracts (no keywords)."""
    source = root / name
    source.write_text("".join(json.dumps({"venue": r["venue"], "year": r["year"],
                                          "title": r["title"], "abstract": r["abstract"]}) + "\n"
                              for r in rows), encoding="utf-8")
    settings = Settings(data_dir=root / "data", seeds_dir=root)
    settings.data_dir.mkdir(parents=True)
    with Session(get_engine(settings.database_url)) as session:
        ingest_paths(session, [source], ON_INGEST)
        build_index(settings, session)
    return settings


def scores(ranked: list[str], relevant: set[str]) -> Scores:
    grades = dict.fromkeys(relevant, 1)
    return (ndcg(ranked, grades), len(set(ranked[:5]) & relevant) / min(5, len(relevant)),
            len(set(ranked[:10]) & relevant) / min(10, len(relevant)))


def mean(rows: Sequence[Scores]) -> Scores:
    return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))  # type: ignore[return-value]


def fts5_ranked(fts: sqlite3.Connection, title_of: dict[str, str], keyword: str, joiner: str,
                series: str = "") -> list[str]:
    """The titles of FTS5's top 10 for the keyword's words joined by `joiner` (" AND " or
    " OR "), within the editions of `series` ("corl" is corl-2021, corl-2022, ...) if given."""
    words = [f'"{w}"' for w in keyword.replace("-", " ").split()]
    sql, params = "SELECT id FROM papers WHERE papers MATCH ?", [joiner.join(words)]
    if series:
        sql += " AND venue GLOB ?"
        params.append(f"{series}-[0-9][0-9][0-9][0-9]")
    sql += " ORDER BY bm25(papers) LIMIT 10"
    return [title_of[pid] for (pid,) in fts.execute(sql, params)]


def catalog_ranked(search: PaperSearch, title_of: dict[str, str], keyword: str,
                   series: str = "") -> list[str]:
    """The titles of the catalog's first page: exact matches, then papers with most words."""
    result = search.search(SearchRequest(q=keyword, series=series), lambda ids: {})
    return [title_of[hit.id] for hit in [*result.hits, *result.partial]]


def run_fts5(fts: sqlite3.Connection, title_of: dict[str, str],
             queries: Sequence[Judged]) -> dict[str, list[Scores]]:
    """Per-query scores of FTS5 with all words and with any word."""
    return {name: [scores(fts5_ranked(fts, title_of, q.keyword, joiner, q.series), q.relevant)
                   for q in queries]
            for name, joiner in FTS5_JOINERS.items()}


def run_catalog(settings: Settings, title_of: dict[str, str], queries: Sequence[Judged],
                boost: float, weight: float) -> list[Scores]:
    """Per-query scores of the catalog's search at this headline boost and proximity weight."""
    weights.WEIGHTS = replace(weights.WEIGHTS, headline_match=boost, proximity=weight)
    search = PaperSearch(settings.index_path, result_cache=0)
    try:
        return [scores(catalog_ranked(search, title_of, q.keyword, q.series), q.relevant)
                for q in queries]
    finally:
        search.close()


def results_table(results: dict[str, list[Scores]]) -> str:
    """A markdown table of mean nDCG@10, P@5 and R@10 per ranking, and nDCG@10 as a multiple
    of the better FTS5 ranking among the results."""
    means = {name: mean(per_query) for name, per_query in results.items()}
    fts = [name for name in means if name.startswith("SQLite FTS5")]
    best = max(fts, key=lambda name: means[name][0]) if fts else ""
    lines = [f"| ranking | nDCG@10 | P@5 | R@10 | nDCG@10 ÷ {best or 'FTS5'} |",
             "|---|---|---|---|---|"]
    for name, (n, p, r) in means.items():
        ratio = f"{n / means[best][0]:.2f}×" if best and means[best][0] else "—"
        lines.append(f"| {name} | {n:.3f} | {p:.3f} | {r:.3f} | {ratio} |")
    return "\n".join(lines)


def losses_table(queries: Sequence[Judged], catalog: Sequence[Scores],
                 fts: Sequence[Scores], count: int, fts_name: str = FTS5_ALL) -> str:
    """A markdown table of the `count` queries where the catalog's nDCG@10 falls furthest
    below FTS5's (those with the largest FTS5 − catalog difference, only where it is > 0)."""
    rows = sorted(((f[0] - c[0], q, c, f) for q, c, f in zip(queries, catalog, fts, strict=True)
                   if f[0] > c[0]), key=lambda row: (-row[0], row[1].series, row[1].keyword))
    lines = [f"| query | series | relevant | catalog nDCG@10 | {fts_name} nDCG@10 | difference |",
             "|---|---|---|---|---|---|"]
    for diff, q, c, f in rows[:count]:
        lines.append(f"| {q.keyword} | {q.series or '—'} | {len(q.relevant)} | {c[0]:.3f} | "
                     f"{f[0]:.3f} | {-diff:+.3f} |")
    wins = sum(c[0] > f[0] for c, f in zip(catalog, fts, strict=True))
    ties = sum(c[0] == f[0] for c, f in zip(catalog, fts, strict=True))
    lines.append(f"\nCatalog above {fts_name} on {wins} queries, equal on {ties}, "
                 f"below on {len(queries) - wins - ties}.")
    return "\n".join(lines)


def title_map(settings: Settings) -> dict[str, str]:
    db = sqlite3.connect(settings.database_path)
    try:
        return dict(db.execute("SELECT id, title FROM paper"))
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--headline-boosts", default=str(weights.WEIGHTS.headline_match))
    parser.add_argument("--proximity-weights", default=str(weights.WEIGHTS.proximity))
    parser.add_argument("--losses", type=int, default=10,
                        help="queries to list where the catalog loses most to FTS5")
    parser.add_argument("--merge-variants", action="store_true",
                        help="one query for the spellings of a keyword (see variant_key)")
    args = parser.parse_args()
    rows = iclr_rows()
    queries = [Judged(k, t) for k, t in judged_queries(rows, args.queries, args.merge_variants)]
    with tempfile.TemporaryDirectory() as tmp:
        settings = build_catalog(rows, Path(tmp))
        title_of = title_map(settings)
        fts = build_fts5(settings, Path(tmp) / "fts5.db")
        results = run_fts5(fts, title_of, queries)
        fts.close()
        catalog_runs = []
        for boost in (float(b) for b in args.headline_boosts.split(",")):
            for weight in (float(w) for w in args.proximity_weights.split(",")):
                name = f"catalog, headline {boost:g}, proximity {weight:g}"
                results[name] = run_catalog(settings, title_of, queries, boost, weight)
                catalog_runs.append(name)
    counts = Counter(len(q.relevant) for q in queries)
    print(f"{len(rows)} ICLR papers, {len(queries)} keyword queries "
          f"({min(counts)}-{max(counts)} relevant papers each"
          f"{', spellings merged' if args.merge_variants else ''})\n")
    print(results_table(results))
    if args.losses:
        print(f"\nWhere {catalog_runs[0]} loses most to {FTS5_ALL}:\n")
        print(losses_table(queries, results[catalog_runs[0]], results[FTS5_ALL], args.losses))


if __name__ == "__main__":
    main()
