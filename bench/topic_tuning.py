"""Topic assignment against the evidence it may be tuned on (docs/topics.md, issue 30):

- the seed labels (tests/data/topic_labels.json): top-1 and top-3, scored as
  tests/topics/test_topics.py scores them (headline and plain text, no series);
- the low-confidence hand sample (`labels` in tests/data/topic_tuning_labels.json): top-1;
- the ICLR keyword labels (`keywords` there: an ICLR paper whose author keywords map to
  exactly one topic is labelled with it): top-1 and top-3.

Corpus papers are scored as ingest scores them (with their series). The venues' areas of
bench/topics.py are not read here: they evaluate, they do not tune.

    .venv/bin/python -m bench.topic_tuning [--corpus DIR] [--time N]

`--time N` also times scoring (`assign`) N corpus papers, their text already normalized.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path

from app.ids import edition_slug, paper_id, series_slug
from app.ingest.listfile import parse_list_bytes
from app.ingest.normalize import normalize_abstract
from app.tex import title_text
from app.topics import TopicScorer
from app.topics.fit import paper_text

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "tests" / "data"

Paper = tuple[str, str, str | None]  # headline, plain text, series slug


def seed_papers() -> dict[str, Paper]:
    """The seed papers by paper ID, as ingest stores them."""
    papers: dict[str, Paper] = {}
    for path in sorted((ROOT / "seeds").glob("*.txt")):
        for raw in parse_list_bytes(path, path.read_bytes()).abstracts:
            normalized = normalize_abstract(raw.text)
            headline = title_text(raw.title) or normalized.headline
            papers[paper_id(edition_slug(raw.venue, raw.year), raw.text)] = (
                headline, normalized.plain, None)
    return papers


def corpus_rows(corpus: Path) -> Iterator[dict]:
    for path in sorted(corpus.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as rows:
            yield from map(json.loads, rows)


def as_paper(row: dict) -> Paper:
    return (*paper_text(row.get("title") or "", row["abstract"]), series_slug(row["venue"]))


def tuning_papers(corpus: Path) -> tuple[list[tuple[Paper, str]], list[tuple[Paper, str]]]:
    """(paper, label) of the hand sample and of the ICLR keyword labels."""
    data = json.loads((DATA / "topic_tuning_labels.json").read_text(encoding="utf-8"))
    sample_labels, keyword_topic = data["labels"], data["keywords"]
    sample, keywords = [], []
    for row in corpus_rows(corpus):
        key = f"{row['venue']} {row['year']}: {row.get('title') or ''}"
        if key in sample_labels:
            sample.append((as_paper(row), sample_labels[key]))
        if row["venue"] == "ICLR":
            topics = {keyword_topic[k.strip().lower()] for k in row.get("keywords") or ()
                      if k.strip().lower() in keyword_topic}
            if len(topics) == 1:
                keywords.append((as_paper(row), topics.pop()))
    return sample, keywords


def hits(scorer: TopicScorer, labelled: list[tuple[Paper, str]]) -> tuple[int, int]:
    """How many labels are the primary topic (top-1) and among the three best (top-3)."""
    top1 = top3 = 0
    for (headline, plain, series), label in labelled:
        primary = scorer.assign(headline, plain, series)[0][0]
        ranked = [slug for slug, _ in scorer.scores(headline, plain, series)[:3]]
        top1 += primary == label
        top3 += primary == label or label in ranked
    return top1, top3


def seconds_per_paper(scorer: TopicScorer, corpus: Path, n: int) -> float:
    papers = [as_paper(row) for row, _ in zip(corpus_rows(corpus), range(n), strict=False)]
    start = time.process_time()
    for headline, plain, series in papers:
        scorer.assign(headline, plain, series)
    return (time.process_time() - start) / len(papers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--time", type=int, default=0, metavar="N")
    args = parser.parse_args()
    scorer = TopicScorer()
    seed_labels = json.loads((DATA / "topic_labels.json").read_text(encoding="utf-8"))["labels"]
    seeds = seed_papers()
    labelled_seeds = [(seeds[pid], label) for pid, label in seed_labels.items()]
    sample, keywords = tuning_papers(args.corpus)
    for name, labelled in (("seeds", labelled_seeds), ("low-confidence sample", sample),
                           ("ICLR keyword labels", keywords)):
        top1, top3 = hits(scorer, labelled)
        n = len(labelled)
        print(f"{name:<24} {n:>5}  top-1 {top1:>5} = {top1 / n:6.1%}"
              f"  top-3 {top3:>5} = {top3 / n:6.1%}")
    if args.time:
        ms = 1000 * seconds_per_paper(scorer, args.corpus, args.time)
        print(f"scoring: {ms:.3f} ms of CPU a paper ({args.time} corpus papers)")


if __name__ == "__main__":
    main()
