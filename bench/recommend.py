"""Reading-list recommendations: quality on ICLR keyword lists, and speed on a large catalog.

    .venv/bin/python -m bench.recommend [--lists 150] [--draws 5] [--pasted 300]
        [--catalog DATA_DIR]

Quality: the ICLR papers of ../shared/corpus/ml-abstracts.jsonl.gz are ingested without their
author keywords (they are the judgments). A judged list is 3 papers drawn (fixed seeds) from an
author keyword that 10 to 150 papers carry, 5 lists of each; a recommended paper is relevant
when it carries that keyword too. Printed: P@10 of the catalog's recommendations for the
three and for the first alone, beside a TF-IDF centroid of the three and of the first
(cosine over every paper); of the related papers of the list's first paper; and of the papers
like its abstract pasted into the search box (the paper itself left out), as search finds them,
as `similar.like_text` does with the vectors, and as SQLite FTS5 bm25 over title and abstract
does (the abstract's words OR'ed after bench.questions' stop list). The ten counted are the
first ten that are not one of the list's papers (the other two are held out, not missed).

Then, from single papers (a fixed sample of `--pasted` papers whose abstract is long enough
to be read as a pasted text): P@10 of the papers found when a paper's abstract is pasted, a
paper found relevant when it shares any author keyword with it, beside FTS5 and a sublinear
TF-IDF cosine; and the same for its related papers and its recommendations alone.

Speed (with --catalog, e.g. a catalog of ../shared/corpus): recommendations for 20-paper lists
(papers of one topic), first time for each list, after the index is open.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from app.config import Settings
from app.search.index.opened import OpenIndex
from app.search.query.pasted import PASTED_TEXT_WORDS
from app.search.rank import similar, weights
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.fts5 import build_fts5
from bench.neighbour_baselines import encoder_centroid, mean_of, ranked, tfidf_centroid
from bench.questions import fts5_top
from bench.vectors import with_vectors

MIN_PAPERS, MAX_PAPERS, LISTED, TOP = 10, 150, 3, 10
# How deep every method ranks: the ten counted are the first ten not listed. The anchors' lists
# of a list's first alone, ranked 11 deep, had had fewer than ten counted (0.002 low).
DEEP = TOP + LISTED
# Lists drawn of each keyword: one draw's 86 lists left differences of 0.01 in noise.
DRAWS = 5
PASTED_PAPERS, PASTED_SEED = 300, 40  # papers whose abstract is pasted, judged by keywords

Recommender = Callable[[list[str]], list[str]]
Finder = Callable[[str], list[str]]  # papers like one paper, best first
Given = TypeVar("Given")  # what papers like are found from: a list's IDs or one paper's


def judged_lists(rows: list[dict], count: int,
                 draws: int = DRAWS) -> list[tuple[list[str], set[str]]]:
    """(three titles carrying a keyword, every title carrying it), most common keywords first;
    `draws` lists of each keyword, each draw of its own seed (the first draw's lists are
    those of a single draw)."""
    papers: dict[str, set[str]] = {}
    for row, keywords in zip(rows, keyword_groups(rows), strict=True):
        for keyword in keywords:
            papers.setdefault(keyword, set()).add(row["title"])
    usable = sorted(((k, t) for k, t in papers.items()
                     if MIN_PAPERS <= len(t) <= MAX_PAPERS and len(k) > 2),
                    key=lambda kt: (-len(kt[1]), kt[0]))[:count]
    lists = []
    for draw in range(draws):
        rng = random.Random(7 + draw)
        lists += [(rng.sample(sorted(titles), LISTED), titles) for _, titles in usable]
    return lists


def precision(recommender: Recommender, lists: list[tuple[list[str], set[str]]],
              id_of: dict[str, str], title_of: dict[str, str]) -> tuple[float, float]:
    """Mean P@10 and mean milliseconds per list."""
    total, started = 0.0, time.perf_counter()
    for titles, relevant in lists:
        listed = [id_of[t] for t in titles]
        found = [pid for pid in recommender(listed) if pid not in listed][:TOP]
        total += sum(title_of[pid] in relevant for pid in found) / TOP
    return total / len(lists), (time.perf_counter() - started) * 1000 / len(lists)


def with_weights(method: Callable[[Given], list[str]],
                 **changed: float) -> Callable[[Given], list[str]]:
    """The method with some of the search's weights changed (weights.WEIGHTS)."""
    def run(ids: Given) -> list[str]:
        kept = weights.WEIGHTS
        weights.WEIGHTS = replace(kept, **changed)
        try:
            return method(ids)
        finally:
            weights.WEIGHTS = kept

    return run


