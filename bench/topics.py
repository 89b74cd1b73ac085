"""Topic assignment against the venues' own areas: AAAI 2022 and IJCAI 2020–24 papers carry
their conference's `primary_area` (../shared/corpus/more-abstracts.jsonl.gz). Areas that map
clearly onto our taxonomy are scored: top-1 (our primary topic is an allowed one) and top-3
(an allowed topic among our three best), per area, per venue and overall.

    .venv/bin/python -m bench.topics [--corpus PATH]

These labels are for evaluation only: nothing reads them but this script, and no weight or
phrase is chosen by looking at them (docs/topics.md, "Measured against the venues' areas").
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

from app.ids import series_slug
from app.ingest.normalize import normalize_abstract
from app.tex import title_text
from app.topics import default_scorer

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "more-abstracts.jsonl.gz"

# The venue's area → the topics of ours that honestly cover it. Areas that span several of
# ours without one clear home (Machine Learning, Data Mining, Planning, Search, Game Theory,
# Multi-agent Systems, Humans and AI, Constraints) are left out.
VISION = ("applications",)
LANGUAGE = ("applications", "foundation-models")
ETHICS = ("alignment-safety",)
AREAS: dict[str, tuple[str, ...]] = {
    "Computer Vision": VISION, "Computer Vision I": VISION, "Computer Vision II": VISION,
    "Computer Vision III": VISION,
    "Natural Language Processing": LANGUAGE, "Speech and Natural Language Processing": LANGUAGE,
    "AI Ethics, Trust, Fairness": ETHICS, "AI Ethics": ETHICS,
    "Philosophy and Ethics of AI": ETHICS,
    "Knowledge Representation and Reasoning": ("neurosymbolic",),
    "Robotics": ("robotics",), "Intelligent Robotics": ("robotics",),
    "Uncertainty in AI": ("probabilistic-methods", "causal-reasoning"),
    "Reasoning under Uncertainty": ("probabilistic-methods", "causal-reasoning"),
    "Cognitive Modeling & Cognitive Systems": ("neuroscience-cognition",),
}
# Areas whose numbers are reported under one name (Computer Vision I–III are one area).
GROUPS = {"Computer Vision I": "Computer Vision", "Computer Vision II": "Computer Vision",
          "Computer Vision III": "Computer Vision", "AI Ethics": "AI Ethics, Trust, Fairness",
          "Philosophy and Ethics of AI": "AI Ethics, Trust, Fairness",
          "Intelligent Robotics": "Robotics", "Reasoning under Uncertainty": "Uncertainty in AI"}


def agreement(corpus: Path) -> dict[str, dict[str, Counter[str]]]:
    """Counts of papers, top-1 and top-3 hits by area, by venue and overall."""
    scorer = default_scorer()
    tally: dict[str, dict[str, Counter[str]]] = {"area": {}, "venue": {}, "all": {}}
    with gzip.open(corpus, "rt", encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            allowed = AREAS.get(row.get("primary_area") or "")
            if allowed is None:
                continue
            plain = normalize_abstract(row["abstract"]).plain
            headline = title_text(row.get("title") or "") or plain[:200]
            series = series_slug(row["venue"])  # as ingest passes it; in no family
            ranked = [slug for slug, _ in scorer.scores(headline, plain, series)] or ["other"]
            assigned = scorer.assign(headline, plain, series)[0][0]
            hits = Counter(papers=1, top1=assigned in allowed,
                           top3=any(slug in allowed for slug in ranked[:3]))
            area = GROUPS.get(row["primary_area"], row["primary_area"])
            for kind, key in (("area", area), ("venue", row["venue"]), ("all", "all")):
                tally[kind].setdefault(key, Counter()).update(hits)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    tally = agreement(args.corpus)
    print(f"{'':<42} {'papers':>7} {'top-1':>7} {'top-3':>7}")
    for kind in ("area", "venue", "all"):
        for key, counts in sorted(tally[kind].items(), key=lambda kv: -kv[1]["papers"]):
            n = counts["papers"]
            print(f"{key:<42} {n:>7} {counts['top1'] / n:>7.1%} {counts['top3'] / n:>7.1%}")
        print()


if __name__ == "__main__":
    main()
