"""The same snippets as analyzing every word gives, over a catalog's abstracts: each paper's
plain text with terms of its own words (one, two or three; and every term that is not the
start of its word, "was" → be, "dying" → die, "mice" → mouse, "Σ" → sigma) and with the
terms of a title phrase, snippeted by make_snippet and by make_snippet over a full scan
(each word of the text analyzed, as snippets did before they looked only at the words that
can match).

    .venv/bin/python -m bench.snippets --catalog DATA_DIR [--papers 20000]
    .venv/bin/python -m bench.snippets --catalog DATA_DIR --write before.json   # hashes
    .venv/bin/python -m bench.snippets --catalog DATA_DIR --compare before.json

Prints how many pairs and how many differ (with the first few); exits 1 on any difference.
--write and --compare keep each pair's SHA-256 to compare two versions of the code.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from app.search.rank.snippets import make_snippet
from app.search.words.acronyms import acronym_form
from app.search.words.analysis import TOKEN_PATTERN, catalog_analyzer
from bench.load import title_queries
from bench.questions import catalog_settings

Pair = tuple[str, str, frozenset[str]]  # paper ID, text, terms
_TOKEN = re.compile(TOKEN_PATTERN)


def pairs(database: Path, papers: int, seed: int = 3) -> Iterator[Pair]:
    rng = random.Random(seed)
    analyzer = catalog_analyzer()
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT id, plain FROM paper ORDER BY id").fetchall()
    finally:
        db.close()
    rows = rng.sample(rows, min(papers, len(rows)))
    phrases = [frozenset(analyzer.terms(q)) for q in title_queries(2000)]
    for paper_id, text in rows:
        words = _TOKEN.findall(text)
        if not words:
            continue
        for size in (1, 2, 3):
            chosen = rng.sample(words, min(size, len(words)))
            terms = {t for w in chosen for t in acronym_form(w)}
            if terms:
                yield paper_id, text, frozenset(terms)
        changed = {term for word in words
                   if (term := analyzer.normalize(word)) is not None
                   and not word.lower().startswith(term.lower())}
        if changed:
            yield paper_id, text, frozenset(changed)
        yield paper_id, text, rng.choice(phrases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="the catalog's data dir "
                        "(default: CATALOG_DATA_DIR)")
    parser.add_argument("--papers", type=int, default=20_000)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", type=Path, help="write each pair's snippet hash here")
    action.add_argument("--compare", type=Path, help="compare the hashes with this file")
    args = parser.parse_args()
    settings = catalog_settings(args.catalog)
    hashes, differ = [], []
    for paper_id, text, terms in pairs(settings.database_path, args.papers):
        snippet = make_snippet(text, set(terms))
        # Without candidates, spans analyzes every word.
        with mock.patch("app.search.rank.snippets.candidates", lambda terms, ascii_text: _TOKEN):
            scanned = make_snippet(text, set(terms))
        hashes.append(hashlib.sha256(snippet.encode()).hexdigest()[:16])
        if snippet != scanned:
            differ.append((paper_id, sorted(terms), snippet, scanned))
    print(f"{len(hashes)} pairs of {settings.data_dir}: {len(differ)} differ from a full scan")
    for paper_id, terms, snippet, scanned in differ[:5]:
        print(f"  {paper_id} {terms}\n    {snippet}\n    {scanned}")
    changed = 0
    if args.compare:
        before = json.loads(args.compare.read_text())
        changed = sum(a != b for a, b in zip(before, hashes, strict=True))
        print(f"{changed} differ from {args.compare}")
    if args.write:
        args.write.write_text(json.dumps(hashes))
    sys.exit(1 if differ or changed else 0)


if __name__ == "__main__":
    main()