# Without the sentence encoder (search by meaning): the catalog before it
NO_MEANING = {"related_meaning": 0.0, "list_meaning": 0.0}


def pasted_like(search: PaperSearch, paper_id: str, plain: str) -> list[str]:
    """The papers like a pasted abstract by `similar.like_text`, blended with the vectors."""
    def like(current: OpenIndex) -> list[str]:
        key_terms = similar.text_key_terms(current.searcher, plain)
        found = similar.like_text(current.searcher, key_terms, plain, DEEP,
                                  similar.Vectors.of(current.vectors, current.with_vectors),
                                  current.vector_model)
        return [current.ids[doc] for doc, _ in found]

    return search.with_index(like, [])


@dataclass
class Judging:
    """The ICLR catalog (built without keywords), its papers' titles and texts, its search,
    and FTS5 built from it."""

    title_of: dict[str, str]
    plain: dict[str, str]
    search: PaperSearch
    fts: sqlite3.Connection

    @classmethod
    def open(cls, settings: Settings, fts_path: Path) -> Judging:
        db = sqlite3.connect(settings.database_path)
        judging = cls(dict(db.execute("SELECT id, title FROM paper")),
                      dict(db.execute("SELECT id, plain FROM paper")),
                      PaperSearch(settings.index_path, result_cache=0, related_cache=0),
                      build_fts5(settings, fts_path))
        db.close()
        return judging

    def close(self) -> None:
        self.search.close()
        self.fts.close()

    @property
    def id_of(self) -> dict[str, str]:
        return {title: pid for pid, title in self.title_of.items()}

    def texts(self, ids: list[str]) -> dict[str, str]:
        return {pid: self.plain[pid] for pid in ids if pid in self.plain}


def _first(recommend: Recommender) -> Recommender:
    return lambda ids: recommend(ids[:1])


def list_methods(judging: Judging) -> dict[str, Recommender]:
    search, plain, texts, fts = judging.search, judging.plain, judging.texts, judging.fts
    tfidf, encoder = tfidf_centroid(plain), encoder_centroid(search)
    both = mean_of(tfidf, encoder)

    def recommended(ids: list[str]) -> list[str]:
        return [r.id for r in search.recommend(ids, texts, limit=DEEP)]

    def related(ids: list[str]) -> list[str]:
        return [r.id for r in search.related(ids[0], plain[ids[0]], texts, limit=DEEP)]

    return {
        "catalog recommendations": recommended,
        "recommendations, without the encoder": with_weights(recommended, **NO_MEANING),
        "recommendations from the first alone": _first(recommended),
        "  the same, without the encoder": with_weights(_first(recommended), **NO_MEANING),
        "TF-IDF centroid (cosine)": ranked(tfidf, DEEP),
        "TF-IDF of the first alone": _first(ranked(tfidf, DEEP)),
        "encoder alone (MiniLM cosine)": ranked(encoder, DEEP),
        "encoder of the first alone": _first(ranked(encoder, DEEP)),
        "mean of the two cosines": ranked(both, DEEP),
        "mean of the first alone": _first(ranked(both, DEEP)),
        "related papers of the first": related,
        "related, without the encoder": with_weights(related, **NO_MEANING),
        "related, words only": with_weights(related, related_vectors=0.0),
        "the first's abstract pasted": lambda ids: [
            hit.id for hit in search.search(SearchRequest(q=plain[ids[0]]), texts).hits],
        "  like_text, with vectors": lambda ids: pasted_like(search, ids[0], plain[ids[0]]),
        "  FTS5 bm25 (title + abstract)": lambda ids: fts5_top(fts, plain[ids[0]], DEEP),
    }


def print_lists(judging: Judging, rows: list[dict], count: int, draws: int = DRAWS) -> None:
    """P@10 on the judged lists: relevant when it carries the lists' keyword."""
    id_of = judging.id_of
    lists = [(titles, relevant) for titles, relevant in judged_lists(rows, count, draws)
             if all(title in id_of for title in titles)]  # one paper is not ingested
    print(f"{len(rows)} ICLR papers, {len(lists)} lists of {LISTED} papers sharing an "
          f"author keyword ({MIN_PAPERS}-{MAX_PAPERS} papers carry it)")
    print(f"{'':38} {'P@10':>6} {'ms/list':>8}")
    for name, method in list_methods(judging).items():
        p, ms = precision(method, lists, id_of, judging.title_of)
        print(f"{name:38} {p:6.3f} {ms:8.1f}")
    before, after, marked = less_like_precision(judging, lists)
    print(f"'less like this' on the first off-topic recommendation of {marked} lists: "
          f"P@10 of those lists {before:.3f} -> {after:.3f}")


