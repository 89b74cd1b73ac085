"""Relevance on CoRL, COLM, WWW and 3DV abstracts judged by their authors' keywords, each
keyword searched within its own series, beside SQLite FTS5 (porter) restricted the same way.

    .venv/bin/python -m bench.relevance.venues [--queries 150] [--losses 10] [--merge-variants]

Built as bench/relevance/keywords.py is, from the papers of these four series in
../shared/corpus/more-abstracts.jsonl.gz that carry author keywords (IJCAI's keywords are
subject areas picked from a list, "machine learning: deep learning", not the authors' own
words, so it is left out). Their titles and abstracts, without the keywords (the judgments),
are ingested into one fresh catalog. For each series, each query is an author keyword that 5
to 150 of the series' papers carry, the most common first (at most `--queries` per series); a
paper is relevant when its authors gave it that keyword (with `--merge-variants`, any
spelling of it, as in keywords.py). The catalog is searched with the series filter
(`SearchRequest(series=...)`, as `/search?series=corl`); FTS5 (tokenizer `porter unicode61`,
bm25 over title and abstract, built from the same catalog) keeps the series' editions only.

Printed, as markdown tables: nDCG@10, P@5 and recall@10 (of min(10, relevant)) over all
queries for the catalog and FTS5 with all words and with any word, each with its nDCG@10 as a
multiple of the better FTS5 (the issue's target: at least 1.5×); the same per series; then the
`--losses` queries where the catalog falls furthest below FTS5 with all words in nDCG@10.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from app.ids import series_slug
from app.search.rank import weights
from bench.fts5 import build_fts5
from bench.relevance.keywords import (
    FTS5_ALL,
    Judged,
    Scores,
    build_catalog,
    judged_queries,
    keyword_rows,
    losses_table,
    mean,
    results_table,
    run_catalog,
    run_fts5,
    title_map,
)

SOURCE = "more-abstracts.jsonl.gz"
VENUES = ("CoRL", "COLM", "WWW", "3DV")
CATALOG = "catalog"


def series_queries(rows: list[dict], per_series: int,
                   merge_variants: bool = False) -> list[Judged]:
    """Each series' judged keyword queries, searched within that series."""
    queries = []
    for venue in VENUES:
        of_venue = [row for row in rows if row["venue"] == venue]
        queries += [Judged(keyword, titles, series_slug(venue))
                    for keyword, titles in judged_queries(of_venue, per_series, merge_variants)]
    return queries


def per_series_table(queries: list[Judged], results: dict[str, list[Scores]],
                     rows: list[dict]) -> str:
    """nDCG@10 per series: papers, queries, the catalog, each FTS5 ranking and the ratio of the
    catalog's to the better FTS5's."""
    fts = [name for name in results if name != CATALOG]
    lines = [f"| series | papers | queries | catalog nDCG@10 | {' | '.join(fts)} "
             "| catalog ÷ better FTS5 |", "|---|---|---|---|" + "---|" * len(fts) + "---|"]
    for venue in VENUES:
        slug = series_slug(venue)
        picked = [i for i, q in enumerate(queries) if q.series == slug]
        if not picked:
            continue
        n = {name: mean([results[name][i] for i in picked])[0] for name in results}
        best = max(n[name] for name in fts)
        ratio = f"{n[CATALOG] / best:.2f}×" if best else "—"
        papers = sum(row["venue"] == venue for row in rows)
        lines.append(f"| {venue} ({slug}) | {papers} | {len(picked)} | {n[CATALOG]:.3f} | "
                     + " | ".join(f"{n[name]:.3f}" for name in fts) + f" | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=150, help="at most, per series")
    parser.add_argument("--losses", type=int, default=10,
                        help="queries to list where the catalog loses most to FTS5")
    parser.add_argument("--merge-variants", action="store_true",
                        help="one query for the spellings of a keyword (keywords.variant_key)")
    args = parser.parse_args()
    rows = keyword_rows(SOURCE, VENUES)
    queries = series_queries(rows, args.queries, args.merge_variants)
    with tempfile.TemporaryDirectory() as tmp:
        settings = build_catalog(rows, Path(tmp), "venues.jsonl")
        title_of = title_map(settings)
        fts = build_fts5(settings, Path(tmp) / "fts5.db")
        results = run_fts5(fts, title_of, queries)
        fts.close()
        results[CATALOG] = run_catalog(settings, title_of, queries,
                                       weights.WEIGHTS.headline_match, weights.WEIGHTS.proximity)
    sizes = [len(q.relevant) for q in queries]
    print(f"{len(rows)} papers of {', '.join(VENUES)} with author keywords, {len(queries)} "
          f"keyword queries ({min(sizes)}-{max(sizes)} relevant papers each"
          f"{', spellings merged' if args.merge_variants else ''}), each searched "
          f"within its series; catalog at headline {weights.WEIGHTS.headline_match:g}, "
          f"proximity {weights.WEIGHTS.proximity:g}\n")
    print(results_table(results))
    print()
    print(per_series_table(queries, results, rows))
    if args.losses:
        print(f"\nWhere the catalog loses most to {FTS5_ALL}:\n")
        print(losses_table(queries, results[CATALOG], results[FTS5_ALL], args.losses))


if __name__ == "__main__":
    main()
