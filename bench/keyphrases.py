"""Keyphrase chips against author keywords (issue 22, part 4): precision@5 per venue.

    .venv/bin/python -m bench.keyphrases [--limit N] [--module PATH] [--seed S]

The catalog's chips are computed as a fresh ingest of the whole corpus computes them: both
files of ../shared/corpus/ are parsed by the ingest's own parsers, duplicates dropped as the
ingest drops them (same paper ID), every abstract normalized by
`app.ingest.normalize.normalize_abstract` (its `plain` text is what the catalog stores), word
statistics taken with `document_frequencies` over all of them (documents = their number), and
each paper's chips are `KeyphraseExtractor(word_df, documents).extract(plain)`, as
`app.enrich.add_keyphrases` calls it. Nothing is cached on disk.

Evaluated: the papers of every venue whose rows carry `keywords` (ICLR, CoRL, COLM, WWW and
3DV carry author keywords; IJCAI's are the conference's area labels, "Machine Learning:
Classification", shown in a row of their own and left out of the main overall figure). A chip
is correct when it matches one of the paper's keywords (a keyword written "long form (ACRONYM)"
counts as either form), by two rules:

- strict: the same terms after `app.search.words.analysis.analyze` (case and inflections folded);
- lenient: strict, or one's terms are a contiguous run inside the other's ("graph neural
  networks" ~ "graph neural network", "diffusion" ~ "diffusion models").

P@5 = correct chips / min(5, chips shown) per paper (a paper with no chip scores 0), averaged
over papers per venue, then per edition (with how many distinct keywords it uses: ICLR 2017's
papers chose from 15 subject areas) and overall (micro-average over the papers of the author-
keyword venues, then with the area labels too). Also printed: chip shapes (verb fragments,
lowercase two-letter stubs, acronyms and names shown in lowercase, words cut after digits,
chips ending in a word that is not a noun: heuristics on LemmInflect's tables, with their most
common cases so a reader can judge), the 30 most frequent chips, and 15 example papers' chips
beside their keywords (a seeded sample, the same at every run).

`--limit N` evaluates at most N papers per venue (evenly spaced in corpus order; word
statistics still cover the whole corpus). `--module PATH` takes `KeyphraseExtractor` and
`document_frequencies` from another copy of app/keyphrases.py, e.g. the baseline:
`git show 839d526:app/keyphrases.py > /tmp/keyphrases_base.py`. About half a minute.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType

from app.ids import edition_slug, paper_id
from app.ingest.load import PARSERS, input_format
from app.ingest.normalize import normalize_abstract
from app.ingest.unpack import read_input
from app.search.words.analysis import analyze
from bench.chip_shapes import shapes_table
from bench.load import CORPUS

CORPUS_FILES = ("ml-abstracts.jsonl.gz", "more-abstracts.jsonl.gz")  # ingest order (by name)
AREA_LABEL_VENUES = frozenset({"IJCAI"})  # keywords are the venue's areas, not the authors'
AT = 5
EXAMPLES = 15
FREQUENT = 30
Terms = tuple[str, ...]


@dataclass
class Paper:
    venue: str
    year: int
    title: str
    plain: str
    keywords: tuple[str, ...]
    chips: list[str] = field(default_factory=list)


def load_corpus() -> list[Paper]:
    """Every paper the catalog would hold after ingesting the corpus, with its plain text."""
    papers: list[Paper] = []
    claimed: set[str] = set()
    for name in CORPUS_FILES:
        path = CORPUS / name
        listing = PARSERS[input_format(path)](path, read_input(path, path.read_bytes()))
        for raw in listing.abstracts:
            pid = paper_id(edition_slug(raw.venue, raw.year), raw.text)
            if pid in claimed:
                continue  # a duplicate, as the ingest counts it
            claimed.add(pid)
            papers.append(Paper(raw.venue, raw.year, raw.title,
                                normalize_abstract(raw.text).plain, raw.keywords))
    return papers


def load_module(path: str | None) -> ModuleType:
    if path is None:
        import app.keyphrases
        return app.keyphrases
    spec = importlib.util.spec_from_file_location("keyphrases_under_test", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# --- matching ---------------------------------------------------------------------------------

_PARENTHESIS = re.compile(r"^(?P<long>.+?)\s*\((?P<short>[^()]+)\)$")


def keyword_terms(keyword: str) -> list[Terms]:
    """The analyzed forms a keyword stands for: itself, or both halves of "long (SHORT)"."""
    match = _PARENTHESIS.match(keyword.strip())
    forms = [match["long"], match["short"]] if match else [keyword]
    return [terms for terms in map(analyze, forms) if terms]


def contains_run(outer: Terms, inner: Terms) -> bool:
    n = len(inner)
    return any(outer[i:i + n] == inner for i in range(len(outer) - n + 1))


def judge(chip: str, keywords: Sequence[Terms]) -> str:
    """"strict", "lenient" (lenient only) or "" for a chip against a paper's keywords."""
    terms = analyze(chip)
    if not terms:
        return ""
    if terms in keywords:
        return "strict"
    if any(contains_run(k, terms) or contains_run(terms, k) for k in keywords):
        return "lenient"
    return ""


