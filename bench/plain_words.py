"""Plain-word descriptions of ideas (issue 59, item 4): how a student, a newcomer or someone
from next door describes an idea without the field's terms ("figuring out who spoke when in a
recorded meeting" for speaker diarization). Are the top 5 on the idea, for the catalog, SQLite
FTS5 bm25 and the sentence encoder alone, in one run?

    .venv/bin/python -m bench.plain_words [--catalog DATA_DIR] [--top 5] [--show N]
    .venv/bin/python -m bench.plain_words --encode-only   # the encoder's paper vectors only
    .venv/bin/python -m bench.plain_words --without-encoder   # the catalog and FTS5 only
    .venv/bin/python -m bench.plain_words --descriptions bench/relevance/plain_words_later.json
    .venv/bin/python -m bench.plain_words --descriptions bench/relevance/plain_words_third.json

The descriptions are bench/relevance/plain_words.json: `description` (the query), `idea` (a
short name) and `terms`, a Python regex (case-insensitive) of the field's terms for the idea.
A hit is on concept when its title + abstract (the catalog database's `title` and `plain`)
match `terms`. Each idea's regex is also counted over the corpus
(../shared/corpus/*.jsonl.gz, title + abstract): the count is printed beside each
description, and one held by fewer than MIN_PAPERS papers is flagged (the set keeps none).

Three rankings, each's top `--top`:
(a) the catalog: in-process PaperSearch on the catalog's index, its first page,
    `result.hits + result.partial` (bench.questions.catalog_search), whatever the catalog's
    search answers (fusion with meaning included, once the catalog has it);
(b) SQLite FTS5 (porter unicode61, bm25 over headline + plain, bench/fts5.py) with the
    description's words OR'ed after bench.questions.STOP_40;
(c) the encoder alone: all-MiniLM-L6-v2 (app/meaning/encoder.py) cosine between the
    description and every paper's "title. abstract" at 128 word pieces. The paper vectors
    come from the catalog's `paper_vector` table (app/meaning/store.all_vectors) when it holds
    every paper, else they are encoded here once and cached under CACHE, keyed by the
    catalog's texts (resumable: chunks are kept as they are done).

Printed per ranking: P@5 on concept (a missing hit counts as off), descriptions with all five
on concept, descriptions answered with nothing; the catalog's P@5 as a multiple of FTS5's;
per description the three marks and the idea's corpus count; with `--show N`, the N
descriptions where the catalog does worst beside the encoder, with the top titles of both.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from app.config import PROJECT_ROOT, Settings
from app.search.searcher import PaperSearch
from bench.load import CORPUS
from bench.questions import (
    CatalogTexts,
    beside_fts5,
    catalog_search,
    catalog_settings,
    fts5_top,
)

DESCRIPTIONS = PROJECT_ROOT / "bench" / "relevance" / "plain_words.json"
# Written after the ranking was tuned on the first: the check that it holds (its "about").
LATER_DESCRIPTIONS = DESCRIPTIONS.with_name("plain_words_later.json")
# Written blind after both, never tuned on (its "about").
THIRD_DESCRIPTIONS = DESCRIPTIONS.with_name("plain_words_third.json")
CACHE = Path("/tmp/plain_words_cache")
MODEL_CACHE = CACHE / "model"
PAPER_TOKENS = 128
CHUNK = 1024  # papers encoded and saved at a time
MIN_PAPERS = 20
TOP = 5
CORPUS_FILES = ("ml-abstracts.jsonl.gz", "more-abstracts.jsonl.gz")


# ---------------------------------------------------------------------------- the encoder


def paper_texts(database: Path) -> tuple[list[str], list[str]]:
    """Every paper's ID and the text its vector encodes (app.meaning.store.paper_text:
    "Title. abstract"), in ID order."""
    from app.meaning.store import paper_text

    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT id, title, plain FROM paper ORDER BY id").fetchall()
    finally:
        db.close()
    return ([pid for pid, _, _ in rows],
            [paper_text(SimpleNamespace(title=title, plain=plain)) for _, title, plain in rows])


def texts_key(ids: Sequence[str], texts: Sequence[str]) -> str:
    digest = hashlib.sha256(f"{PAPER_TOKENS}\n".encode())
    for pid, text in zip(ids, texts, strict=True):
        digest.update(f"{pid}\t{text}\n".encode())
    return digest.hexdigest()[:16]


def load_encoder():  # -> app.meaning.encoder.Encoder
    from app.meaning.encoder import Encoder

    return Encoder.load(MODEL_CACHE)


def stored_vectors(settings: Settings, ids: Sequence[str]) -> np.ndarray | None:
    """The catalog's own paper vectors (app.meaning.store.all_vectors), in `ids` order, when
    its `paper_vector` table holds a current vector for every paper, else None."""
    db = sqlite3.connect(f"file:{settings.database_path}?mode=ro", uri=True)
    try:
        has_table = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'paper_vector'"
                               ).fetchone()
        count = db.execute("SELECT count(*) FROM paper_vector").fetchone()[0] if has_table else 0
    finally:
        db.close()
    if count < len(ids):
        print(f"paper_vector: {count:,} of {len(ids):,} papers have a vector: encoding here",
              file=sys.stderr)
        return None
    from sqlalchemy import create_engine
    from sqlmodel import Session

    from app.meaning.store import all_vectors, missing_ids

    # Read-only: the bench never migrates nor writes the catalog's database
    engine = create_engine(f"sqlite:///file:{settings.database_path}?mode=ro&uri=true")
    try:
        with Session(engine) as session:
            stale = missing_ids(session)
            found_ids, matrix = all_vectors(session)
    finally:
        engine.dispose()
    if stale:
        print(f"paper_vector: {len(stale):,} papers have no current vector: encoding here",
              file=sys.stderr)
        return None
    at = {pid: row for row, pid in enumerate(found_ids)}
    vectors = np.asarray(matrix, dtype=np.float32)[[at[pid] for pid in ids]]
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    print(f"paper vectors: the catalog's paper_vector table ({len(ids):,})", file=sys.stderr)
    return vectors


def encoded_vectors(ids: Sequence[str], texts: Sequence[str], encoder=None) -> np.ndarray:
    """Every paper's vector, encoded here once and cached under CACHE/<key of the texts>:
    chunks of CHUNK papers as they are done (a killed run resumes), then one matrix."""
    folder = CACHE / f"vectors-{texts_key(ids, texts)}"
    whole = folder / "vectors.npy"
    if whole.is_file():
        print(f"paper vectors: cached {whole}", file=sys.stderr)
        return np.load(whole)
    folder.mkdir(parents=True, exist_ok=True)
    encoder = encoder or load_encoder()
    chunks = range(0, len(texts), CHUNK)
    started, done_here = time.perf_counter(), 0
    for at, first in enumerate(chunks):
        path = folder / f"chunk-{at:04d}.npy"
        if path.is_file():
            continue
        part = encoder.encode(list(texts[first:first + CHUNK]), PAPER_TOKENS)
        tmp = folder / f".chunk-{at:04d}.npy"
        np.save(tmp, part)
        tmp.rename(path)
        done_here += len(part)
        rate = done_here / (time.perf_counter() - started)
        left = len(texts) - min(first + CHUNK, len(texts))
        print(f"encoded {min(first + CHUNK, len(texts))}/{len(texts)} papers, "
              f"{rate:.0f} papers/s, ~{left / rate / 60:.0f} min left", file=sys.stderr,
              flush=True)
    vectors = np.vstack([np.load(folder / f"chunk-{at:04d}.npy") for at in range(len(chunks))])
    np.save(folder / ".vectors.npy", vectors)
    (folder / ".vectors.npy").rename(whole)
    for at in range(len(chunks)):
        (folder / f"chunk-{at:04d}.npy").unlink()
    return vectors


def paper_vectors(settings: Settings, ids: Sequence[str], texts: Sequence[str],
                  encoder=None) -> np.ndarray:
    found = stored_vectors(settings, ids)
    return found if found is not None else encoded_vectors(ids, texts, encoder)


# ------------------------------------------------------------------------ the descriptions


@dataclass(frozen=True)
class Description:
    description: str
    terms: str  # a regex of the field's terms for the idea, case-insensitive
    idea: str

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.terms, re.IGNORECASE)


def load_descriptions(path: Path = DESCRIPTIONS) -> list[Description]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Description(d["description"], d["terms"], d["idea"]) for d in data["descriptions"]]


def corpus_rows() -> list[str]:
    """Every corpus paper's title + abstract."""
    texts = []
    for name in CORPUS_FILES:
        with gzip.open(CORPUS / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    texts.append(f"{row.get('title') or ''} {row.get('abstract') or ''}")
    return texts


def corpus_counts(descriptions: Sequence[Description]) -> dict[str, int]:
    """Per idea's regex, the corpus papers (title + abstract) it matches; cached under CACHE
    by the regexes and the corpus files' sizes and times."""
    stamp = [(name, (CORPUS / name).stat().st_size, (CORPUS / name).stat().st_mtime_ns)
             for name in CORPUS_FILES]
    key = hashlib.sha256(json.dumps([stamp, sorted({d.terms for d in descriptions})])
                         .encode()).hexdigest()[:16]
    cached = CACHE / f"corpus-counts-{key}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    texts = corpus_rows()
    counts = {terms: sum(1 for text in texts if re.search(terms, text, re.IGNORECASE))
              for terms in sorted({d.terms for d in descriptions})}
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(counts))
    return counts


