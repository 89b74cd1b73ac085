"""The map of the papers at a catalog's size: how well its layout keeps neighbours and topics,
and what the map costs a page.

    CATALOG_DATA_DIR=... .venv/bin/python -m bench.paper_map [--probes 5000]

On `--probes` random papers (fixed seed): preservation, the share of a paper's 10 nearest on
the map among its 50 nearest by vector; topic@10, the share of its 10 nearest on the map with
its primary topic (beside the same in the vector space, the ceiling, and a random layout, the
floor). Then the bytes and time of /map.png and /api/map for the largest edition and for the
whole catalog (a search for every paper is what a query page asks at most: 20,000 points).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from fastapi.testclient import TestClient
from scipy.spatial import cKDTree

from app.config import get_settings
from app.main import create_app
from app.map.layout import knn, opened_layout
from app.search.searcher import PaperSearch


def nearest_2d(xy: np.ndarray, probes: np.ndarray, k: int = 10) -> np.ndarray:
    _, index = cKDTree(xy).query(xy[probes], k + 1)
    return index[:, 1:]


def quality(search: PaperSearch, probes: int) -> None:
    vectors, layout, topics = search.with_index(lambda current: (
        current.vectors, opened_layout(current.parts), current.columns["topic"].codes),
        (None,) * 3)
    if layout is None or vectors is None:
        raise SystemExit("the index has no map: rebuild it (catalog reindex)")
    positions, live = layout.positions, np.flatnonzero(layout.placed)
    rng = np.random.default_rng(0)
    chosen = rng.choice(len(live), min(probes, len(live)), replace=False)
    vectors, positions, topics = vectors[live], positions[live], topics[live]
    truth, _ = knn(vectors, 51, queries=vectors[chosen])
    truth = truth[:, 1:]  # the paper itself first
    ceiling = (topics[truth[:, :10]] == topics[chosen][:, None]).mean()
    for name, xy in (("map", positions), ("random", rng.random(positions.shape))):
        near = nearest_2d(xy, chosen)
        kept = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(near, truth, strict=True)])
        same = (topics[near] == topics[chosen][:, None]).mean()
        print(f"{name:7} preservation {kept:.3f}  topic@10 {same:.3f}")
    print(f"vectors topic@10 {ceiling:.3f} (ceiling), {len(live)} papers, {len(chosen)} probes")


def page_costs() -> None:
    with TestClient(create_app(get_settings()), base_url="http://localhost") as client:
        venues = client.get("/api/venues").json()["venues"]
        largest = max(venues, key=lambda v: v["paper_count"])
        for label, params in ((f"{largest['label']} ({largest['paper_count']} papers)",
                               {"venue": largest["slug"]}), ("all papers", {"q": ""})):
            for path in ("/map.png", "/api/map"):
                started = time.perf_counter()
                response = client.get(path, params=params, headers={"accept-encoding": "gzip"})
                took = (time.perf_counter() - started) * 1000
                print(f"{path:9} {label:32} {len(response.content):>9,} bytes "
                      f"({response.headers.get('content-encoding', 'raw')})  {took:6.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=5000)
    args = parser.parse_args()
    quality(PaperSearch(get_settings().index_path), args.probes)
    page_costs()


if __name__ == "__main__":
    main()
