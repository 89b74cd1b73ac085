"""Questions as researchers type them (issue 40): are the catalog's top 5 on the question's
concept, beside SQLite FTS5 bm25 in the same run?

    .venv/bin/python -m bench.questions [--catalog DATA_DIR] [--verbose]

The questions are bench/relevance/questions.json: natural-language questions ("how to make
diffusion models sample faster", "what is the best way to avoid catastrophic forgetting", "any
work on robots grasping transparent objects") across ML, CV, NLP, robotics and theory, each
with its concept written in one or more forms ("batch normalization", "batchnorm"). A hit is
on concept when its title + abstract (the catalog database's `title` and `plain`) hold one of
the forms, case-insensitively, each word with its plural and verb endings (`inflections`: -s,
-es, -ed, -ing, y → -ies, a final e dropped, a doubled consonant, British -is- for -iz-) and
hyphens, spaces or nothing between words ("over parameterized" = "over-parameterized" =
"overparameterized"). No analyzer of the catalog's judges it.

Per question: whether all of the top 5 are on concept (a page of fewer than 5 is not), and
the share of the top 5 on concept (P@5, an absent hit counts as off concept). The catalog's
ranked list is its first page, `result.hits + result.partial` of `PaperSearch.search`; also
counted for it: the questions whose page strikes as missing (`SearchHit.missing`) a word that
is not part of the concept (those words are listed), and those with no exact match
(`SearchResult.total == 0`). The baseline is SQLite FTS5 (porter unicode61, bm25 over
headline + plain, built from the same catalog database by bench/fts5.py) with the question's
words OR'ed after the 40-word English stop list `STOP_40`, what a developer writes in an
afternoon. With --verbose, every question's catalog top 5 titles with ✓/✗; without it, those
of the questions the catalog fails; then FTS5's top 5 of the questions FTS5 fails.

`--catalog` defaults to CATALOG_DATA_DIR (get_settings). At L: a catalog of
../shared/corpus/*.jsonl.gz with titles (e.g. `catalog ingest ../shared/corpus/*.jsonl.gz`
into a fresh data dir); not in bench/run.py, whose L catalog is built from list files
without titles. The helpers here (stop list, FTS5 OR query, catalog texts) are shared with
bench/descriptions.py.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypeVar

from app.config import PROJECT_ROOT, Settings, get_settings
from app.search.results import SearchRequest, SearchResult
from app.search.searcher import NOT_READY, PaperSearch
from bench.fts5 import build_fts5

T = TypeVar("T")

QUESTIONS = PROJECT_ROOT / "bench" / "relevance" / "questions.json"
TOP = 5
# What a developer writes in an afternoon: 40 English function words, question words included.
STOP_40 = frozenset("""
a an the and or of in on at to for from by with as is are was be it this that these what
which who how why when where can do does i we you there any about into
""".split())
assert len(STOP_40) == 40
WORD = re.compile(r"[^\W_]+")
CATALOG, FTS5 = "catalog", "SQLite FTS5 bm25, OR of words"


@dataclass(frozen=True)
class Question:
    question: str
    concept: tuple[str, ...]

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return concept_pattern(self.concept)

    @cached_property
    def word_pattern(self) -> re.Pattern[str]:
        """Any single word of the concept's forms, inflected."""
        words = {w for form in self.concept for w in form_words(form)}
        return re.compile("|".join(_word(w) for w in sorted(words)), re.IGNORECASE)

    def of_concept(self, word: str) -> bool:
        """Whether a word is one of the concept's words or a form written as one word
        ("overparameterization" of "over parameterization")."""
        return bool(self.word_pattern.fullmatch(word) or self.pattern.fullmatch(word))


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Question(q["question"], tuple(q["concept"])) for q in data["questions"]]


def form_words(form: str) -> list[str]:
    return [w for w in re.split(r"[\s\-]+", form.lower()) if w]


