"""bench/hostile.py's requests: every route, and hostile variants of its inputs, sent byte
for byte as written."""

from __future__ import annotations

import gzip
import json
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bench.harness import CORPUS
from bench.hostile_watch import Watch, tree_cpu_s


@dataclass(frozen=True)
class Probe:
    """One request, sent byte for byte as written (no client tidies it up)."""

    name: str
    target: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()


FOREIGN = b"evil.example"  # the host the probes name: never in an answer


def send(base: str, probe: Probe, timeout: float = 120) -> tuple[int, int, bool]:
    """The status, the body's size (0 and -1 when the connection was dropped) and whether
    the answer names the foreign host."""
    host, port = base.removeprefix("http://").split(":")
    named = [value for name, value in probe.headers if name.lower() == "host"]
    head = [f"{probe.method} {probe.target} HTTP/1.1",
            *([] if named else [f"Host: {host}:{port}"]), "Connection: close",
            *(f"{name}: {value}" for name, value in probe.headers)]
    with socket.create_connection((host, int(port)), timeout=timeout) as connection:
        connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape"))
        answer = bytearray()
        try:
            while chunk := connection.recv(1 << 20):
                answer += chunk
        except OSError:
            pass
    status = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    if status is None:
        return 0, -1, False
    return (int(status[1]), len(answer) - answer.find(b"\r\n\r\n") - 4,
            FOREIGN in answer.lower())