def less_like_precision(judging: Judging, lists: list[tuple[list[str], set[str]]]
                        ) -> tuple[float, float, int]:
    """A reader marking the first recommendation that lacks the list's keyword "less like
    this": P@10 of the lists with one before and after (the marked paper is not counted
    after, as it is not shown), and how many lists had one."""
    id_of, title_of, texts = judging.id_of, judging.title_of, judging.texts
    before = after = 0.0
    marked = 0
    for titles, relevant in lists:
        listed = [id_of[t] for t in titles]
        found = [r.id for r in judging.search.recommend(listed, texts, limit=TOP)]
        off = next((pid for pid in found if title_of[pid] not in relevant), None)
        if off is None:
            continue
        again = [r.id for r in judging.search.recommend(
            listed, texts, similar.Choice(less=(off,)), limit=TOP)]
        before += sum(title_of[pid] in relevant for pid in found) / TOP
        after += sum(title_of[pid] in relevant for pid in again) / TOP
        marked += 1
    return before / (marked or 1), after / (marked or 1), marked


def keyword_groups(rows: list[dict]) -> list[set[str]]:
    """Each row's author keywords, lower-cased and whitespace-normalised, the spellings and
    plurals of one keyword as one (`variant_key`: "graph neural networks" is "graph neural
    network", as issue 59's judges count them)."""
    # Here, not at the top: bench.run imports `speed` and keywords imports bench.run.
    from bench.relevance.keywords import variant_key

    return [{variant_key(" ".join(k.lower().split())) for k in row["keywords"]} for row in rows]


def keywords_by_title(rows: list[dict]) -> dict[str, set[str]]:
    """Each title's author keywords (`keyword_groups`)."""
    found: dict[str, set[str]] = {}
    for row, keywords in zip(rows, keyword_groups(rows), strict=True):
        found.setdefault(row["title"], set()).update(keywords)
    return found


def pasted_sample(judging: Judging, keywords: dict[str, set[str]], count: int) -> list[str]:
    """A fixed sample of the papers with a keyword and an abstract long enough to be read as
    a pasted text."""
    usable = sorted(pid for pid, title in judging.title_of.items() if keywords.get(title)
                    and len(judging.plain[pid].split()) > PASTED_TEXT_WORDS)
    return random.Random(PASTED_SEED).sample(usable, min(count, len(usable)))


def shared_precision(finder: Finder, sample: list[str],
                     keywords_of: Callable[[str], set[str]]) -> tuple[float, float]:
    """Mean P@10 of the papers found from each sampled paper (itself left out), a paper found
    relevant when it shares an author keyword with it; and mean milliseconds per paper."""
    total, started = 0.0, time.perf_counter()
    for paper in sample:
        own = keywords_of(paper)
        found = [other for other in finder(paper) if other != paper][:TOP]
        total += sum(bool(own & keywords_of(other)) for other in found) / TOP
    return total / len(sample), (time.perf_counter() - started) * 1000 / len(sample)


def shared_methods(judging: Judging) -> dict[str, Finder]:
    search, plain, texts, fts = judging.search, judging.plain, judging.texts, judging.fts
    tfidf, encoder = tfidf_centroid(plain), encoder_centroid(search)
    return {
        "its abstract pasted": lambda pid: [
            hit.id for hit in search.search(SearchRequest(q=plain[pid]), texts).hits],
        "  FTS5 bm25 (title + abstract)": lambda pid: fts5_top(fts, plain[pid], TOP + 1),
        "  TF-IDF cosine (sublinear)": lambda pid: ranked(tfidf, TOP)([pid]),
        "  encoder alone (MiniLM cosine)": lambda pid: ranked(encoder, TOP)([pid]),
        "  mean of the two cosines": lambda pid: ranked(mean_of(tfidf, encoder), TOP)([pid]),
        "its related papers": lambda pid: [
            r.id for r in search.related(pid, plain[pid], texts, limit=TOP)],
        "  without the encoder": with_weights(lambda pid: [
            r.id for r in search.related(pid, plain[pid], texts, limit=TOP)], **NO_MEANING),
        "recommendations for it alone": lambda pid: [
            r.id for r in search.recommend([pid], texts, limit=TOP)],
        "  the same, without the encoder": with_weights(lambda pid: [
            r.id for r in search.recommend([pid], texts, limit=TOP)], **NO_MEANING),
    }


