"""Known-item search: three words of a paper's title find that paper (MRR@10), at L.

    .venv/bin/python -m bench.relevance.known_item [--catalog DATA_DIR] [--sample 500]
        [--seed 22] [--rules idf,first] [--misses 10]

Over the full corpus (../shared/corpus/ml-abstracts.jsonl.gz and more-abstracts.jsonl.gz):
with `--catalog DATA_DIR`, the catalog already ingested there (e.g. /tmp/L/data: its
catalog.db and index); without it, a fresh one built in a temporary directory with
`catalog migrate` and `catalog ingest` of both files (about two minutes).

The known items: `--sample` corpus papers (random.Random(--seed).sample over the corpus rows, in
file order, that have a title with at least three eligible words and are in the catalog). A
title's eligible words: the title without TeX math ($...$), split into runs of letters and
digits that hold a letter and are at least two characters long, English stop words left out.
Each query is three of them, in title order, chosen by a rule:

- `idf`: the three with the highest IDF, i.e. held by the fewest corpus papers (title or
  abstract, words lowercased), the earlier word first on a tie. What someone who remembers
  a title's distinctive words types.
- `first`: the first three. What someone who remembers how a title begins types.

A word is typed lowercase, unless it has a capital after its first letter ("LoRA", "BERT",
"GANs") in a title that is not all capitals: then as the title writes it.

The found paper is the first of the catalog's first page (exact matches, then papers with
most of the words) that has the known item's title (casefolded, spaces collapsed): a paper
listed under two editions or series is one known item. Printed, as markdown tables per rule:
MRR@10, success@1, @3 and @10, how many queries had no exact match, the strict MRR@10 (only
the sampled record counts) and the median time per search; then the `--misses` known items
ranked lowest (not in the top 10 first), with their query.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.ids import edition_slug
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.load import CORPUS

FILES = ("ml-abstracts.jsonl.gz", "more-abstracts.jsonl.gz")
WORDS = 3
TOP = 10
RULES = ("idf", "first")
MATH = re.compile(r"\$[^$]*\$")
WORD = re.compile(r"[^\W_]+")
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just
me more most my no nor not now of off on once only or other our ours out over own same she
should so some such than that the their theirs them then there these they this those through
to too under until up upon very via was we were what when where which while who whom why will
with within without would you your vs versus towards toward
""".split())


@dataclass
class Known:
    """A sampled paper: its catalog ID, title and the IDs of every paper with that title."""

    id: str
    title: str
    same_title: set[str]


@dataclass
class Outcome:
    known: Known
    query: str
    rank: int | None  # 1-based rank of the first paper with its title in the top TOP
    strict_rank: int | None  # 1-based rank of the sampled record itself
    exact: int  # exact matches (the search's total)
    seconds: float


def corpus_rows() -> Iterator[dict]:
    for name in FILES:
        with gzip.open(CORPUS / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)


def title_words(title: str) -> list[str]:
    """The eligible words of a title, as written, in order."""
    words = WORD.findall(MATH.sub(" ", title))
    return [w for w in words if len(w) >= 2 and not w.isdigit()
            and any(c.isalpha() for c in w) and w.lower() not in STOP_WORDS]


def typed(word: str, title: str) -> str:
    """The word as a researcher types it: lowercase, unless written as an acronym."""
    letters = [c for c in title if c.isalpha()]
    all_caps = bool(letters) and all(c.isupper() for c in letters)
    return word if any(c.isupper() for c in word[1:]) and not all_caps else word.lower()


def query_for(title: str, rule: str, df: Counter[str]) -> str:
    words = title_words(title)
    if rule == "idf":
        order = sorted(range(len(words)), key=lambda i: (df[words[i].lower()], i))
        picked = sorted(order[:WORDS])
    elif rule == "first":
        picked = list(range(WORDS))
    else:
        raise ValueError(f"unknown rule {rule!r}")
    return " ".join(typed(words[i], title) for i in picked)


def normal_title(title: str) -> str:
    return " ".join(title.casefold().split())


def build_l_catalog(root: Path) -> Path:
    """A catalog of the whole corpus under `root`, with the `catalog` command."""
    data = root / "data"
    env = {**os.environ, "CATALOG_DATA_DIR": str(data)}
    command = Path(sys.executable).with_name("catalog")
    subprocess.run([str(command), "migrate"], env=env, check=True)
    ingest = subprocess.run([str(command), "ingest", *(str(CORPUS / f) for f in FILES)],
                            env=env, stdout=subprocess.DEVNULL)
    if ingest.returncode not in (0, 1):  # 1: some rows were rejected, the rest loaded
        raise SystemExit(f"catalog ingest failed ({ingest.returncode})")
    return data


