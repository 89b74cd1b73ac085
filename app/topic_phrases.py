"""Phrases a topic gains from its own description and from ICLR authors' keywords, written
into app/topics.json as each topic's `expanded` phrases (its hand-written `phrases` win where
both name one).

The hand-written phrases were drawn from a few hundred abstracts, so a topic misses words its
papers use often: "stochastic optimization", "bayesian neural networks".
Two sources fill them in without labels of anyone's venue:

- the taxonomy's descriptions: each item of a description list ("causal discovery, causal
  effects, interventions and counterfactuals") names the topic, so it is a phrase of it;
- ICLR's author keywords, the field's own names for what a paper is about: a keyword whose
  papers (those at ICLR, ICML and NeurIPS whose abstracts use it) the phrases mostly put in
  one topic joins that topic, with a weight that grows with how sure that is.

    .venv/bin/python -m app.topic_phrases [--corpus ml-abstracts.jsonl.gz]

rewrites the `expanded` phrases of app/topics.json (deterministic; 15 s). Only the
ICLR, ICML and NeurIPS file is read: AAAI and IJCAI papers carry their venues' areas and
keywords, which measure the assignment (bench/topics.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from app.ingest.normalize import normalize_abstract, title_text
from app.search.analysis import analyze
from app.topics import MAX_PHRASE_TOKENS, OTHER, Taxonomy, Topic, TopicScorer, read_taxonomy

TOPICS_FILE = Path(__file__).with_name("topics.json")
# ICLR, ICML and NeurIPS: the venues whose areas the taxonomy is, and no AAAI or IJCAI paper.
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "ml-abstracts.jsonl.gz"
KEYWORD_VENUE = "ICLR"
# Description items are the topic's definition, as sure as a middling hand-written phrase.
DESCRIPTION_WEIGHT = 2.0
# A description item fewer abstracts use is the description's wording ("training finds
# solutions"), not the field's.
MIN_DESCRIPTION_PAPERS = 3
# A keyword fewer authors chose is a one-off name, not the field's.
MIN_KEYWORD_PAPERS = 3
# A phrase in fewer abstracts says too little about where its papers go.
MIN_PAPERS = 10
# The share of a phrase's papers (smoothed towards none) that must share a primary topic;
# below it the phrase spans topics ("deep learning", "robustness") and only adds noise.
MIN_SHARE = 0.5
SMOOTHING = 5
MAX_WEIGHT = 3.0
_SPLIT = re.compile(r"[,:;.()]|\b(?:and|or|such as|where|with|for)\b")
# Words that open a description item without naming anything ("other foundation models").
_OPENERS = frozenset({"other", "their", "its", "new", "the", "a", "an"})
# Words that open a clause of the description ("how they sample", "combining neural
# networks"): what follows is its wording, not a name of the topic.
_CLAUSES = frozenset({"how", "why", "what", "making", "combining", "carrying",
                      "understanding"})

Paper = tuple[str, str, list[str]]  # headline, plain text, author keywords


def description_phrases(description: str) -> list[str]:
    """The items of two or three words a description lists, without their opening words:
    its single words ("data", "text", "flow") name more than the topic, and its clauses
    are wording."""
    items = []
    for item in _SPLIT.split(description.lower()):
        words = item.split()
        while words and words[0] in _OPENERS:
            words = words[1:]
        if 2 <= len(words) <= 3 and words[0] not in _CLAUSES:
            items.append(" ".join(words))
    return items


def read_papers(corpus: Path) -> list[Paper]:
    papers = []
    with gzip.open(corpus, "rt", encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            plain = normalize_abstract(row["abstract"]).plain
            keywords = (sorted({k.strip().lower() for k in row.get("keywords") or []} - {""})
                        if row["venue"] == KEYWORD_VENUE else [])
            papers.append((title_text(row.get("title") or "") or plain[:200], plain, keywords))
    return papers


def author_keywords(papers: list[Paper]) -> list[str]:
    counts = Counter(k for _, _, keywords in papers for k in keywords)
    return sorted(k for k, n in counts.items() if n >= MIN_KEYWORD_PAPERS)


def papers_using(phrases: set[tuple[str, ...]], paper: Paper) -> Iterator[tuple[str, ...]]:
    """The phrases a paper's headline or text contains, each once."""
    tokens = (*analyze(paper[0]), "\n", *analyze(paper[1]))
    grams = {tuple(tokens[i:i + n]) for n in range(1, MAX_PHRASE_TOKENS + 1)
             for i in range(len(tokens) - n + 1)}
    return iter(phrases & grams)


