"""One-sentence descriptions find the described paper (issue 40): a paper's TL;DR searched
over the whole catalog, MRR@10 and R@10 beside SQLite FTS5 bm25 in the same run.

    .venv/bin/python -m bench.descriptions [--catalog DATA_DIR] [--papers 300] [--seed 40]
        [--misses 10]

The corpus's ICLR 2017–18 and CoRL 2022–23 papers carry a TL;DR (`tldr` in
../shared/corpus/*.jsonl.gz: the authors' one-sentence summary; the catalog stores it but does
not index it). For `--papers` of them (random.Random(--seed).sample over the corpus rows, in
file order, that have a TL;DR and are in the catalog: matched by title and edition, venue and
year, against the catalog database's `paper` table), the TL;DR is the query, over the whole
catalog. The described paper is found at the first rank holding a paper with its title
(casefolded, spaces collapsed: a paper listed twice is one paper). Printed, for the catalog
(its first page, `result.hits + result.partial`) and SQLite FTS5 (porter unicode61, bm25 over
headline + plain, the TL;DR's words OR'ed after bench.questions.STOP_40): MRR@10, R@10 (found
in the top 10), how many queries returned nothing at all, and the catalog's figures as a
multiple of FTS5's; how many TL;DRs, longer than 40 words, went through the catalog's pasted
text path (papers most like the text, docs/search.md); then the `--misses` descriptions the
catalog ranks lowest where FTS5 finds the paper.

`--catalog` defaults to CATALOG_DATA_DIR (get_settings). At L: a catalog of
../shared/corpus/*.jsonl.gz with titles; not in bench/run.py, whose L catalog is built from
list files, which have neither titles nor TL;DRs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.ids import edition_slug
from app.search.searcher import PaperSearch
from bench.load import CORPUS
from bench.questions import (
    CatalogTexts,
    beside_fts5,
    catalog_search,
    catalog_settings,
    fts5_top,
)
from bench.relevance.known_item import catalog_titles, normal_title

FILES = ("ml-abstracts.jsonl.gz", "more-abstracts.jsonl.gz")
TOP = 10
SEED = 40


@dataclass
class Described:
    """A sampled paper: its catalog ID, title, TL;DR and the IDs of every paper with its
    title."""

    id: str
    title: str
    tldr: str
    same_title: set[str]


@dataclass
class Outcome:
    item: Described
    catalog: int | None  # 1-based rank of the described paper in the top TOP
    fts5: int | None
    catalog_empty: bool  # the catalog's page held nothing at all
    fts5_empty: bool
    pasted: bool  # the catalog answered the TL;DR as a pasted text
    exact: int  # the catalog's exact matches (its total)


def tldr_rows(files: Sequence[str] = FILES) -> Iterator[dict]:
    """The corpus rows that carry a TL;DR, in file order."""
    for name in files:
        with gzip.open(CORPUS / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    if (row.get("tldr") or "").strip() and row.get("title"):
                        yield row


def in_catalog(database: Path, rows: Iterable[dict]) -> list[Described]:
    """The rows' papers that the catalog holds (same edition, same title), in row order."""
    by_title, by_record = catalog_titles(database, normal_title)
    found = []
    for row in rows:
        title = normal_title(row["title"])
        pid = by_record.get((edition_slug(row["venue"], int(row["year"])), title))
        if pid:
            found.append(Described(pid, row["title"], " ".join(row["tldr"].split()),
                                   by_title[title]))
    return found


def sample_described(eligible: Sequence[Described], size: int,
                     seed: int = SEED) -> list[Described]:
    return random.Random(seed).sample(list(eligible), min(size, len(eligible)))


def rank_in(ranked: Sequence[str], wanted: set[str]) -> int | None:
    return next((i + 1 for i, pid in enumerate(ranked[:TOP]) if pid in wanted), None)