def inflections(word: str) -> set[str]:
    """The word and its plural, possessive and verb forms (over-generous: a judge)."""
    w = word.lower()
    forms = {w, w + "s", w + "es", w + "ed", w + "d", w + "ing", w + "'s"}
    if len(w) > 2 and w.endswith("y") and w[-2] not in "aeiou":
        forms |= {w[:-1] + "ies", w[:-1] + "ied"}
    if len(w) > 2 and w.endswith("e"):
        forms |= {w[:-1] + "ing", w[:-1] + "ed"}
    if len(w) > 2 and w[-1] not in "aeiouwxy" and w[-2] in "aeiou" and w[-3] not in "aeiou":
        forms |= {w + w[-1] + "ed", w + w[-1] + "ing"}
    return forms


def _word(word: str) -> str:
    alternatives = sorted(inflections(word), key=lambda f: (-len(f), f))
    return "(?:" + "|".join(re.escape(f).replace("iz", "i[sz]") for f in alternatives) + ")"


def concept_pattern(forms: Sequence[str]) -> re.Pattern[str]:
    """A regex finding any form of the concept, words inflected, joined by hyphens, spaces
    or nothing, case-insensitively and on word boundaries."""
    alternatives = [r"[\s\-]*".join(_word(w) for w in form_words(form)) for form in forms]
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alternatives) + r")(?![^\W_])",
                      re.IGNORECASE)


def fts5_match(text: str) -> str:
    """The FTS5 query of a text: its words, lowercased, deduplicated, quoted and OR'ed, after
    the 40-word stop list ("" when nothing is left)."""
    words = dict.fromkeys(w for w in WORD.findall(text.lower()) if w not in STOP_40)
    return " OR ".join(f'"{w}"' for w in words)


def fts5_top(fts: sqlite3.Connection, text: str, limit: int) -> list[str]:
    match = fts5_match(text)
    if not match:
        return []
    return [pid for (pid,) in fts.execute(
        "SELECT id FROM papers WHERE papers MATCH ? ORDER BY bm25(papers) LIMIT ?",
        [match, limit])]


class CatalogTexts:
    """The catalog database's texts: plain text to highlight, title + abstract to judge."""

    def __init__(self, database: Path) -> None:
        self.db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)

    def _rows(self, ids: Sequence[str], columns: str) -> dict[str, str]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        return dict(self.db.execute(f"SELECT id, {columns} FROM paper WHERE id IN ({marks})",
                                    list(ids)))

    def plain(self, ids: Sequence[str]) -> dict[str, str]:
        return self._rows(ids, "plain")

    def judged(self, ids: Sequence[str]) -> dict[str, str]:
        return self._rows(ids, "title || ' ' || plain")

    def titles(self, ids: Sequence[str]) -> dict[str, str]:
        return self._rows(ids, "CASE WHEN title != '' THEN title ELSE headline END")

    def close(self) -> None:
        self.db.close()


def catalog_search(search: PaperSearch, texts: Callable[[list[str]], dict[str, str]],
                   query: str) -> SearchResult:
    result = search.search(SearchRequest(q=query), texts)
    if NOT_READY in result.notes:
        raise SystemExit("the catalog's index is not ready")
    return result


@dataclass
class Scored:
    question: Question
    ids: list[str]  # the top TOP
    on: list[bool]  # per hit of `ids`: on concept
    total: int | None = None  # the catalog's exact matches (None for FTS5)
    missing: list[str] = field(default_factory=list)  # struck words not of the concept

    @property
    def all_on(self) -> bool:
        return len(self.on) >= TOP and all(self.on)

    @property
    def precision(self) -> float:
        return sum(self.on) / TOP


def judge(question: Question, ids: list[str], texts: CatalogTexts) -> list[bool]:
    text = texts.judged(ids)
    return [question.pattern.search(text.get(pid, "")) is not None for pid in ids]


def score_catalog(question: Question, result: SearchResult, texts: CatalogTexts) -> Scored:
    page = [*result.hits, *result.partial]
    ids = [hit.id for hit in page][:TOP]
    struck = {w for hit in page for part in hit.missing for w in WORD.findall(part)}
    missing = sorted(w for w in struck if not question.of_concept(w))
    return Scored(question, ids, judge(question, ids, texts), result.total, missing)


def score_fts5(question: Question, fts: sqlite3.Connection, texts: CatalogTexts) -> Scored:
    ids = fts5_top(fts, question.question, TOP)
    return Scored(question, ids, judge(question, ids, texts))