# ------------------------------------------------------------------------------ rankings

CATALOG, FTS5, ENCODER = "catalog", "SQLite FTS5 bm25, OR of words", "all-MiniLM-L6-v2 cosine"
SYSTEMS = (CATALOG, FTS5, ENCODER)
SHORT = {CATALOG: "catalog", FTS5: "FTS5", ENCODER: "encoder"}


@dataclass
class Ranked:
    description: Description
    ids: list[str]  # the top `top`
    on: list[bool]  # per hit: its title + abstract match the idea's terms


def catalog_top(search: PaperSearch, texts: CatalogTexts, query: str, top: int) -> list[str]:
    result = catalog_search(search, texts.plain, query)
    return [hit.id for hit in [*result.hits, *result.partial]][:top]


def encoder_top(encoder, vectors: np.ndarray, ids: Sequence[str], query: str,
                top: int) -> list[str]:
    """The papers whose vectors are closest to the query's (cosine: unit vectors)."""
    scores = vectors @ encoder.encode([query])[0]
    best = np.argpartition(-scores, top)[:top]
    return [ids[at] for at in best[np.argsort(-scores[best], kind="stable")]]


def judged(description: Description, ids: list[str], texts: CatalogTexts) -> Ranked:
    text = texts.judged(ids)
    return Ranked(description, ids,
                  [description.pattern.search(text.get(pid, "")) is not None for pid in ids])