def keyword_phrases(scorer: TopicScorer, papers: list[Paper],
                    known: set[tuple[str, ...]]) -> dict[str, dict[str, float]]:
    """Topic → {keyword: weight} for keywords whose papers mostly share a primary topic."""
    candidates: dict[tuple[str, ...], str] = {}
    for keyword in author_keywords(papers):
        tokens = tuple(analyze(keyword))
        if tokens and tokens not in known and len(tokens) <= MAX_PHRASE_TOKENS:
            candidates.setdefault(tokens, keyword)
    topics_of: dict[tuple[str, ...], Counter[str]] = {}
    for paper in papers:
        primary = scorer.assign(paper[0], paper[1])[0][0]
        for tokens in papers_using(set(candidates), paper):
            topics_of.setdefault(tokens, Counter())[primary] += 1
    found: dict[str, dict[str, float]] = {}
    for tokens, topics in sorted(topics_of.items()):
        n = sum(topics.values())
        slug, hits = topics.most_common(1)[0]
        share = hits / (n + SMOOTHING)
        if n < MIN_PAPERS or slug == OTHER or share < MIN_SHARE:
            continue
        # Weight MAX_WEIGHT for a phrase whose papers are all the topic's, half at MIN_SHARE.
        weight = MAX_WEIGHT * (1 + (share - MIN_SHARE) / (1 - MIN_SHARE)) / 2
        found.setdefault(slug, {})[candidates[tokens]] = round(weight * 2) / 2
    return found


def expand(corpus: Path, path: Path = TOPICS_FILE) -> None:
    """Recompute every topic's `expanded` phrases into `path`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    hand = read_taxonomy(path)
    papers = read_papers(corpus)
    known = {tuple(analyze(p)) for t in hand.topics for p in t.phrases}
    items = {tuple(analyze(p)): (t.slug, p) for t in hand.topics if t.slug != OTHER
             for p in description_phrases(t.description)}
    uses = Counter(tokens for paper in papers for tokens in papers_using(set(items), paper))
    described: dict[str, dict[str, float]] = {}
    for tokens, (slug, phrase) in items.items():
        if uses[tokens] >= MIN_DESCRIPTION_PAPERS and tokens not in known:
            described.setdefault(slug, {})[phrase] = DESCRIPTION_WEIGHT
            known.add(tokens)
    # Keywords are placed by the hand-written and description phrases only, so that a rerun
    # gives the same file.
    seeded = Taxonomy([Topic(t.slug, t.name, t.description,
                             {**described.get(t.slug, {}), **t.phrases}) for t in hand.topics],
                      hand.min_score, hand.secondary_share)
    keywords = keyword_phrases(TopicScorer(seeded), papers, known)
    for topic in data["topics"]:
        topic["expanded"] = {**described.get(topic["slug"], {}),
                             **keywords.get(topic["slug"], {})}
    path.write_text(readable_json(data), encoding="utf-8")


def readable_json(data: dict[str, object]) -> str:
    """topics.json as it is written by hand: a topic's name and description on one line,
    its phrases and expanded phrases on one line each."""
    def topic(t: dict[str, object]) -> str:
        named = {k: v for k, v in t.items() if k not in ("phrases", "expanded")}
        lines = [json.dumps(named, ensure_ascii=False)[:-1]]
        lines += [f' "{k}": {json.dumps(t[k], ensure_ascii=False)}'
                  for k in ("phrases", "expanded") if k in t]
        return ",\n    ".join(lines) + "}"
    head = {k: v for k, v in data.items() if k != "topics"}
    topics = ",\n    ".join(topic(t) for t in data["topics"])  # type: ignore[union-attr]
    return (json.dumps(head, ensure_ascii=False, indent=2)[:-2]
            + f',\n  "topics": [\n    {topics}\n  ]\n}}\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    expand(parser.parse_args().corpus)


if __name__ == "__main__":
    main()