def run_descriptions(search: PaperSearch, fts: sqlite3.Connection, texts: CatalogTexts,
                     items: Sequence[Described]) -> list[Outcome]:
    outcomes = []
    for item in items:
        result = catalog_search(search, texts.plain, item.tldr)
        ranked = [hit.id for hit in [*result.hits, *result.partial]]
        found = fts5_top(fts, item.tldr, TOP)
        outcomes.append(Outcome(item, rank_in(ranked, item.same_title),
                                rank_in(found, item.same_title), not ranked, not found,
                                result.pasted, result.total))
    return outcomes


def figures(outcomes: Sequence[Outcome]) -> dict[str, dict[str, float]]:
    n = len(outcomes) or 1
    result = {}
    for name in ("catalog", "fts5"):
        ranks = [getattr(o, name) for o in outcomes]
        result[name] = {"mrr": sum(1 / r for r in ranks if r) / n,
                        "recall": sum(r is not None for r in ranks) / n,
                        "empty": sum(getattr(o, f"{name}_empty") for o in outcomes)}
    return result


def summary_table(outcomes: Sequence[Outcome]) -> str:
    f = figures(outcomes)
    c, b = f["catalog"], f["fts5"]

    def ratio(key: str) -> str:
        return f"{c[key] / b[key]:.2f}×" if b[key] else "—"

    pasted = sum(o.pasted for o in outcomes)
    exact = sum(o.exact == 0 and not o.pasted for o in outcomes)
    return "\n".join([
        f"| ranking | queries | MRR@{TOP} | R@{TOP} | returned nothing |",
        "|---|---:|---:|---:|---:|",
        f"| catalog | {len(outcomes)} | {c['mrr']:.3f} | {c['recall']:.3f} | {c['empty']} |",
        f"| SQLite FTS5 bm25, OR of words | {len(outcomes)} | {b['mrr']:.3f} | "
        f"{b['recall']:.3f} | {b['empty']} |",
        f"| catalog ÷ FTS5 | | {ratio('mrr')} | {ratio('recall')} | |",
        "",
        f"{pasted} of {len(outcomes)} TL;DRs were longer than 40 words: answered as pasted text; "
        f"{exact} of the others had no exact match in the catalog (total 0: its page is papers "
        "with some of the words)."])


def misses_table(outcomes: Sequence[Outcome], count: int) -> str:
    worst = sorted((o for o in outcomes if o.fts5 and (o.catalog or TOP + 1) > o.fts5),
                   key=lambda o: (-(o.catalog or TOP + 1) + o.fts5, o.item.title))[:count]
    lines = ["| TL;DR | catalog rank | FTS5 rank | title |", "|---|---:|---:|---|"]
    for o in worst:
        tldr, title = (s.replace("|", "\\|") for s in (o.item.tldr, o.item.title))
        lines.append(f"| {tldr} | {o.catalog or f'> {TOP}'} | {o.fts5} | {title} |")
    below = sum((o.catalog or TOP + 1) > (o.fts5 or TOP + 1) for o in outcomes)
    above = sum((o.catalog or TOP + 1) < (o.fts5 or TOP + 1) for o in outcomes)
    lines.append(f"\nCatalog ranks the paper higher than FTS5 on {above} descriptions, lower "
                 f"on {below}, the same on {len(outcomes) - above - below}.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="the catalog's data dir "
                        "(default: CATALOG_DATA_DIR)")
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--misses", type=int, default=10,
                        help="descriptions to list that the catalog ranks below FTS5")
    args = parser.parse_args()
    settings = catalog_settings(args.catalog)
    rows = list(tldr_rows())
    eligible = in_catalog(settings.database_path, rows)
    items = sample_described(eligible, args.papers, args.seed)
    texts = CatalogTexts(settings.database_path)
    outcomes = beside_fts5(settings, texts,
                           lambda search, fts: run_descriptions(search, fts, texts, items))
    texts.close()
    print(f"{len(rows)} corpus papers with a TL;DR, {len(eligible)} of them in the catalog "
          f"{settings.data_dir}; {len(items)} sampled (seed {args.seed})\n")
    print(summary_table(outcomes))
    if args.misses:
        print(f"\nWhere the catalog ranks the paper below FTS5 (top {TOP}):\n")
        print(misses_table(outcomes, args.misses))


if __name__ == "__main__":
    main()