def run_all(search: PaperSearch, fts: sqlite3.Connection, texts: CatalogTexts, encoder,
            vectors: np.ndarray | None, ids: Sequence[str], descriptions: Sequence[Description],
            top: int) -> dict[str, list[Ranked]]:
    """Each ranking's top `top` per description; the encoder's only with `vectors`."""
    results: dict[str, list[Ranked]] = {CATALOG: [], FTS5: []}
    if vectors is not None:
        results[ENCODER] = []
    for d in descriptions:
        results[CATALOG].append(judged(d, catalog_top(search, texts, d.description, top), texts))
        results[FTS5].append(judged(d, fts5_top(fts, d.description, top), texts))
        if vectors is not None:
            results[ENCODER].append(judged(d, encoder_top(encoder, vectors, ids, d.description,
                                                          top), texts))
    return results


# -------------------------------------------------------------------------------- tables


def precision(ranked: Ranked, top: int) -> float:
    return sum(ranked.on) / top


def all_on(ranked: Ranked, top: int) -> bool:
    return len(ranked.on) >= top and all(ranked.on)


def figures(results: dict[str, list[Ranked]], top: int) -> dict[str, dict[str, float]]:
    return {name: {"p": sum(precision(r, top) for r in ranked) / (len(ranked) or 1),
                   "all": sum(all_on(r, top) for r in ranked),
                   "empty": sum(not r.ids for r in ranked)}
            for name, ranked in results.items()}


def summary_table(results: dict[str, list[Ranked]], top: int) -> str:
    f = figures(results, top)
    n = len(results[CATALOG])
    lines = [f"| ranking | descriptions | P@{top} on concept | all {top} on concept "
             "| returned nothing |", "|---|---:|---:|---:|---:|"]
    for name in results:
        lines.append(f"| {name} | {n} | {f[name]['p']:.3f} | {f[name]['all']} / {n} | "
                     f"{f[name]['empty']} |")

    def ratio(other: str) -> str:
        return f"{f[CATALOG]['p'] / f[other]['p']:.2f}×" if f[other]["p"] else "—"

    lines.append(f"\nThe catalog's P@{top}: {ratio(FTS5)} FTS5's"
                 + (f", {ratio(ENCODER)} the encoder's." if ENCODER in f else "."))
    return "\n".join(lines)