def run_questions(search: PaperSearch, fts: sqlite3.Connection, texts: CatalogTexts,
                  questions: Sequence[Question]) -> dict[str, list[Scored]]:
    return {CATALOG: [score_catalog(q, catalog_search(search, texts.plain, q.question), texts)
                      for q in questions],
            FTS5: [score_fts5(q, fts, texts) for q in questions]}


def summary_table(results: dict[str, list[Scored]]) -> str:
    lines = [f"| ranking | questions | all top {TOP} on concept | P@{TOP} on concept "
             "| struck a non-concept word | no exact match |", "|---|---:|---:|---:|---:|---:|"]
    for name, scored in results.items():
        n = len(scored)
        catalog = name == CATALOG
        struck = sum(bool(s.missing) for s in scored) if catalog else "—"
        empty = sum(s.total == 0 for s in scored) if catalog else "—"
        lines.append(f"| {name} | {n} | {sum(s.all_on for s in scored)} "
                     f"({sum(s.all_on for s in scored) / n:.0%}) | "
                     f"{sum(s.precision for s in scored) / n:.3f} | {struck} | {empty} |")
    return "\n".join(lines)


def per_question_table(results: dict[str, list[Scored]]) -> str:
    lines = [f"| question | catalog top {TOP} | FTS5 top {TOP} | exact matches | struck words |",
             "|---|---|---|---:|---|"]
    for c, f in zip(results[CATALOG], results[FTS5], strict=True):
        lines.append(f"| {c.question.question} | {_marks(c)} | {_marks(f)} | {c.total} | "
                     f"{', '.join(c.missing) or '—'} |")
    return "\n".join(lines)


def _marks(scored: Scored) -> str:
    return "".join("✓" if on else "✗" for on in scored.on) + "·" * (TOP - len(scored.on))


def top_titles(scored: Scored, texts: CatalogTexts) -> str:
    titles = texts.titles(scored.ids)
    lines = [f"{scored.question.question}  (concept: {' / '.join(scored.question.concept)})"]
    lines += [f"  {'✓' if on else '✗'} {titles.get(pid, pid)}"
              for pid, on in zip(scored.ids, scored.on, strict=True)]
    return "\n".join(lines)


def catalog_settings(catalog: Path | None) -> Settings:
    """A catalog's settings: its data dir, else CATALOG_DATA_DIR's."""
    base = get_settings()
    return Settings(data_dir=(catalog or base.data_dir).resolve(), seeds_dir=base.seeds_dir)


def beside_fts5(settings: Settings, texts: CatalogTexts,
                run: Callable[[PaperSearch, sqlite3.Connection], T]) -> T:
    """`run` with the catalog's search and an FTS5 table of the same papers, built here."""
    search = PaperSearch(settings.index_path, result_cache=0)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            fts = build_fts5(settings, Path(tmp) / "fts5.db")
            try:
                return run(search, fts)
            finally:
                fts.close()
    finally:
        search.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="the catalog's data dir "
                        "(default: CATALOG_DATA_DIR)")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--verbose", action="store_true",
                        help="every question's catalog top 5 titles, with ✓/✗")
    args = parser.parse_args()
    settings = catalog_settings(args.catalog)
    questions = load_questions(args.questions)
    texts = CatalogTexts(settings.database_path)
    results = beside_fts5(settings, texts,
                          lambda search, fts: run_questions(search, fts, texts, questions))
    papers = texts.db.execute("SELECT count(*) FROM paper").fetchone()[0]
    print(f"{len(questions)} questions ({args.questions.name}); catalog {settings.data_dir} "
          f"({papers} papers)\n")
    print(summary_table(results))
    print("\n" + per_question_table(results))
    shown = [s for s in results[CATALOG] if args.verbose or not s.all_on]
    print(f"\nCatalog top {TOP}, {'every question' if args.verbose else 'questions it fails'}:")
    for scored in shown:
        print("\n" + top_titles(scored, texts))
    print(f"\nFTS5 top {TOP}, questions it fails:")
    for scored in results[FTS5]:
        if not scored.all_on:
            print("\n" + top_titles(scored, texts))
    texts.close()


if __name__ == "__main__":
    main()
