"""A generated multi-series catalog: what the seeds lack (one year, under 50 papers a list,
one ingest time). Several series over 8+ years, editions over 50 papers, statuses, a list
file beside JSON Lines, and a second batch ingested later; plus many one-paper series, so
that lists of series are long enough to be cut ("show all", "other series").

Abstracts are built from topic phrases whose frequency changes with the year, so trends
and topic shares have a shape to check.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# series: (name, first year, last year, papers in the first edition, growth per year)
SERIES = {
    "alpha": ("ALPHA", 2012, 2021, 30, 6),  # 2021: 84 papers
    "beta": ("BETA", 2014, 2022, 20, 5),
    "gamma-conf": ("Gamma Conf", 2016, 2023, 12, 2),  # written as list files
}
TINY_SERIES = 26  # one paper each: more series than any list shows at once
STATUSES = ("Poster", "Poster", "Poster", "Oral", "Spotlight")
PHRASES = {
    "kernel": "kernel methods with a positive definite kernel",
    "transformer": "a transformer with self-attention layers",
    "robot": "a robot arm learning grasping policies",
    "graph": "graph neural network message passing",
    "bayes": "bayesian posterior inference with variational methods",
}
FILLER = ("we study", "experiments show", "our method improves", "on standard benchmarks",
          "we prove", "results suggest", "in practice", "at scale")


def _weights(year: int) -> dict[str, float]:
    """Kernels fade and transformers rise over the years."""
    t = (year - 2012) / 11
    return {"kernel": 1.0 - 0.8 * t, "transformer": 0.1 + 1.2 * t, "robot": 0.4,
            "graph": 0.3 + 0.3 * t, "bayes": 0.5}


def abstract(rng: random.Random, year: int, n: int) -> str:
    weights = _weights(year)
    names = list(PHRASES)
    picked = rng.choices(names, weights=[weights[k] for k in names], k=2)
    parts = [rng.choice(FILLER), PHRASES[picked[0]], rng.choice(FILLER), PHRASES[picked[1]],
             rng.choice(FILLER)]
    return f"Study {year}-{n}: " + ", ".join(parts) + "."


INSTITUTIONS = {"ETH Zurich": "Switzerland", "MIT": "United States",
                "Tsinghua University": "China", "University of Oxford": "United Kingdom",
                "Stanford University": "United States"}


AUTHORS = [f"{first} {last}" for first in ("Ada", "Alan", "Grace", "Kurt")
           for last in ("Lovelace", "Turing", "Hopper")]


def _origins(rng: random.Random) -> dict[str, list[str]]:
    """A paper's authors (one to three), institutions (none to two) and their countries."""
    chosen = rng.sample(sorted(INSTITUTIONS), rng.randint(0, 2))
    return {"authors": rng.sample(AUTHORS, rng.randint(1, 3)), "institutions": chosen,
            "countries": sorted({INSTITUTIONS[i] for i in chosen})}


def write_corpus(directory: Path) -> dict[str, Path]:
    """Write the files; returns them by batch: "first" and "later" (ingested afterwards)."""
    rng = random.Random(13)
    places = random.Random(29)  # a stream of its own: the abstracts stay as they were
    directory.mkdir(parents=True, exist_ok=True)
    first_rows, later_rows = [], []
    for slug, (name, start, end, size, growth) in SERIES.items():
        for year in range(start, end + 1):
            count = size + growth * (year - start)
            texts = [abstract(rng, year, i) for i in range(count)]
            if slug == "gamma-conf":
                path = directory / f"{slug}-{year}.txt"
                path.write_text(f"{name} {year} Papers\n\n" + "\n\n".join(texts) + "\n",
                                encoding="utf-8")
                continue
            rows = first_rows if year < end else later_rows  # the newest edition comes later
            rows.extend({"venue": name, "year": year, "title": f"{name} paper {year}-{i}",
                         "abstract": text, "status": rng.choice(STATUSES),
                         **_origins(places)}
                        for i, text in enumerate(texts))
    for i in range(TINY_SERIES):
        first_rows.append({"venue": f"Tiny{i:02d}", "year": 2020,
                           "abstract": abstract(rng, 2020, i) + f" Tiny venue {i}."
                           + (f" Code: https://github.com/tiny/t{i}" if i % 3 == 0 else "")})
    first = directory / "first.jsonl"
    later = directory / "later.jsonl"
    for path, rows in ((first, first_rows), (later, later_rows)):
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return {"first": first, "later": later}