def marks(ranked: Ranked, top: int) -> str:
    return "".join("✓" if on else "✗" for on in ranked.on) + "·" * (top - len(ranked.on))


def per_description_table(results: dict[str, list[Ranked]], counts: dict[str, int],
                          top: int) -> str:
    names = [name for name in SYSTEMS if name in results]
    lines = ["| idea | corpus papers | description | "
             + " | ".join(SHORT[name] for name in names) + " |",
             "|---|---:|---|" + "---|" * len(names)]
    for row in zip(*(results[name] for name in names), strict=True):
        d = row[0].description
        count = counts[d.terms]
        flag = " (too few)" if count < MIN_PAPERS else ""
        lines.append(f"| {d.idea} | {count:,}{flag} | {d.description} | "
                     + " | ".join(marks(r, top) for r in row) + " |")
    return "\n".join(lines)


def worst_beside_encoder(results: dict[str, list[Ranked]], texts: CatalogTexts, count: int,
                         top: int) -> str:
    pairs = sorted(zip(results[CATALOG], results[ENCODER], strict=True),
                   key=lambda pair: (precision(pair[0], top) - precision(pair[1], top),
                                     precision(pair[0], top)))[:count]
    blocks = []
    for catalog, encoder in pairs:
        d = catalog.description
        titles = texts.titles([*catalog.ids, *encoder.ids])
        lines = [f"{d.description}  (idea: {d.idea}; P@{top} catalog "
                 f"{precision(catalog, top):.1f}, encoder {precision(encoder, top):.1f})"]
        for name, ranked in ((CATALOG, catalog), ("encoder", encoder)):
            lines.append(f"  {name}:" + ("" if ranked.ids else " nothing"))
            lines += [f"    {'✓' if on else '✗'} {titles.get(pid, pid)}"
                      for pid, on in zip(ranked.ids, ranked.on, strict=True)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="the catalog's data dir "
                        "(default: CATALOG_DATA_DIR)")
    parser.add_argument("--descriptions", type=Path, default=DESCRIPTIONS)
    parser.add_argument("--top", type=int, default=TOP)
    parser.add_argument("--show", type=int, default=0, metavar="N",
                        help="the N descriptions where the catalog does worst beside the "
                        "encoder, with their top titles")
    parser.add_argument("--encode-only", action="store_true",
                        help="make (or find) the encoder's paper vectors, nothing else")
    parser.add_argument("--without-encoder", action="store_true",
                        help="the catalog and FTS5 only (while the vectors are being made)")
    args = parser.parse_args()
    settings = catalog_settings(args.catalog)
    ids, papers = paper_texts(settings.database_path)
    encoder = load_encoder()
    vectors = None if args.without_encoder else paper_vectors(settings, ids, papers, encoder)
    del papers
    if args.encode_only:
        print(f"{len(vectors)} paper vectors ready")
        return
    descriptions = load_descriptions(args.descriptions)
    counts = corpus_counts(descriptions)
    texts = CatalogTexts(settings.database_path)
    results = beside_fts5(settings, texts, lambda search, fts: run_all(
        search, fts, texts, encoder, vectors, ids, descriptions, args.top))
    few = [d.idea for d in descriptions if counts[d.terms] < MIN_PAPERS]
    print(f"{len(descriptions)} plain-word descriptions ({args.descriptions.name}); catalog "
          f"{settings.data_dir} ({len(ids)} papers); each idea's terms held by "
          f"{min(counts.values()):,}–{max(counts.values()):,} corpus papers"
          + (f"; fewer than {MIN_PAPERS}: {', '.join(few)}" if few else "") + "\n")
    print(summary_table(results, args.top))
    print("\n" + per_description_table(results, counts, args.top))
    if args.show and ENCODER in results:
        print(f"\nWhere the catalog does worst beside the encoder (top {args.top}):\n")
        print(worst_beside_encoder(results, texts, args.show, args.top))
    texts.close()


if __name__ == "__main__":
    main()