# --- chip shapes ------------------------------------------------------------------------------


# --- scores -----------------------------------------------------------------------------------


@dataclass
class Tally:
    papers: int = 0
    keywords: int = 0
    chips: int = 0
    short: int = 0  # papers with fewer than AT chips
    strict: float = 0.0
    lenient: float = 0.0
    hit: int = 0  # papers with a chip correct by the lenient rule

    def add(self, paper: Paper, marks: Sequence[str]) -> None:
        shown = min(AT, len(paper.chips))
        self.papers += 1
        self.keywords += len(paper.keywords)
        self.chips += len(paper.chips)
        self.short += len(paper.chips) < AT
        if shown:
            self.strict += sum(m == "strict" for m in marks[:shown]) / shown
            self.lenient += sum(bool(m) for m in marks[:shown]) / shown
        self.hit += any(marks[:shown])

    def row(self, label: str) -> str:
        n = max(self.papers, 1)
        return (f"| {label} | {self.papers:,} | {self.keywords / n:.1f} | {self.chips / n:.2f} "
                f"| {self.short:,} | {self.strict / n:.3f} | {self.lenient / n:.3f} "
                f"| {self.hit / n:.1%} |")


def evaluated(papers: Iterable[Paper], limit: int | None) -> dict[str, list[Paper]]:
    """The papers with keywords, per venue, the most papers first; with a limit, that many
    of each venue's, evenly spaced in corpus order (so every edition is represented)."""
    by_venue: dict[str, list[Paper]] = defaultdict(list)
    for paper in papers:
        if paper.keywords:
            by_venue[paper.venue].append(paper)
    if limit is not None:
        for venue, found in by_venue.items():
            if len(found) > limit:
                by_venue[venue] = [found[i * len(found) // limit] for i in range(limit)]
    return dict(sorted(by_venue.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def sample(by_venue: dict[str, list[Paper]], count: int, seed: int) -> list[Paper]:
    """`count` papers, round robin over the author-keyword venues, each venue's shuffled."""
    pools = [random.Random(f"{seed}-{venue}").sample(papers, len(papers))
             for venue, papers in by_venue.items() if venue not in AREA_LABEL_VENUES]
    chosen: list[Paper] = []
    while len(chosen) < count and any(pools):
        for pool in pools:
            if pool and len(chosen) < count:
                chosen.append(pool.pop())
    return chosen


def editions_table(by_venue: dict[str, list[Paper]], marks: dict[int, list[str]]) -> list[str]:
    """Per edition, with how many distinct keywords its papers carry: an edition whose papers
    pick from a short fixed list (ICLR 2017: 15 subject areas) is judged by other keywords."""
    lines = [f"\n### Per edition\n\n| edition | papers | keywords / paper | chips / paper "
             f"| fewer than {AT} chips | P@{AT} strict | P@{AT} lenient "
             f"| papers with a lenient hit | distinct keywords |",
             "|---|---|---|---|---|---|---|---|---|"]
    for venue, papers in by_venue.items():
        for year in sorted({p.year for p in papers}):
            tally = Tally()
            distinct: set[str] = set()
            for paper in papers:
                if paper.year == year:
                    tally.add(paper, marks[id(paper)])
                    distinct.update(" ".join(k.lower().split()) for k in paper.keywords)
            lines.append(f"{tally.row(f'{venue} {year}')} {len(distinct):,} |")
    return lines


def frequent_table(papers: Sequence[Paper], marks: dict[int, list[str]]) -> list[str]:
    counts: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for paper in papers:
        counts.update(paper.chips)
        right.update(c for c, m in zip(paper.chips, marks[id(paper)], strict=True) if m)
    lines = ["| chip | papers | correct (lenient) |", "|---|---|---|"]
    lines += [f"| {chip} | {n:,} | {right[chip]:,} |" for chip, n in counts.most_common(FREQUENT)]
    return lines


def examples_table(papers: Sequence[Paper], marks: dict[int, list[str]]) -> list[str]:
    sign = {"strict": " ✓", "lenient": " ≈", "": ""}
    lines = ["| paper | chips (✓ strict, ≈ lenient) | author keywords |", "|---|---|---|"]
    for paper in papers:
        chips = "; ".join(c + sign[m] for c, m in zip(paper.chips, marks[id(paper)], strict=True))
        title = paper.title.replace("|", "/") or paper.plain[:80]
        keywords = "; ".join(paper.keywords).replace("|", "/")
        lines.append(f"| {paper.venue} {paper.year}: {title} | {chips} | {keywords} |")
    return lines


def chip_marks(extract: Callable[..., list[str]], by_venue: dict[str, list[Paper]]
               ) -> tuple[dict[int, list[str]], dict[str, Tally]]:
    """Each paper's chips, each chip judged against its author keywords, tallied per venue."""
    titled = "title" in inspect.signature(extract).parameters  # older extractors: text only
    marks: dict[int, list[str]] = {}
    tallies: dict[str, Tally] = {}
    for venue, papers in by_venue.items():
        tally = tallies[venue] = Tally()
        for paper in papers:
            paper.chips = list(extract(paper.plain, title=paper.title) if titled
                               else extract(paper.plain))
            keywords = [terms for k in paper.keywords for terms in keyword_terms(k)]
            marks[id(paper)] = [judge(chip, keywords) for chip in paper.chips]
            tally.add(paper, marks[id(paper)])
    return marks, tallies


def print_per_venue(by_venue: dict[str, list[Paper]], marks: dict[int, list[str]],
                    tallies: dict[str, Tally], author: list[str]) -> None:
    print(f"## P@{AT} per venue\n")
    print(f"| venue | papers | keywords / paper | chips / paper | fewer than {AT} chips "
          f"| P@{AT} strict | P@{AT} lenient | papers with a lenient hit |")
    print("|---|---|---|---|---|---|---|---|")
    for venue in by_venue:
        label = f"{venue} (area labels)" if venue in AREA_LABEL_VENUES else venue
        print(tallies[venue].row(label))
    overall = Tally()
    for venue in author:
        for paper in by_venue[venue]:
            overall.add(paper, marks[id(paper)])
    print(overall.row(f"**overall: {', '.join(author)}**"))
    if len(author) < len(by_venue):
        for venue in by_venue:
            if venue in AREA_LABEL_VENUES:
                for paper in by_venue[venue]:
                    overall.add(paper, marks[id(paper)])
        print(overall.row("overall, area labels included"))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None,
                        help="evaluate at most N papers per venue")
    parser.add_argument("--module", default=None,
                        help="a copy of app/keyphrases.py to measure instead (baseline)")
    parser.add_argument("--seed", type=int, default=22, help="the example sample's seed")
    args = parser.parse_args(argv)
    module = load_module(args.module)
    started = time.perf_counter()
    corpus = load_corpus()
    loaded = time.perf_counter()
    word_df = dict(module.document_frequencies(p.plain for p in corpus))
    counted = time.perf_counter()
    by_venue = evaluated(corpus, args.limit)
    marks, tallies = chip_marks(module.KeyphraseExtractor(word_df, len(corpus)).extract,
                                by_venue)
    extracted = time.perf_counter()

    source = args.module or "app/keyphrases.py"
    author = [v for v in by_venue if v not in AREA_LABEL_VENUES]
    everyone = [p for papers in by_venue.values() for p in papers]
    authored = [p for v in author for p in by_venue[v]]
    print(f"# Keyphrase chips against author keywords ({source})\n")
    print(f"Word statistics over {len(corpus):,} abstracts ({len(word_df):,} words); chips of "
          f"the {len(everyone):,} papers with keywords"
          + (f" (at most {args.limit} per venue)" if args.limit else "") + ".\n")
    print_per_venue(by_venue, marks, tallies, author)
    print("\n".join(editions_table(by_venue, marks)))
    print("\n## Chip shapes\n")
    print("\n".join(shapes_table(everyone)))
    print(f"\nAuthor-keyword venues only ({', '.join(author)}):\n")
    print("\n".join(shapes_table(authored)))
    print(f"\n## The {FREQUENT} most frequent chips (author-keyword venues)\n")
    print("\n".join(frequent_table(authored, marks)))
    print(f"\n## {EXAMPLES} example papers (seed {args.seed})\n")
    print("\n".join(examples_table(sample(by_venue, EXAMPLES, args.seed), marks)))
    print(f"\nTimes: corpus parsed and normalized {loaded - started:.0f} s, word statistics "
          f"{counted - loaded:.0f} s, chips {extracted - counted:.0f} s.")


if __name__ == "__main__":
    main()