def print_shared(judging: Judging, rows: list[dict], count: int) -> None:
    """P@10 from single papers of a fixed sample: relevant when it shares any keyword."""
    keywords = keywords_by_title(rows)
    sample = pasted_sample(judging, keywords, count)

    def keywords_of(pid: str) -> set[str]:
        return keywords.get(judging.title_of[pid], set())

    print(f"\n{len(sample)} papers (seed {PASTED_SEED}, abstracts over {PASTED_TEXT_WORDS} "
          "words): a paper found shares an author keyword with the one it is found from")
    print(f"{'':38} {'P@10':>6} {'ms/paper':>8}")
    for name, finder in shared_methods(judging).items():
        p, ms = shared_precision(finder, sample, keywords_of)
        print(f"{name:38} {p:6.3f} {ms:8.1f}")


def quality(count: int, draws: int = DRAWS, pasted: int = PASTED_PAPERS,
            vectors_from: Path | None = None) -> None:
    # Here, not at the top: bench.run imports `speed` and keywords imports bench.run.
    from bench.relevance.keywords import build_catalog, iclr_rows

    rows = iclr_rows()
    with tempfile.TemporaryDirectory() as tmp:
        settings = with_vectors(build_catalog(rows, Path(tmp)), vectors_from)
        judging = Judging.open(settings, Path(tmp) / "fts5.db")
        print_lists(judging, rows, count, draws)
        if pasted > 0:  # 0: the lists alone
            print_shared(judging, rows, pasted)
        judging.close()


def speed(data_dir: Path, lists: int = 20, size: int = 20) -> dict[str, float]:
    """Milliseconds for recommendations of `lists` lists of `size` papers, first time each."""
    db = sqlite3.connect(data_dir / "catalog.db")
    rng = random.Random(11)
    topics = [t for (t,) in db.execute("SELECT DISTINCT topic FROM paper ORDER BY topic")]

    def texts(ids: list[str]) -> dict[str, str]:
        marks = ",".join("?" * len(ids))
        return dict(db.execute(f"SELECT id, plain FROM paper WHERE id IN ({marks})", ids))

    search = PaperSearch(data_dir / "index", result_cache=0)
    started = time.perf_counter()
    search.learned_acronyms()  # opens the index: once per worker, not per list
    opened = time.perf_counter() - started
    times = []
    for _ in range(lists):
        topic = rng.choice(topics)
        ids = [pid for (pid,) in db.execute(
            "SELECT id FROM paper WHERE topic = ? ORDER BY random() LIMIT ?", (topic, size))]
        started = time.perf_counter()
        search.recommend(ids, texts)
        times.append((time.perf_counter() - started) * 1000)
    search.close()
    times.sort()
    return {"papers": db.execute("SELECT count(*) FROM paper").fetchone()[0],
            "lists": lists, "list_size": size, "index_open_ms": round(opened * 1000),
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[int(len(times) * 0.95) - 1], 1), "max_ms": round(times[-1], 1)}


def print_speed(found: dict[str, float]) -> None:
    print(f"recommendations at {found['papers']} papers, {found['lists']} lists of "
          f"{found['list_size']}, first time: p50 {found['p50_ms']} ms, p95 {found['p95_ms']} ms, "
          f"max {found['max_ms']} ms (index opened once in {found['index_open_ms']} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", type=int, default=150, help="keywords, most common first")
    parser.add_argument("--draws", type=int, default=DRAWS, help="lists of each keyword")
    parser.add_argument("--pasted", type=int, default=PASTED_PAPERS,
                        help="papers whose abstract is pasted (shared-keyword measure; 0: "
                        "none, the lists alone)")
    parser.add_argument("--catalog", type=Path, help="a catalog's data directory, for speed")
    parser.add_argument("--vectors-from", type=Path,
                        help="a catalog's data directory whose sentence vectors to borrow "
                             "(else the ICLR papers are encoded here: ~2 CPU-minutes)")
    args = parser.parse_args()
    quality(args.lists, args.draws, args.pasted, args.vectors_from)
    if args.catalog:
        print_speed(speed(args.catalog))


if __name__ == "__main__":
    main()
