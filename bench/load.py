"""A bounded HTTP load generator on loopback: N concurrent clients for D seconds.

    .venv/bin/python -m bench.load http://127.0.0.1:8000 --clients 50 --seconds 60

Each client requests URLs from a list in turn (or a mix drawn from the catalog with
--mix) and records every latency and error. Prints requests/s and p50/p95/p99/max.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import re
import time
from collections.abc import Coroutine, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, from a fresh event loop in a thread of its own, whatever the
    calling thread runs: in the test suite, the browser tests' Playwright keeps a loop running
    in the main thread, where `asyncio.run` refuses to start another."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


@dataclass
class LoadResult:
    requests: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    error_samples: list[str] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

    def summary(self) -> dict[str, float | int | list[str]]:
        return {"requests": self.requests, "errors": self.errors, "seconds": round(self.seconds, 3),
                "rps": round(self.rps, 1),
                "p50_ms": round(self.percentile(50), 1), "p95_ms": round(self.percentile(95), 1),
                "p99_ms": round(self.percentile(99), 1),
                "max_ms": round(max(self.latencies_ms, default=0.0), 1),
                "error_samples": self.error_samples[:5]}


async def run_load(base: str, urls: list[str], clients: int, seconds: float,
                   once: bool = False) -> LoadResult:
    """`once`: the clients share the list, each URL requested once (first-time requests),
    until the time or the list runs out. Each client asks once at least: on a loaded
    machine a short run's time can pass before its first request is sent."""
    result = LoadResult()
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    shared = iter(urls)

    async def client(index: int, http: httpx.AsyncClient) -> None:
        order = urls[index % len(urls):] + urls[: index % len(urls)]
        i = 0
        while i == 0 or time.perf_counter() < deadline:
            url = next(shared, None) if once else order[i % len(order)]
            if url is None:
                break
            i += 1
            started = time.perf_counter()
            try:
                response = await http.get(url)
                failed = response.status_code >= 500 or response.status_code == 0
                if failed:
                    result.error_samples.append(f"{response.status_code} {url}")
            except httpx.HTTPError as error:
                failed = True
                result.error_samples.append(f"{type(error).__name__} {url}")
            result.latencies_ms.append((time.perf_counter() - started) * 1000)
            result.requests += 1
            result.errors += failed

    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as http:
        await asyncio.gather(*(client(i, http) for i in range(clients)))
    result.seconds = time.perf_counter() - started
    return result


