"""The same answers before and after a restructuring (issue 41): a fixed list of URLs (every
page, its JSON twin and its downloads) fetched through the real app in-process, each answer's
status, media type and SHA-256 of its body written to a file, then compared after the change.

    .venv/bin/python -m bench.answers --catalog DATA_DIR --write before.json
    .venv/bin/python -m bench.answers --catalog DATA_DIR --compare before.json

The URLs are drawn from the catalog itself, always the same way: its first editions, series,
topics, papers, authors, institutions and countries (as its JSON API lists them), each as a
page, a JSON twin and in every download format, and a fixed list of searches (keywords,
phrases, questions, a description, a pasted abstract, filters, facets, sorting, paging, a typo,
nothing found). At least 200 URLs on the seeds; more on a catalog with people. Run the
`--write` with the code before the change (e.g. in a worktree of the old commit, with this
file copied in) and the `--compare` with the code after, on the same catalog.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import get_args
from urllib.parse import quote, urlencode

from fastapi.testclient import TestClient

from app.config import Settings
from app.exports import ListFormat
from bench.questions import catalog_settings

FORMATS = get_args(ListFormat)  # every list download
PASTED = ("We study how transformers learn in context. " * 8).strip()
SEARCHES = (
    "transformer", '"graph neural network"', "in-context learning", "LLM", "robot*",
    "how to make diffusion models sample faster", "what is the best way to avoid forgetting",
    "a method that makes diffusion models sample faster with fewer steps and no retraining",
    "diffusion year:2020-2026", "attention -transformer", "diffusion OR flow", "has:code",
    "tranformer", "zzqxwv", "learning", "what", PASTED,
)
# Filters, facets, sorting and paging, each with one keyword query.
SEARCH_PARAMS = ({"sort": "venue"}, {"page": "2"}, {"year": "2026"}, {"code": "1"})
EACH = 4  # editions, series, topics, papers, people of each kind, taken from the catalog


def _first(client: TestClient, path: str, key: str, field: str = "slug") -> list[str]:
    answer = client.get(path)
    if answer.status_code != 200:
        return []
    return [str(item[field]) for item in answer.json().get(key, [])[:EACH]]


def _with_formats(page: str) -> list[str]:
    return [page, *(f"{page}.{fmt}" for fmt in FORMATS)]


def _resources(client: TestClient) -> Iterator[str]:
    """Each listed resource's page, its downloads and its JSON twin."""
    editions = _first(client, "/api/venues", "venues")
    for slug in editions:
        yield from _with_formats(f"/venues/{slug}")
        yield f"/api/venues/{slug}/papers"
    for slug in _first(client, "/api/series", "series"):
        yield from (f"/venues/{slug}", f"/api/series/{slug}")
    for slug in _first(client, "/api/topics", "topics"):
        yield from (*_with_formats(f"/topics/{slug}"), f"/api/topics/{slug}/papers")
    papers = (client.get(f"/api/venues/{editions[0]}/papers").json()["papers"]
              if editions else [])
    for paper in papers[:EACH]:
        page = f"/papers/{paper['id']}"
        yield from (page, f"{page}.bib", f"{page}.ris", f"/api/papers/{paper['id']}")
    ids = ",".join(paper["id"] for paper in papers[:3])
    yield from (f"/api/recommendations?ids={ids}", f"/saved?ids={ids}", f"/saved.csv?ids={ids}")
    yield from _people(client)


def _people(client: TestClient) -> Iterator[str]:
    """Authors (those matching "li"), institutions and countries of every year."""
    for kind, listing, key in (("authors", "?q=li", "authors"),
                               ("institutions", "?from=1900", "ranked"),
                               ("countries", "?from=1900", "ranked")):
        yield from (f"/{kind}", f"/{kind}{listing}", f"/api/{kind}{listing}")
        for slug in _first(client, f"/api/{kind}{listing}", key):
            yield from (*_with_formats(f"/{kind}/{quote(slug)}"), f"/api/{kind}/{quote(slug)}")


def _searches() -> Iterator[str]:
    for q in SEARCHES:
        query = urlencode({"q": q})
        yield from (f"/search?{query}", f"/api/search?{query}",
                    *(f"/search.{fmt}?{query}" for fmt in FORMATS),
                    f"/trends?{query}", f"/api/trends?{query}")
    for params in SEARCH_PARAMS:
        query = urlencode({"q": "learning", **params})
        yield from (f"/search?{query}", f"/api/search?{query}")


def _fixed() -> Iterator[str]:
    yield from ("/", "/venues", "/topics", "/trends", "/help/search", "/api/venues",
                "/api/series", "/api/topics", "/api/whats-new", "/api/trends",
                "/api/suggest?q=tra", "/api/suggest?q=icl", "/api/map", "/saved",
                "/opensearch.xml", "/robots.txt",
                "/sitemap.xml", "/openapi.json", "/papers/0000000000000000", "/venues/nope",
                "/search?q=%22unclosed", "/api/search?q=(((a")


def urls(client: TestClient) -> list[str]:
    return list(dict.fromkeys([*_fixed(), *_resources(client), *_searches()]))


def answers(settings: Settings) -> dict[str, dict[str, object]]:
    """Each URL's status, media type and the SHA-256 of its body."""
    from app.main import create_app

    found: dict[str, dict[str, object]] = {}
    with TestClient(create_app(settings), base_url="http://localhost",
                    raise_server_exceptions=False) as client:
        for url in urls(client):
            answer = client.get(url)
            found[url] = {"status": answer.status_code,
                          "type": answer.headers.get("content-type", ""),
                          "sha256": hashlib.sha256(answer.content).hexdigest()}
    return found


def differences(before: dict, after: dict) -> list[str]:
    return [f"{url}: {'missing now' if url not in after else 'new' if url not in before else ''}"
            + (f"{before[url]['status']} -> {after[url]['status']}, body changed"
               if url in before and url in after else "")
            for url in sorted(before.keys() | after.keys())
            if before.get(url) != after.get(url)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, help="the catalog's data dir "
                        "(default: CATALOG_DATA_DIR)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", type=Path, help="write the answers to this file")
    action.add_argument("--compare", type=Path, help="compare the answers with this file")
    args = parser.parse_args()
    settings = catalog_settings(args.catalog)
    found = answers(settings)
    statuses = sorted({answer["status"] for answer in found.values()})
    print(f"{len(found)} URLs fetched (statuses {statuses}) from {settings.data_dir}")
    if args.write:
        args.write.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        return
    changed = differences(json.loads(args.compare.read_text()), found)
    print(f"{len(changed)} answers differ from {args.compare}")
    for line in changed:
        print(f"  {line}")
    raise SystemExit(1 if changed else 0)


if __name__ == "__main__":
    main()
