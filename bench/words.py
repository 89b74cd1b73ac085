"""Whether the catalog's word counts are facts (issue 22): totals beside the papers that hold
the word, trends before transformers existed, acronym groups, lowercase words.

    .venv/bin/python -m bench.words --catalog DATA_DIR   # an already-ingested catalog
    make bench                                           # printed after the L figures

Printed as markdown tables:

1. Precision: for everyday single-word queries, the catalog's total (exact matches, as the
   search page shows it) beside the papers that hold the word or one of its inflections, found
   without the project's analyzer: each query's forms are written out below (`INFLECTIONS`:
   plurals, possessives, verb endings, British spellings; a verb's -ing noun takes the verb's
   forms, as learning/learn) and matched case-insensitively as whole words (hyphens are
   boundaries) in what the index holds of each paper: title, author keywords and the plain
   abstract. ok when 0.95 <= total / papers <= 1.2.
2. Trends: the share of each year's papers before 2017 that `/trends?q=transformer` counts
   (`app/whats_new/trend_lines.py`), beside the share that holds the word; target <= 1 % every year.
3. Acronyms: every hand-written group (`app/search/words/synonyms.py`; acronyms as written,
   long forms plain and quoted) and the 20 learned acronyms defined by the most papers that
   the hand table does not cover (the acronym and each long form, quoted): the spread of their
   totals (max / min - 1), target <= 5 %.
4. Lowercase dictionary words (map, art, ai) beside the acronyms they resemble: their totals and
   the expansions the search reports; ok when a lowercase word expands to nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session

from app.config import Settings, get_settings
from app.db import get_engine
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.search.words.synonyms import SYNONYM_GROUPS
from app.whats_new.trend_lines import compute_trends

# Each query and the forms that count as it: the word, its inflections and British spellings.
INFLECTIONS: dict[str, tuple[str, ...]] = {
    "transformer": ("transformer", "transformers", "transformer's", "transformers'"),
    "generative": ("generative",),
    "positive": ("positive", "positives"),
    "relational": ("relational",),
    "network": ("network", "networks", "network's", "networks'", "networked", "networking"),
    "policy": ("policy", "policies", "policy's"),
    "query": ("query", "queries", "query's", "queried", "querying"),
    "learning": ("learn", "learns", "learned", "learnt", "learning", "learnings"),
    "model": ("model", "models", "model's", "models'", "modeled", "modelled", "modeling",
              "modelling"),
    "attention": ("attention", "attentions"),
    "diffusion": ("diffusion", "diffusions"),
    "graph": ("graph", "graphs", "graph's", "graphed", "graphing"),
    "embedding": ("embed", "embeds", "embedded", "embedding", "embeddings"),
    "kernel": ("kernel", "kernels"),
    "gradient": ("gradient", "gradients"),
    "reward": ("reward", "rewards", "rewarded", "rewarding"),
    "agent": ("agent", "agents", "agent's", "agents'"),
    "token": ("token", "tokens"),
    "prompt": ("prompt", "prompts", "prompted", "prompting"),
    "sample": ("sample", "samples", "sampled", "sampling", "samplings"),
    "feature": ("feature", "features", "featured", "featuring"),
    "label": ("label", "labels", "labeled", "labelled", "labeling", "labelling"),
    "retrieval": ("retrieval", "retrievals"),
    "segmentation": ("segmentation", "segmentations"),
    "detection": ("detection", "detections"),
    "language": ("language", "languages"),
    "image": ("image", "images", "imaged", "imaging"),
    "robot": ("robot", "robots", "robot's", "robots'"),
    "optimizer": ("optimizer", "optimizers", "optimiser", "optimisers"),
    "regularization": ("regularization", "regularizations", "regularisation",
                       "regularisations"),
    "computer": ("computer", "computers"),
    "general": ("general", "generals"),
    "generation": ("generation", "generations"),
    "position": ("position", "positions", "positioned", "positioning"),
    "relation": ("relation", "relations"),
    "transform": ("transform", "transforms", "transformed", "transforming"),
    "generate": ("generate", "generates", "generated", "generating"),
    "generalization": ("generalization", "generalizations", "generalisation",
                       "generalisations"),
    "computation": ("computation", "computations"),
    "relative": ("relative", "relatives"),
    "training": ("train", "trains", "trained", "training", "trainings"),
    "loss": ("loss", "losses"),
    "layer": ("layer", "layers"),
    "distribution": ("distribution", "distributions"),
    "classifier": ("classifier", "classifiers"),
    "probability": ("probability", "probabilities"),
    "memory": ("memory", "memories"),
    "dataset": ("dataset", "datasets"),
    "encoder": ("encoder", "encoders"),
    "bias": ("bias", "biases", "biased", "biasing"),
    "planning": ("plan", "plans", "planned", "planning", "plannings"),
    "convolution": ("convolution", "convolutions"),
    "inference": ("inference", "inferences"),
    "vision": ("vision", "visions"),
}
RATIO_BOUNDS = (0.95, 1.2)
TRENDS_QUERY, TRENDS_BEFORE, TRENDS_TARGET = "transformer", 2017, 0.01
SPREAD_TARGET = 0.05
LEARNED_ACRONYMS = 20
# Lowercase words beside the acronyms they resemble (issue 22): a lowercase word is the word.
LOWERCASE = [("map", "MAP"), ("mapping", "MAP"), ("art", "ART"), ("ai", "AIS")]


@dataclass(frozen=True)
class CatalogPaper:
    year: int
    text: str  # lowercased: title, author keywords and plain abstract, as the index holds them


def read_papers(database: Path) -> list[CatalogPaper]:
    """Every paper's year and searchable text, read once from the catalog's database."""
    db = sqlite3.connect(database)
    try:
        rows = db.execute("SELECT edition.year, paper.title, paper.keywords, paper.plain "
                          "FROM paper JOIN edition ON edition.slug = paper.edition_slug")
        return [CatalogPaper(year, "\n".join((title, keywords, plain)).lower())
                for year, title, keywords, plain in rows]
    finally:
        db.close()


class WholeWords:
    """Any of the (lowercase) forms as a whole word: not inside a longer run of letters,
    digits or underscores; hyphens, apostrophes and punctuation are boundaries."""

    def __init__(self, forms: tuple[str, ...]) -> None:
        alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
        self.pattern = re.compile(rf"\b(?:{alternatives})\b")
        # The forms' common start as a plain substring first: 8x faster than the regex alone,
        # which a leading \b keeps from scanning for a literal.
        self.start = os.path.commonprefix(list(forms))

    def __call__(self, text: str) -> bool:
        return self.start in text and self.pattern.search(text) is not None


def total(search: PaperSearch, q: str, year: int | None = None) -> int:
    return search.counts(SearchRequest(q=q, year=year)).total


def spread(totals: list[int]) -> float:
    """max / min - 1 (infinite when one is 0 and another is not)."""
    if not totals or max(totals) == 0:
        return 0.0
    return max(totals) / min(totals) - 1 if min(totals) else float("inf")


def precision(search: PaperSearch, papers: list[CatalogPaper]) -> list[dict]:
    rows = []
    for q, forms in INFLECTIONS.items():
        holds = WholeWords(forms)
        holding = sum(1 for paper in papers if holds(paper.text))
        catalog = total(search, q)
        ratio = catalog / holding if holding else float("inf")
        rows.append({"q": q, "catalog": catalog, "holding": holding, "ratio": ratio,
                     "ok": RATIO_BOUNDS[0] <= ratio <= RATIO_BOUNDS[1]})
    return rows


def trends(search: PaperSearch, papers: list[CatalogPaper], settings: Settings) -> list[dict]:
    """Per year before TRENDS_BEFORE: papers, what /trends counts, what holds the word."""
    with Session(get_engine(settings.database_url)) as session:
        found = compute_trends(search, session, [TRENDS_QUERY])
    holds = WholeWords(INFLECTIONS[TRENDS_QUERY])
    holding: dict[int, int] = defaultdict(int)
    for paper in papers:
        if paper.year < TRENDS_BEFORE and holds(paper.text):
            holding[paper.year] += 1
    line = found.terms[0]
    return [{"year": year, "papers": papers_that_year, "catalog": count, "share": share,
             "holding": holding[year],
             "holding_share": holding[year] / papers_that_year if papers_that_year else 0.0}
            for year, papers_that_year, count, share in zip(
                found.years, found.totals, line.counts, line.shares, strict=True)
            if year < TRENDS_BEFORE]


def _is_long_form(expression: str) -> bool:
    return " " in expression or "-" in expression


def hand_groups(search: PaperSearch) -> list[dict]:
    """Every hand-written group: acronyms as written, long forms plain and quoted."""
    rows = []
    for group in SYNONYM_GROUPS:
        queries = []
        for expression in group:
            queries.append(expression)
            if _is_long_form(expression):
                queries.append(f'"{expression}"')
        totals = [(q, total(search, q)) for q in queries]
        rows.append({"group": group[0], "totals": totals,
                     "spread": spread([n for _, n in totals])})
    return rows


def learned_groups(search: PaperSearch) -> list[dict]:
    """The learned acronyms defined by the most papers (summed over their meanings), those the
    hand table covers left out: the acronym and each of its long forms, quoted."""
    covered = {expression.lower() for group in SYNONYM_GROUPS for expression in group
               if not _is_long_form(expression)}
    meanings: dict[str, dict[str, int]] = defaultdict(dict)
    for meaning in search.learned_acronyms():
        if meaning.acronym.lower() in covered or f"{meaning.acronym.lower()}s" in covered:
            continue
        long_form = " ".join(meaning.long_form.replace('"', " ").split())
        forms = meanings[meaning.acronym]
        forms[long_form] = forms.get(long_form, 0) + meaning.papers
    chosen = sorted(meanings.items(), key=lambda am: (-sum(am[1].values()), am[0]))
    rows = []
    for acronym, forms in chosen[:LEARNED_ACRONYMS]:
        totals = [(acronym, total(search, acronym))]
        totals += [(f'"{long_form}"', total(search, f'"{long_form}"'))
                   for long_form in sorted(forms, key=lambda f: -forms[f])]
        rows.append({"group": acronym, "defined_by": sum(forms.values()), "totals": totals,
                     "spread": spread([n for _, n in totals])})
    return rows


def _described(search: PaperSearch, q: str) -> dict:
    """A query's total, the expansions its parsed query reports and the search's notes."""
    result = search.counts(SearchRequest(q=q))
    return {"q": q, "total": result.total, "notes": list(result.notes),
            "expansions": [f"{word} → {', '.join(meanings)}"
                           for word, meanings in result.expansions]}


def lowercase_words(search: PaperSearch) -> list[dict]:
    """Each lowercase word beside its acronym; ok when the word reports no expansion."""
    rows = []
    for word, acronym in LOWERCASE:
        found = _described(search, word)
        rows.append({"word": found, "acronym": _described(search, acronym),
                     "ok": not found["expansions"]})
    return rows


def measure_words(settings: Settings) -> dict:
    """Every table of this module for one catalog (its database and its live index)."""
    started = time.perf_counter()
    papers = read_papers(settings.database_path)
    search = PaperSearch(settings.index_path, result_cache=0)
    try:
        report = {"papers": len(papers), "precision": precision(search, papers),
                  "trends": trends(search, papers, settings),
                  "hand_groups": hand_groups(search), "learned_groups": learned_groups(search),
                  "lowercase": lowercase_words(search)}
    finally:
        search.close()
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def _ratio(value: float) -> str:
    return "∞" if value == float("inf") else f"{value:.2f}"


def _spread(value: float) -> str:
    if value == float("inf"):
        return "∞"
    return f"{value:.1%}" if value < 1 else f"{value:,.0%}"


def _members(totals: list[tuple[str, int]]) -> str:
    return " · ".join(f"{q.replace('|', '/')} {n:,}" for q, n in totals)


def print_words(report: dict) -> None:
    _print_precision(report)
    _print_trends(report["trends"])
    _print_symmetry(report)
    _print_lowercase(report["lowercase"])


def _print_precision(report: dict) -> None:
    low, high = RATIO_BOUNDS
    rows = report["precision"]
    print(f"\n### Words: catalog totals beside the papers that hold the word "
          f"({report['papers']:,} papers, {report['seconds']} s)\n")
    print("| query | catalog total | papers with the word or an inflection | ratio | verdict |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        verdict = "ok" if r["ok"] else ("too many" if r["ratio"] > high else "too few")
        print(f"| `{r['q']}` | {r['catalog']:,} | {r['holding']:,} | {_ratio(r['ratio'])} "
              f"| {verdict} |")
    within = sum(r["ok"] for r in rows)
    print(f"\n{within} of {len(rows)} queries within bounds ({low} <= total / papers "
          f"<= {high}); {sum(r['ratio'] > high for r in rows)} count too many, "
          f"{sum(r['ratio'] < low for r in rows)} too few.")


def _print_trends(years: list[dict]) -> None:
    print(f"\n### Trends: `/trends?q={TRENDS_QUERY}` before {TRENDS_BEFORE}\n")
    print("| year | papers | catalog counts | share | papers with the word | share |")
    print("|---|---:|---:|---:|---:|---:|")
    for y in years:
        print(f"| {y['year']} | {y['papers']:,} | {y['catalog']:,} | {y['share']:.1%} "
              f"| {y['holding']:,} | {y['holding_share']:.1%} |")
    worst = max(years, key=lambda y: y["share"], default=None)
    if worst:
        print(f"\nmax share before {TRENDS_BEFORE}: {worst['share']:.1%} ({worst['year']}; "
              f"target <= {TRENDS_TARGET:.0%}): "
              f"{'ok' if worst['share'] <= TRENDS_TARGET else 'too high'}")


def _print_symmetry(report: dict) -> None:
    for key, title in (("hand_groups", "hand-written groups (`app/search/words/synonyms.py`)"),
                       ("learned_groups", f"the {LEARNED_ACRONYMS} learned acronyms defined "
                                          "by the most papers, beyond the hand table")):
        groups = report[key]
        print(f"\n### Acronym symmetry: {title}\n")
        learned = key == "learned_groups"
        print(f"| group |{' defined by |' if learned else ''} totals | spread | verdict |")
        print(f"|---|{'---:|' if learned else ''}---|---:|---|")
        for g in groups:
            defined = f" {g['defined_by']:,} |" if learned else ""
            verdict = "ok" if g["spread"] <= SPREAD_TARGET else "asymmetric"
            print(f"| {g['group']} |{defined} {_members(g['totals'])} | {_spread(g['spread'])} "
                  f"| {verdict} |")
        symmetric = sum(g["spread"] <= SPREAD_TARGET for g in groups)
        print(f"\n{symmetric} of {len(groups)} groups within {SPREAD_TARGET:.0%}.")


def _print_lowercase(pairs: list[dict]) -> None:
    print("\n### Lowercase dictionary words beside acronyms\n")
    print("| word | total | expansions reported | acronym | total | expansions reported "
          "| verdict |")
    print("|---|---:|---|---|---:|---|---|")
    for pair in pairs:
        cells = []
        for found in (pair["word"], pair["acronym"]):
            said = "; ".join(found["expansions"]) or "none"
            if found["notes"]:
                said += f" (notes: {' '.join(found['notes'])})"
            cells.append(f"`{found['q']}` | {found['total']:,} | {said}")
        print(f"| {' | '.join(cells)} | {'ok' if pair['ok'] else 'expands'} |")
    print(f"\n{sum(p['ok'] for p in pairs)} of {len(pairs)} lowercase words expand to "
          "nothing.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path,
                        help="a catalog's data directory (default: CATALOG_DATA_DIR or ./data)")
    args = parser.parse_args()
    settings = get_settings()
    if args.catalog:
        settings = Settings(data_dir=args.catalog.resolve(), seeds_dir=settings.seeds_dir)
    print_words(measure_words(settings))


if __name__ == "__main__":
    main()