def catalog_mix(base: str, count: int = 200, seed: int = 7) -> list[str]:
    """Search, venue and paper pages drawn from the running catalog."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=60) as http:
        venues = http.get("/api/venues").json()["venues"]
        papers = []
        for venue in rng.sample(venues, min(len(venues), 10)):
            papers += [p["url"] for p in
                       http.get(f"/api/venues/{venue['slug']}/papers").json()["papers"]]
    queries = ["generalization", "reinforcement learning", "diffusion", '"in-context learning"',
               "graph neural network", "optim*", "LLM", "memorization", "venue:iclr attention"]
    urls = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.4:
            urls.append("/search?" + httpx.QueryParams({"q": rng.choice(queries)}).__str__())
        elif kind < 0.7:
            venue = rng.choice(venues)
            pages = max(1, -(-venue["paper_count"] // 50))
            urls.append(f"/venues/{venue['slug']}?page={rng.randint(1, pages)}")
        else:
            urls.append(rng.choice(papers).replace(base, ""))
    return urls


CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
CORPUS_FILES = (CORPUS / "ml-abstracts.jsonl.gz", CORPUS / "more-abstracts.jsonl.gz")
_STOP = set("a an the of for in on to and with via from by at is are as its their using towards "
            "toward through under over into".split())


def first_records(source: Path, fraction: float = 1.0) -> Iterator[dict]:
    """The records of a JSON Lines file (also .gz): all, or the first `fraction` of them."""
    opener = gzip.open if source.suffix == ".gz" else open
    keep = None
    if fraction < 1:
        with opener(source, "rt", encoding="utf-8") as lines:
            keep = max(1, round(fraction * sum(1 for line in lines if line.strip())))
    with opener(source, "rt", encoding="utf-8") as lines:
        records = (json.loads(line) for line in lines if line.strip())
        for number, record in enumerate(records):
            if keep is not None and number >= keep:
                return
            yield record


def title_queries(count: int, seed: int = 11, sources: Sequence[Path] = CORPUS_FILES
                  ) -> list[str]:
    """Distinct queries of two or three consecutive words of real paper titles (by default
    from ../shared/corpus), as a researcher types a half-remembered title."""
    rng = random.Random(seed)
    titles = [record.get("title") or "" for source in sources
              for record in first_records(source)]
    rng.shuffle(titles)
    queries: dict[str, None] = {}
    for title in titles:
        words = [w for w in re.findall(r"[a-z][a-z-]+", title.lower()) if len(w) > 2]
        words = [w for w in words if w not in _STOP]
        if len(words) < 2:
            continue
        size = rng.choice((2, 2, 3))
        start = rng.randrange(max(1, len(words) - size + 1))
        queries[" ".join(words[start : start + size])] = None
        if len(queries) >= count:
            break
    return list(queries)


def readers_mix(base: str, count: int = 8000, seed: int = 5) -> list[str]:
    """Many readers at once: first-time searches of distinct title phrases (60 % first
    pages, 20 % second pages), venue pages at random depths (10 %), and where the catalog
    has people, author, institution and country pages (10 %; else venue pages), in random
    order."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=60) as http:
        venues = http.get("/api/venues").json()["venues"]
        profiles = _profiles(http)
    queries = iter(title_queries(count, seed))
    urls = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.8:
            page = {"page": 2} if kind >= 0.6 else {}
            query = next(queries, None)
            if query is None:
                break
            urls.append("/search?" + str(httpx.QueryParams({"q": query, **page})))
        elif kind >= 0.9 and profiles:
            urls.append(rng.choice(profiles))
        else:
            venue = rng.choice(venues)
            pages = max(1, -(-venue["paper_count"] // 50))
            urls.append(f"/venues/{venue['slug']}?page={rng.randint(1, pages)}")
    return urls


def _profiles(http: httpx.Client) -> list[str]:
    """Author pages (the largest found by 52 two-letter starts, each letter with a and o:
    the author search takes two letters at least), and the institution and country pages
    of every ranking over all years, with their paths."""
    years = [venue["year"] for venue in http.get("/api/venues").json()["venues"]]
    if not years:
        return []
    found = {author["url"] for letter in "abcdefghijklmnopqrstuvwxyz" for vowel in "ao"
             for author in http.get("/api/authors", params={"q": letter + vowel}).json()[
                 "authors"]}
    for kind in ("institutions", "countries"):
        ranked = http.get(f"/api/{kind}", params={"from": min(years), "to": max(years)})
        found.update(row["url"] for row in ranked.json()["ranked"])
    return sorted(httpx.URL(url).raw_path.decode() for url in found)


PROFILE_PATHS = ("/authors/", "/institutions/", "/countries/")
MIXES = {"catalog": catalog_mix, "readers": readers_mix}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--url", action="append", help="a path to request (repeatable)")
    parser.add_argument("--mix", choices=list(MIXES), default="catalog",
                        help="readers: first-time title searches, venue pages at random depths "
                        "and people pages")
    args = parser.parse_args()
    urls = args.url or MIXES[args.mix](args.base)
    once = args.mix == "readers" and not args.url
    result = asyncio.run(run_load(args.base, urls, args.clients, args.seconds, once=once))
    print(json.dumps({"clients": args.clients, "seconds": args.seconds, **result.summary()},
                     indent=2))


if __name__ == "__main__":
    main()