def catalog_titles(database: Path, record_key: Callable[[str], str] = str) -> tuple[
        dict[str, set[str]], dict[tuple[str, str], str]]:
    """The catalog's paper IDs by normalized title, and each by its edition's slug and
    `record_key` of its title."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        papers = db.execute("SELECT id, edition_slug, title FROM paper").fetchall()
    finally:
        db.close()
    by_title: dict[str, set[str]] = {}
    by_record: dict[tuple[str, str], str] = {}
    for pid, slug, title in papers:
        by_title.setdefault(normal_title(title), set()).add(pid)
        by_record[slug, record_key(title)] = pid
    return by_title, by_record


def sample_known(data_dir: Path, rows: list[dict], size: int, seed: int) -> list[Known]:
    by_title, by_record = catalog_titles(data_dir / "catalog.db")
    eligible = []
    for row in rows:
        title = row.get("title") or ""
        pid = by_record.get((edition_slug(row["venue"], int(row["year"])), title))
        if pid and len(title_words(title)) >= WORDS:
            eligible.append(Known(pid, title, by_title[normal_title(title)]))
    return random.Random(seed).sample(eligible, size)


def run(search: PaperSearch, known: list[Known], rule: str, df: Counter[str]) -> list[Outcome]:
    outcomes = []
    for item in known:
        query = query_for(item.title, rule, df)
        started = time.perf_counter()
        result = search.search(SearchRequest(q=query), lambda ids: {})
        seconds = time.perf_counter() - started
        ranked = [hit.id for hit in [*result.hits, *result.partial]][:TOP]
        rank = next((i + 1 for i, pid in enumerate(ranked) if pid in item.same_title), None)
        strict = next((i + 1 for i, pid in enumerate(ranked) if pid == item.id), None)
        outcomes.append(Outcome(item, query, rank, strict, result.total, seconds))
    return outcomes


def rr(rank: int | None) -> float:
    return 1 / rank if rank else 0.0


def summary_table(results: dict[str, list[Outcome]]) -> str:
    lines = ["| rule | queries | MRR@10 | success@1 | success@3 | success@10 | no exact match "
             "| MRR@10 strict | median ms |", "|---|---|---|---|---|---|---|---|---|"]
    for rule, outcomes in results.items():
        n = len(outcomes)

        def within(k: int, outcomes: list[Outcome] = outcomes) -> float:
            return sum(o.rank is not None and o.rank <= k for o in outcomes) / len(outcomes)

        lines.append(
            f"| {rule} | {n} | {sum(rr(o.rank) for o in outcomes) / n:.3f} | {within(1):.3f} | "
            f"{within(3):.3f} | {within(TOP):.3f} | {sum(o.exact == 0 for o in outcomes)} | "
            f"{sum(rr(o.strict_rank) for o in outcomes) / n:.3f} | "
            f"{statistics.median(o.seconds for o in outcomes) * 1000:.0f} |")
    return "\n".join(lines)


def misses_table(outcomes: list[Outcome], count: int) -> str:
    worst = sorted(outcomes, key=lambda o: (-(o.rank or math.inf), o.known.title))[:count]
    lines = ["| query | rank | exact matches | title |", "|---|---|---|---|"]
    for o in worst:
        if o.rank == 1:
            break
        title = o.known.title.replace("|", "\\|")
        lines.append(f"| {o.query} | {o.rank or f'> {TOP}'} | {o.exact} | {title} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="an existing data dir (catalog.db, index)")
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--rules", default=",".join(RULES))
    parser.add_argument("--misses", type=int, default=10, help="lowest-ranked items to list")
    args = parser.parse_args()
    rows = list(corpus_rows())
    df: Counter[str] = Counter()
    for row in rows:
        text = f"{row.get('title') or ''} {row.get('abstract') or ''}"
        df.update({w.lower() for w in WORD.findall(MATH.sub(" ", text))})
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.catalog or build_l_catalog(Path(tmp))
        known = sample_known(data_dir, rows, args.sample, args.seed)
        search = PaperSearch(data_dir / "index", result_cache=0)
        results = {rule: run(search, known, rule, df) for rule in args.rules.split(",")}
        search.close()
    duplicated = sum(len(k.same_title) > 1 for k in known)
    print(f"{len(rows)} corpus rows; {len(known)} known items (seed {args.seed}), {duplicated} "
          f"of them with their title on more than one paper; catalog {args.catalog or '(built)'}"
          "\n")
    print(summary_table(results))
    for rule, outcomes in results.items():
        if args.misses:
            print(f"\nRule `{rule}`: the known items ranked lowest\n")
            print(misses_table(outcomes, args.misses))


if __name__ == "__main__":
    main()
