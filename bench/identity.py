"""How many papers the corpus lists, counted by (title, venue, year, abstract), against the
papers a catalog holds (issue 43: a paper listed under another paper's abstract is kept).

    .venv/bin/python -m bench.identity                        # the corpus, counted
    .venv/bin/python -m bench.identity --sample s.jsonl --rows 2000   # a sample to ingest
    .venv/bin/python -m bench.identity s.jsonl --catalog DATA_DIR     # against its catalog

A sample holds the first ROWS rows of each file and every row that shares its abstract with
another in its edition, so that the twins are in it. The catalog's count equals the papers by
(title, venue, year, abstract) when it was built from exactly these files; it may exceed it
where one title and abstract come with other people or links (those are kept apart too).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from app.ids import edition_slug, identity_text
from bench.harness import CORPUS


def rows(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                if row.get("venue") and row.get("year") and (row.get("abstract") or "").strip():
                    yield row


def edition_abstract(row: dict) -> tuple[str, str]:
    return edition_slug(str(row["venue"]), int(row["year"])), identity_text(row["abstract"])


def paper_key(row: dict) -> tuple[str, str, str]:
    return (*edition_abstract(row), identity_text(row.get("title") or ""))


def counts(files: list[Path]) -> dict[str, int]:
    """Rows, papers by (venue, year, abstract) (the old rule) and by title too (the new)."""
    read = [row for path in files for row in rows(path)]
    by_abstract = Counter(edition_abstract(row) for row in read)
    return {"rows": len(read), "by_venue_year_abstract": len(by_abstract),
            "by_title_venue_year_abstract": len({paper_key(row) for row in read}),
            "abstracts_shared": sum(1 for n in by_abstract.values() if n > 1)}


def catalog_papers(data_dir: Path) -> int:
    with sqlite3.connect(f"file:{data_dir / 'catalog.db'}?mode=ro", uri=True) as db:
        return db.execute("SELECT count(*) FROM paper").fetchone()[0]


def write_sample(files: list[Path], out: Path, first: int) -> int:
    shared = {key for key, n in Counter(edition_abstract(row) for path in files
                                        for row in rows(path)).items() if n > 1}
    written = 0
    with out.open("w", encoding="utf-8") as sample:
        for path in files:
            for number, row in enumerate(rows(path)):
                if number < first or edition_abstract(row) in shared:
                    sample.write(json.dumps(row, ensure_ascii=False) + "\n")
                    written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="JSON Lines files (default: the corpus)")
    parser.add_argument("--catalog", type=Path, help="a catalog's data directory")
    parser.add_argument("--sample", type=Path, help="write a sample of the files here")
    parser.add_argument("--rows", type=int, default=2000, help="rows of each file a sample takes")
    args = parser.parse_args()
    files = args.files or sorted(CORPUS.glob("*.jsonl.gz"))
    if args.sample:
        print(f"sample: {write_sample(files, args.sample, args.rows)} rows in {args.sample}")
        return
    found = counts(files)
    for name, value in found.items():
        print(f"{name}: {value:,}")
    if args.catalog:
        papers = catalog_papers(args.catalog)
        print(f"catalog papers: {papers:,} "
              f"({papers - found['by_title_venue_year_abstract']:+,} against the corpus's "
              "papers by title, venue, year and abstract)")


if __name__ == "__main__":
    main()
