"""Issue 43's hostile round, each defect bench/hostile.py found, reproduced through the real
stack (a SQLite file, a Whoosh index, the app through httpx)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select
from whoosh.searching import Searcher

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.main import create_app
from app.models import Paper
from app.web import formats
from tests.conftest import Catalog, write_list

# Right-to-left overrides, embeddings, isolates and marks; zero-width spaces, joiners at a
# word's edge, word joiners, byte-order marks and soft hyphens: none is seen, each one can
# make a name another author or turn the text after it around.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
INVISIBLE = BIDI + "\u200b\u2060\ufeff\u00ad"


def test_a_file_gone_or_swapped_while_others_load_is_an_error_and_the_rest_loads(
        fresh: Catalog, tmp_path: Path):
    first = write_list(tmp_path / "first.txt", "FIRST 2026 Papers", "Pangolins curl up.")
    gone = write_list(tmp_path / "gone.txt", "GONE 2026 Papers", "Quokkas smile.")
    folder = write_list(tmp_path / "folder.txt", "FOLDER 2026 Papers", "Axolotls regrow.")
    pipe = write_list(tmp_path / "pipe.txt", "PIPE 2026 Papers", "Wombats dig.")
    last = write_list(tmp_path / "last.txt", "LAST 2026 Papers", "Okapis hide.")

    def after_the_first(line: str) -> None:  # the ingest listed them all before this
        if line.startswith(str(first)):
            gone.unlink()
            folder.unlink()
            folder.mkdir()
            pipe.unlink()
            os.mkfifo(pipe)  # reading it would wait for a writer forever

    with fresh.session() as session:
        report = ingest_paths(session, [first, gone, folder, pipe, last], ON_INGEST,
                              progress=after_the_first)
    assert [(Path(e.path).name, e.line) for e in report.errors] == [
        ("gone.txt", 0), ("folder.txt", 0), ("pipe.txt", 0)]
    assert "no such file" in report.errors[0].message.lower()
    assert report.added == 2
    with fresh.session() as session:
        venues = {p.edition_slug for p in session.exec(select(Paper))}
    assert {"first-2026", "last-2026"} <= venues and "gone-2026" not in venues


def test_invisible_characters_make_no_other_author_and_turn_no_text_around(
        fresh: Catalog, tmp_path: Path):
    rows = [
        {"title": "\u202eseniL fo noitalucitrA", "authors": ["Ada\u202e Lovelace"]},
        {"title": "Ada\u200bLovelace's \u2066isolated\u2069 engine",
         "authors": ["Ada\u200b Lovelace", "Char\u00adles Bab\u200dbage"]},
        {"title": "Left \u202a open", "authors": ["\u200fAda Lovelace\u200e",
                                                  "Ada Lovelace\ufeff"],
         "keywords": ["analytical\u2060 engines"], "institutions": ["\u202eUniversity"]},
        {"title": "Soft\u00adhyphen and an Urdu join: \u06a9\u200c\u06cc",
         "authors": ["Ada\u2060 Lovelace", "\u200b", "Charles Babbage"]},
    ]
    source = tmp_path / "invisible.jsonl"
    source.write_text("".join(json.dumps({
        "venue": "BIDI", "year": 2026, "abstract": f"Pangolins {n} resist scales.", **row})
        + "\n" for n, row in enumerate(rows)), encoding="utf-8")
    lists = write_list(tmp_path / "bidi.txt", "BIDIL 2026 Papers",
                       "\u202eTurned around\u202c: a list abstract with a \u200bhidden space.")
    report = fresh.ingest(source, lists)
    assert report.errors == [] and report.added == 5
    with TestClient(create_app(fresh.settings)) as client:
        authors = client.get("/api/authors", params={"q": "lovelace"}).json()["authors"]
        assert [(a["name"], a["papers"]) for a in authors] == [("Ada Lovelace", 4)]
        babbage = client.get("/api/authors", params={"q": "babbage"}).json()["authors"]
        assert [(a["name"], a["papers"]) for a in babbage] == [("Charles Babbage", 2)]
        papers = client.get("/api/venues/bidi-2026/papers").json()["papers"]
        shown = json.dumps([{k: p[k] for k in ("title", "authors", "keywords")}
                            for p in papers], ensure_ascii=False)
        assert not any(ch in shown for ch in INVISIBLE), shown
        assert "\u06a9\u200c\u06cc" in shown  # a joiner inside a word is the word's
        for url in ("/venues/bidi-2026", "/venues/bidil-2026", "/search?q=pangolins",
                    "/authors/ada-lovelace", f"/papers/{papers[0]['id']}"):
            text = client.get(url).text
            assert not re.search(f"[{BIDI}\u200b\ufeff]", text), url


def test_exclusions_and_year_ranges_are_ranked_without_stepping_through_every_paper(
        client: TestClient, monkeypatch: pytest.MonkeyPatch):
    """`-(-(-model))` nested 200 deep took over a second of CPU at L (and `year:1987-2026
    -zz` 0.4 s): Whoosh's matchers stepped through every paper once per level. The parts
    that weigh nothing (everything, a year range) now rank from the posting arrays, and the
    matches stay the same."""
    stepped: list[str] = []
    whoosh_search = Searcher.search

    def recorded(self: Searcher, query: object, *args: object, **kwargs: object) -> object:
        stepped.append(str(query))
        return whoosh_search(self, query, *args, **kwargs)

    monkeypatch.setattr(Searcher, "search", recorded)

    def found(q: str) -> tuple[int, list[str]]:
        response = client.get("/api/search", params={"q": q})
        assert response.status_code == 200, q
        result = response.json()
        return result["total"], [hit["id"] for hit in result["hits"]]

    models, _ = found("model")
    deepest = found("-(" * 200 + "model" + ")" * 200)
    assert models > 0 and deepest == found("-(-(-(-model)))") == found("-(-model)")
    assert deepest[0] == found("-(-(-(-(-(-(-(-(model))))))))")[0] == models
    everything, _ = found("year:1900-2100")
    assert found("year:1900-2100 -model")[0] == found("-model")[0] == everything - models
    assert stepped == []


@pytest.mark.parametrize("url", ["/search.json?q=", "/search?q=learning&format=json",
                                 "/venues/icml-2026.json", "/topics/optimization.json"])
def test_a_download_comes_in_parts_that_together_hold_the_whole_list(
        client: TestClient, monkeypatch: pytest.MonkeyPatch, url: str):
    """`/search.json?q=` sent all 88,000 papers at L for one request: 17 s of CPU and 50 MB.
    A download now holds at most DOWNLOAD_PAPERS, and names its next part."""
    whole = client.get(url).json()
    assert len(whole) > 3
    monkeypatch.setattr(formats, "DOWNLOAD_PAPERS", 3)
    parts, address = [], url
    while address:
        response = client.get(address)
        assert response.status_code == 200 and len(response.json()) <= 3
        parts += response.json()
        link = re.fullmatch(r'<([^>]*)>; rel="next"', response.headers.get("link", ""))
        address = link[1] if link else ""
    assert parts == whole
    joined = url + ("&" if "?" in url else "?") + "part="
    last = -(-len(whole) // 3)
    assert client.get(joined + str(last)).json() == whole[(last - 1) * 3:]
    for past in (last + 1, 999):  # had been a 200 of an empty file
        response = client.get(joined + str(past))
        assert response.status_code == 404, past
        assert f"Part {past} is past the end: this list has {last} parts." in response.text
    for bad in ("0", "-1", "x", "1e3", "00"):
        assert client.get(joined + bad).status_code == 400, bad


def test_if_none_match_star_and_weak_tags_revalidate_a_page(client: TestClient):
    """RFC 9110: `*` matches any current page, and a weak tag matches its strong twin; the
    page was sent again in full."""
    url = "/venues/icml-2026?for-the-if-none-match-test=1"
    etag = client.get(url).headers["etag"]
    for asked in ("*", f"W/{etag}", f'"other", {etag}'):
        revalidated = client.get(url, headers={"if-none-match": asked})
        assert revalidated.status_code == 304 and revalidated.content == b"", asked
    for asked in ('"other"', etag.replace('"', "")):
        assert client.get(url, headers={"if-none-match": asked}).status_code == 200, asked
