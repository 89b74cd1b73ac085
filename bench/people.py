"""People at scale (issue 23): the counts the author, institution and country pages show,
checked against the corpus counted here on its own, and the pages' sizes and times.

    .venv/bin/python -m bench.people --catalog DIR     # DIR: a catalog of ../shared/corpus

The corpus is read straight from its JSON Lines; a paper is counted once per edition and
abstract (as the catalog stores it), a name once per paper, after the normalization the
README promises (NFC, single spaces, stray separators dropped).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import Settings
from app.ids import name_slug
from app.main import create_app
from bench.harness import CORPUS

STRAY = " ,;:|/*·•†‡"


def _name(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split()).strip(STRAY)


def corpus_counts() -> dict[str, dict[str, set[str]]]:
    """{kind: {slug: the keys of its papers}}, counted from the corpus files."""
    found: dict[str, dict[str, set[str]]] = {k: defaultdict(set) for k in
                                             ("author", "institution", "country")}
    seen: set[str] = set()
    for path in sorted(CORPUS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                key = f"{row['venue']}|{row['year']}|{' '.join(row['abstract'].split())}"
                if key in seen:
                    continue
                seen.add(key)
                for kind, field in (("author", "authors"), ("institution", "institutions"),
                                    ("country", "countries")):
                    for name in row.get(field) or []:
                        if _name(name):
                            found[kind][name_slug(_name(name))].add(key)
    return found


def check_counts(client: TestClient, counts: dict[str, dict[str, set[str]]],
                 rng: random.Random) -> list[str]:
    problems = []
    bases = {"author": "/api/authors/", "institution": "/api/institutions/",
             "country": "/api/countries/"}
    for kind, slugs in counts.items():
        ranked = sorted(slugs, key=lambda s: -len(slugs[s]))
        chosen = ranked[:20] + rng.sample(ranked[20:], min(40, len(ranked) - 20))
        checked = 0
        for slug in chosen:
            got = client.get(bases[kind] + slug)
            if got.status_code != 200:
                problems.append(f"{kind} {slug}: HTTP {got.status_code}")
                continue
            if got.json()["paper_count"] != len(slugs[slug]):
                problems.append(f"{kind} {slug}: page {got.json()['paper_count']}, "
                                f"corpus {len(slugs[slug])}")
            checked += 1
        print(f"{kind}: {checked} pages checked against the corpus "
              f"({len(slugs):,} in the corpus)")
    return problems


def check_coauthors(client: TestClient, counts: dict[str, dict[str, set[str]]]) -> list[str]:
    authors = counts["author"]
    problems = []
    for slug in sorted(authors, key=lambda s: -len(authors[s]))[:5]:
        mine = authors[slug]
        shared = {other: len(mine & papers) for other, papers in authors.items()
                  if other != slug and mine & papers}
        for person in client.get(f"/api/authors/{slug}").json()["people"]:
            if shared.get(person["slug"]) != person["papers"]:
                problems.append(f"{slug} with {person['slug']}: page {person['papers']}, "
                                f"corpus {shared.get(person['slug'])}")
    print("co-authors of the 5 largest authors checked")
    return problems


def sizes_and_times(client: TestClient, counts: dict[str, dict[str, set[str]]],
                    rng: random.Random) -> None:
    authors = counts["author"]
    largest = max(authors, key=lambda s: len(authors[s]))
    first = [min(corpus_years(client))]
    for label, url in (("largest author page", f"/authors/{largest}"),
                       ("/institutions, all years",
                        f"/institutions?from={first[0]}&to=2025"),
                       ("/countries, all years", f"/countries?from={first[0]}&to=2025"),
                       ("largest institution page", "/institutions/" + max(
                           counts["institution"], key=lambda s: len(counts["institution"][s]))),
                       ("largest country page", "/countries/" + max(
                           counts["country"], key=lambda s: len(counts["country"][s])))):
        start = time.perf_counter()
        body = client.get(url).content
        print(f"{label} ({url}): {len(body) / 1024:.0f} KB, first render "
              f"{1000 * (time.perf_counter() - start):.0f} ms")
    names = list(authors)
    typed = [name_slug(rng.choice(names)).split("-")[-1][:rng.randint(3, 6)]
             for _ in range(200)]
    took = []
    for q in typed:
        start = time.perf_counter()
        client.get("/api/authors", params={"q": q})
        took.append(1000 * (time.perf_counter() - start))
    print(f"/api/authors?q= over 200 surname prefixes: p50 {statistics.median(took):.1f} ms, "
          f"p95 {statistics.quantiles(took, n=20)[18]:.1f} ms")


def corpus_years(client: TestClient) -> list[int]:
    return [v["year"] for v in client.get("/api/venues").json()["venues"]]


def measure_people(catalog: Path) -> None:
    """Check the people pages of a catalog of the whole corpus (JSON Lines) and print."""
    rng = random.Random(23)
    counts = corpus_counts()
    with TestClient(create_app(Settings(data_dir=catalog, seeds_dir=catalog)),
                    base_url="http://localhost") as client:  # a host served by default
        problems = check_counts(client, counts, rng) + check_coauthors(client, counts)
        sizes_and_times(client, counts, rng)
    print(f"{len(problems)} counts differ from the corpus")
    for problem in problems[:20]:
        print("  " + problem)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, required=True, help="a data directory")
    measure_people(parser.parse_args().catalog)


if __name__ == "__main__":
    main()