def corpus_words(count: int) -> list[str]:
    """Distinct words of the corpus's abstracts, as a reader's query would hold them."""
    words: dict[str, None] = {}
    with gzip.open(CORPUS / "ml-abstracts.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            for word in re.findall(r"[a-z]{4,12}", json.loads(line)["abstract"].lower()):
                words[word] = None
            if len(words) >= count:
                break
    return list(words)[:count]


def q(text: str) -> str:
    """A query string value, percent-encoded as a browser sends it."""
    from urllib.parse import quote_plus
    return quote_plus(text)


def route_probes(venue: str) -> list[Probe]:
    """Each route as a reader asks for it: what a hostile variant is measured against."""
    series = venue.rsplit("-", 1)[0]
    return [Probe(f"route {target}", target) for target in (
        "/", "/venues", f"/venues/{venue}", f"/venues/{series}", "/topics",
        "/topics/optimization", "/authors?q=smith", "/institutions", "/countries",
        "/trends?q=transformer&q=lstm", "/trends?year=2020", "/api/whats-new",
        "/search?q=diffusion+models", "/api/search?q=graph&has=code", "/help/search",
        "/robots.txt", "/sitemap.xml", f"/sitemaps/{series}.xml", "/opensearch.xml",
        "/openapi.json", "/docs", "/map.png", "/api/map", f"/venues/{venue}.bib",
        f"/venues/{venue}.atom", "/saved", "/healthz")]


def query_probes(words: list[str]) -> list[Probe]:
    nested = "(" * 200 + "learning" + ")" * 200
    or_terms = " OR ".join(words[:2500])[:20_000].rsplit(" OR ", 1)[0]  # under the 414 bound
    wildcards = " OR ".join(f"{w[:2]}*" for w in words[:2000])
    return [
        Probe("nested 200 deep", f"/search?q={q(nested)}"),
        Probe("nested 200 deep api", f"/api/search?q={q(nested)}"),
        Probe("nested unbalanced", f"/search?q={q('(' * 200 + 'learning')}"),
        Probe("nested NOT 200", f"/search?q={q('NOT (' * 200 + 'a' + ')' * 200)}"),
        Probe("nested minus 200", f"/search?q={q('-(' * 200 + 'model' + ')' * 200)}"),
        Probe("nested OR 200", f"/search?q={q('(graph OR ' * 200 + 'x' + ')' * 200)}"),
        Probe("nested phrases", f"/search?q={q(chr(34) * 401)}"),
        Probe("nested trends", f"/trends?q={q(nested)}"),
        Probe(f"{or_terms.count(' OR ') + 1} OR terms", f"/search?q={q(or_terms)}"),
        Probe("OR terms api by venue", f"/api/search?q={q(or_terms)}&sort=venue"),
        Probe("OR terms trends", f"/trends?q={q(or_terms)}"),
        Probe("3000 terms pasted", f"/search?q={q(' '.join(words[:3000]))[:30_000]}"),
        Probe("2000 wildcards", f"/search?q={q(wildcards)}"),
        Probe("wildcard *", "/search?q=*"),
        Probe("wildcard a*", "/search?q=a*"),
        Probe("wildcard *a*", "/search?q=%2Aa%2A"),
        Probe("wildcard ?*", "/search?q=%3F*"),
        Probe("wildcards a* b* ... z*", "/search?q=" + "+".join(f"{c}*" for c in
                                                               "abcdefghijklmnopqrstuvwxyz")),
        Probe("wildcard *-*", "/search?q=*-*+-a*"),
        Probe("wildcard author:*", "/search?q=author%3A*"),
        Probe("wildcard author:a* OR", "/search?q=" + "+OR+".join(
            f"author%3A{c}*" for c in "abcdefghijklmnopqrstuvwxyz")),
        Probe("wildcard trends", "/trends?" + "&".join(f"q={c}*" for c in "abcdef")),
        Probe("wildcard suggest", "/api/suggest?q=*"),
        Probe("wildcard map", "/api/map?q=*"),
        Probe("wildcard map.png", "/map.png?q=a*"),
        Probe("wildcard authors", "/api/authors?q=*"),
        Probe("wildcard authors %", "/authors?q=%25"),
        Probe("year huge range", "/search?q=year%3A0-99999999999999999999"),
        Probe("year negative range", "/search?q=year%3A-99999999999-99999999999"),
        Probe("year range minus word", "/search?q=year%3A1987-2026+-zz"),
        Probe("year range alone api", "/api/search?q=year%3A1-9999&sort=venue"),
        Probe("year reversed", "/search?q=year%3A2026-1987"),
        Probe("year 30 digits", "/search?q=year%3A" + "9" * 30),
        Probe("year 1e308", "/search?q=year%3A1e308"),
        Probe("year param huge", "/search?q=x&year=" + "9" * 40),
        Probe("year param range", "/api/search?year=0-99999999999999"),
        Probe("topics from-to huge", "/topics?from=-99999999999999&to=99999999999999"),
        Probe("institutions from-to", "/institutions?from=0&to=99999999999999999999"),
        Probe("trends year huge", "/trends?year=99999999999999999999"),
        Probe("whats-new year huge", "/api/whats-new?year=99999999999999999999&limit=10000000"),
        Probe("api topics range", "/api/topics?from=1&to=999999999"),
    ]


def encoding_probes() -> list[Probe]:
    return [
        Probe("NUL in q", "/search?q=a%00b"),
        Probe("NUL only", "/api/search?q=%00"),
        Probe("NUL in path", "/papers/%00"),
        Probe("NUL in facet", "/search?venue=%00&series=%00&topic=%00"),
        Probe("NUL raw byte", "/search?q=a\x00b"),
        Probe("invalid %ff%fe", "/search?q=%ff%fe"),
        Probe("invalid truncated utf8", "/search?q=%E2%82"),
        Probe("invalid surrogate", "/api/search?q=%ED%A0%80"),
        Probe("invalid overlong", "/venues/%c0%af"),
        Probe("invalid %zz", "/search?q=%zz"),
        Probe("invalid lone %", "/search?q=%"),
        Probe("invalid % name", "/search?%=%&%%=1"),
        Probe("invalid path %ff", "/venues/%ff"),
        Probe("invalid author %ff", "/authors/%ff%fe"),
        Probe("invalid api path", "/api/papers/%ff"),
        Probe("invalid bib", "/papers/%ff.bib"),
        Probe("traversal static", "/static/..%2f..%2fapp%2fconfig.py"),
        Probe("traversal static dots", "/static/%2e%2e/%2e%2e/README.md"),
        Probe("traversal swagger", "/static/swagger-ui/..%2f..%2f..%2fetc/passwd"),
        Probe("raw bidi in q", "/search?q=\u202elearning"),
        Probe("zero-width in q", "/search?q=" + q("lear\u200bning \ufeffmodel")),
    ]


def parameter_probes(words: list[str], venue: str) -> list[Probe]:
    many_q = "&".join(f"q={w}" for w in words[:2000])[:30_000]
    return [
        Probe("repeated q x2000", f"/search?{many_q}"),
        Probe("repeated q api", f"/api/search?{many_q}"),
        Probe("repeated venue x1000", "/search?q=a&" + "&".join([f"venue={venue}"] * 1000)),
        Probe("repeated year x2000", "/search?" + "&".join(["year=2020"] * 2000)),
        Probe("repeated series x1000", "/api/search?" + "&".join(
            f"series=s{i}" for i in range(1000))),
        Probe("repeated page x2000", "/search?q=a&" + "&".join(["page=2"] * 2000)),
        Probe("repeated trends q x1000", "/trends?" + "&".join(f"q={w}" for w in words[:1000])),
        Probe("repeated api trends", "/api/trends?" + "&".join(f"q={w}" for w in words[:1000])),
        Probe("repeated has x2000", "/search?q=a&" + "&".join(["has=code"] * 2000)),
        Probe("huge param name", "/search?" + "n" * 30_000 + "=1"),
        Probe("huge q 30k", "/search?q=" + "a" * 30_000),
        Probe("huge venue 30k", "/search?venue=" + "v" * 30_000),
        Probe("huge path 30k", "/venues/" + "x" * 30_000),
        Probe("over the cap 40k", "/search?q=" + "a" * 40_000),
        Probe("page 10**9", "/search?q=learning&page=1000000000"),
        Probe("page 10**9 api", "/api/search?q=learning&page=1000000000"),
        Probe("page 10**30", "/search?q=learning&page=" + "1" + "0" * 30),
        Probe("page -1", "/search?q=learning&page=-1"),
        Probe("page 1e9", "/search?q=learning&page=1e9"),
        Probe("page nan", "/api/search?q=learning&page=nan"),
        Probe("venue page 10**9", f"/venues/{venue}?page=1000000000"),
        Probe("api venue page 10**9", f"/api/venues/{venue}/papers?page=1000000000"),
        Probe("topic page 10**9", "/topics/optimization?page=1000000000"),
        Probe("author page 10**9", "/authors/x?page=1000000000"),
        Probe("atom page 10**9", "/search?q=learning&format=atom&page=1000000000"),
        Probe("sort bogus", "/search?q=a&sort=../../etc"),
        Probe("format bogus", "/search?q=a&format=exe"),
        Probe("saved 5000 ids", "/saved?ids=" + ",".join(f"x{i:05}" for i in range(4000))),
        Probe("saved.bib 5000 ids", "/saved.bib?ids=" + ",".join(f"y{i:05}" for i in range(4000))),
        Probe("recommendations ids", "/api/recommendations?ids=" + ",".join(
            f"z{i:05}" for i in range(4000))),
        Probe("map box inf nan", "/api/map/box?x0=-inf&x1=inf&y0=nan&y1=1e308"),
        Probe("map box huge", "/api/map/box?x0=-1e308&x1=1e308&y0=-1e308&y1=1e308"),
        Probe("map ids 4000", "/api/map?ids=" + ",".join(f"m{i:05}" for i in range(4000))),
        Probe("map.png everything", "/map.png?q=&series=&venue="),
        Probe("sitemap part huge", "/sitemaps/_site.xml?part=99999999999999999999"),
        Probe("suggest 30k", "/api/suggest?q=" + "b" * 30_000),
        Probe("suggest opensearch", "/api/suggest?q=lea&format=opensearch"),
        Probe("authors q 30k", "/api/authors?q=" + "c" * 30_000),
        Probe("export whole search json", "/search?%66ormat=json&q="),
        Probe("export whole search csv", "/search.csv?q="),
    ]


def header_probes(venue: str) -> list[Probe]:
    many_ranges = ",".join(["0-1"] * 2000)
    many_etags = ", ".join(f'"{i:024x}"' for i in range(1500))
    return [
        Probe("range 0-0 static", "/static/style.css", headers=(("Range", "bytes=0-0"),)),
        Probe("range suffix static", "/static/style.css", headers=(("Range", "bytes=-1"),)),
        Probe("range reversed", "/static/style.css", headers=(("Range", "bytes=9-1"),)),
        Probe("range 2000 parts", "/static/style.css",
              headers=(("Range", f"bytes={many_ranges}"),)),
        Probe("range overlapping", "/static/style.css", headers=(("Range", "bytes=0-,0-,0-,0-"),)),
        Probe("range huge numbers", "/static/style.css",
              headers=(("Range", "bytes=99999999999999999999999-"),)),
        Probe("range garbage", "/static/style.css", headers=(("Range", "bytes=a-b"),)),
        Probe("range units", "/static/style.css", headers=(("Range", "pages=1-2"),)),
        Probe("range page", f"/venues/{venue}", headers=(("Range", "bytes=0-10"),)),
        Probe("range export", f"/venues/{venue}.csv", headers=(("Range", "bytes=5-"),)),
        Probe("if-range garbage", "/static/style.css",
              headers=(("Range", "bytes=0-1"), ("If-Range", "x" * 1000))),
        Probe("if-none-match *", f"/venues/{venue}", headers=(("If-None-Match", "*"),)),
        Probe("if-none-match 1500", f"/venues/{venue}",
              headers=(("If-None-Match", many_etags),)),
        Probe("if-none-match static *", "/static/style.css", headers=(("If-None-Match", "*"),)),
        Probe("if-none-match W/", "/", headers=(("If-None-Match", 'W/"x", W/""'),)),
        Probe("if-modified-since junk", "/static/style.css",
              headers=(("If-Modified-Since", "yesterday at noon"),)),
        Probe("accept-encoding q=nan", "/", headers=(("Accept-Encoding", "gzip;q=nan"),)),
        Probe("accept-encoding q=1e999", "/", headers=(("Accept-Encoding", "gzip;q=1e999"),)),
        Probe("accept-encoding q=-1", "/api/venues", headers=(("Accept-Encoding", "gzip;q=-1"),)),
        Probe("accept-encoding 3000x", "/api/venues",
              headers=(("Accept-Encoding", ", ".join(["gzip"] * 3000)),)),
        Probe("accept-encoding 30k", "/", headers=(("Accept-Encoding", "g" * 30_000),)),
        Probe("accept-encoding *;q=0", "/", headers=(("Accept-Encoding", "*;q=0"),)),
        Probe("accept-encoding identity;q=0", "/api/venues",
              headers=(("Accept-Encoding", "identity;q=0, gzip;q=0"),)),
        Probe("accept-encoding br zstd", "/", headers=(("Accept-Encoding", "br, zstd, deflate"),)),
        Probe("accept q junk", "/search?q=a", headers=(("Accept", "text/html;q=x, */*;q=1e9"),)),
        *(Probe(f"host {host}", url, headers=(("Host", host),))
          for host in ("evil.example", "127.0.0.1:1@evil.example", "localhost/evil.example")
          for url in ("/robots.txt", "/search?q=a&format=atom", f"/venues/{venue}")),
        Probe("host twice", "/robots.txt", headers=(("Host", "127.0.0.1"),
                                                    ("Host", "evil.example"))),
        Probe("x-forwarded-host", "/robots.txt", headers=(("X-Forwarded-Host", "evil.example"),)),
        Probe("forwarded proto junk", "/opensearch.xml",
              headers=(("X-Forwarded-Proto", "javascript"), ("Forwarded", "host=evil.example"))),
        Probe("cookie 30k", "/", headers=(("Cookie", "a=" + "b" * 30_000),)),
        Probe("many headers", "/", headers=tuple((f"X-H{i}", "v") for i in range(500))),
    ]


def method_probes(venue: str) -> list[Probe]:
    targets = ["/", "/search?q=a", "/api/search?q=a", "/static/style.css", "/healthz",
               f"/venues/{venue}.csv", "/docs", "/sitemap.xml"]
    probes = [Probe(f"{method} {target}", target, method=method)
              for method in ("OPTIONS", "TRACE", "PUT", "DELETE", "PATCH", "PROPFIND")
              for target in targets]
    return [*probes, Probe("OPTIONS *", "*", method="OPTIONS"),
            Probe("TRACE cookie", "/", method="TRACE", headers=(("Cookie", "secret=1"),)),
            Probe("POST body 1 MB", "/search?q=a", method="POST",
                  headers=(("Content-Length", "0"),)),
            Probe("GET absolute-form", "http://evil.example/robots.txt"),
            Probe("GET lower-case method", "/", method="get"),
            Probe("unknown method", "/", method="BREW")]


def largest_edition(base: str) -> str:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(f"GET /api/venues HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        answer = b"".join(iter(lambda: connection.recv(1 << 20), b""))
    venues = json.loads(answer.split(b"\r\n\r\n", 1)[1])["venues"]
    return max(venues, key=lambda v: v["paper_count"])["slug"]


def request_probes(base: str) -> list[Probe]:
    """Every route and input; venue pages at the catalog's largest edition."""
    words, venue = corpus_words(3000), largest_edition(base)
    return [*route_probes(venue), *query_probes(words), *encoding_probes(),
            *parameter_probes(words, venue), *header_probes(venue), *method_probes(venue)]


def run_probe(base: str, pid: int, probe: Probe) -> dict:
    cpu = tree_cpu_s(pid)
    started = time.perf_counter()
    with Watch(pid) as watch:
        status, size, foreign = send(base, probe)
    return {"status": status, "ms": round((time.perf_counter() - started) * 1000),
            "cpu_s": round(tree_cpu_s(pid) - cpu, 2), "peak_mb": round(watch.peak_mb),
            "kb": round(size / 1024, 1), **({"FOREIGN_HOST": True} if foreign else {})}


def under_fire(base: str, pid: int, probes: list[Probe], seconds: float,
               clients: int = 6) -> dict:
    """`clients` clients sending the expensive probes in a loop while /healthz is timed from
    a process of its own; a cached page is timed beside it."""
    deadline = time.perf_counter() + seconds
    statuses: dict[int, int] = {}
    cached: list[float] = []

    def client(index: int) -> None:
        turn = index
        while time.perf_counter() < deadline:
            status, _, _ = send(base, probes[turn % len(probes)])
            statuses[status] = statuses.get(status, 0) + 1
            turn += 1

    def cached_page() -> None:
        page = Probe("home", "/")
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            send(base, page)
            cached.append((time.perf_counter() - started) * 1000)
            time.sleep(0.1)

    with Watch(pid, base) as watch, ThreadPoolExecutor(clients + 1) as pool:
        for future in [pool.submit(client, i) for i in range(clients)] + [
                pool.submit(cached_page)]:
            future.result()
    cached.sort()
    return {"statuses": statuses, "cached_page_p95_ms":
            round(cached[int(0.95 * (len(cached) - 1))], 1), **watch.healthz(),
            "peak_mb": round(watch.peak_mb)}
