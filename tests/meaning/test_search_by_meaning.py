"""Search by meaning through the real stack (issue 59): a catalog's papers encoded by the
real model, laid out in a generation, and asked through the app. Not marked `database`: the
vectors' storage on PostgreSQL is tests/meaning/test_store.py's, and encoding is the cost
here, once is enough."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import time
import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import col, select

from app.main import create_app
from app.meaning import model_files
from app.meaning.store import counts
from app.models import Paper, PaperVector
from app.search.index.keeper import IndexKeeper
from app.search.index.manifest import verify
from app.search.index.meaning_updates import encode_and_publish
from app.search.index.sync import SyncKind, index_lock, publish_vectors, sync_index
from app.search.rank import by_meaning, similar, weights
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from bench.harness import free_port
from tests.conftest import Catalog, write_list
from tests.hardening.test_crash_and_concurrency import killed_at, synthetic_list
from tests.servers import CATALOG, wait_until_ready

# A paper in the field's terms, and a description of its idea that shares none of its words.
DEPTH = ("Monocular depth estimation predicts a dense depth map from a single RGB image: we "
         "train a vision transformer with a scale-invariant loss on indoor and outdoor scenes.")
GUESS = "guessing how far away things are in one photo"
APART = "far away photo"  # keywords that no paper holds together
KEYWORD_QUERIES = ("learning", "diffusion models", "graph neural", "reinforcement -policy",
                   '"language models"', "transformer attention")


def _encoded(catalog: Catalog) -> Catalog:
    with catalog.session() as session:
        encode_and_publish(replace(catalog.settings, encode_vectors=True), session,
                           publish_vectors)
    return catalog


def _search(catalog: Catalog, q: str) -> list[tuple[str, bool]]:
    result = PaperSearch(catalog.settings.index_path, result_cache=0).search(
        SearchRequest(q=q), lambda ids: {})
    return [(hit.id, hit.by_meaning) for hit in [*result.hits, *result.partial]]


# A paper in the field's terms, and one telling its idea in plain words, sharing none of them.
PRIVACY = ("Membership inference attacks: determining whether a given example was in a "
           "model's training set, a privacy leak of machine learning models.")
TOLD = ("Finding out if someone's personal record was used to teach a classifier reveals "
        "private data.")


@pytest.fixture
def depth(fresh: Catalog, tmp_path: Path) -> list[str]:
    """The IDs of DEPTH, PRIVACY and TOLD, ingested into the seeds."""
    texts = (DEPTH, PRIVACY, TOLD)
    fresh.ingest(write_list(tmp_path / "depth.txt", "DEPTH 2026 Papers", *texts))
    with fresh.session() as session:
        stored = {paper.abstract: paper.id for paper in session.exec(
            select(Paper).where(Paper.edition_slug == "depth-2026"))}
    return [stored[text] for text in texts]


def _neighbours(search: PaperSearch, paper: str, texts: similar.Texts) -> list[list[str]]:
    """The paper's related papers and its recommendations, as the app finds them."""
    plain = texts([paper])[paper]
    return [[r.id for r in search.related(paper, plain, texts, limit=20)],
            [r.id for r in search.recommend([paper], texts, limit=20)]]


def test_a_plain_word_description_and_a_neighbour_in_plain_words_are_found_by_meaning(
        fresh: Catalog, depth: list[str]):
    """Search: a description sharing none of a paper's words finds it. Related papers and
    recommendations: a paper telling another's idea in plain words is no neighbour of it by
    words alone, and among its two closest with the vectors (a seed paper on privacy attacks
    may be closer)."""
    paper, privacy, told = depth
    assert not set(GUESS.lower().split()) & set(DEPTH.lower().replace(":", "").split())
    assert paper not in dict(_search(fresh, GUESS))  # by words alone, before any vector
    with fresh.session() as session:
        def texts(ids: list[str]) -> dict[str, str]:
            return {p.id: p.plain for p in session.exec(select(Paper).where(
                col(Paper.id).in_(ids)))}

        words_alone = PaperSearch(fresh.settings.index_path, result_cache=0, related_cache=0)
        assert all(told not in found[:5] for found in _neighbours(words_alone, privacy, texts))
        _encoded(fresh)
        meaning = PaperSearch(fresh.settings.index_path, result_cache=0, related_cache=0)
        assert all(told in found[:2] for found in _neighbours(meaning, privacy, texts))
    with TestClient(create_app(fresh.settings)) as client:
        answer = client.get("/api/search", params={"q": GUESS}).json()
        top = {hit["id"]: hit["by_meaning"] for hit in answer["hits"][:5]}
        assert top.get(paper) is True, answer["hits"][:5]
        assert answer["by_meaning"] >= 1
        page = client.get("/search", params={"q": GUESS}).text
        assert "Close in meaning" in page and "Your words only" in page
        words_only = client.get("/api/search", params={"q": f"{GUESS} meaning:off"}).json()
        assert paper not in [hit["id"] for hit in words_only["hits"]]
        assert not any(hit["by_meaning"] for hit in words_only["hits"])
        # Keywords no paper holds together: papers close in meaning join those holding some,
        # not counted, labelled; not with the words alone.
        apart = client.get("/api/search", params={"q": APART}).json()
        assert apart["total"] == apart["by_meaning"] == 0 and apart["reading"] is None
        assert all(hit["partial"] for hit in apart["hits"])
        assert {hit["id"]: hit["by_meaning"] for hit in apart["hits"]}.get(paper) is True
        assert all(hit["by_meaning"] for hit in apart["hits"])  # none holds two of its words
        page = client.get("/search", params={"q": APART}).text
        assert "Papers close in meaning to your words" in page and "These are close" in page
        apart_words = client.get("/api/search", params={"q": f"{APART} meaning:off"}).json()
        assert paper not in [hit["id"] for hit in apart_words["hits"]]
        # Words no paper holds at all are no query: nothing comes by meaning for them.
        for nonsense in ("zzqx qqzx", "what is zzqx qqzx"):
            assert client.get("/api/search", params={"q": nonsense}).json()["hits"] == []


def _every_page(client: TestClient, **params: object) -> tuple[dict, list[dict]]:
    """The first page's answer and the hits of every page."""
    first = client.get("/api/search", params=params).json()
    return first, [hit for page in range(1, first["pages"] + 1) for hit in client.get(
        "/api/search", params={**params, "page": page}).json()["hits"]]


def test_sorted_by_venue_a_description_lists_what_it_counts_and_marks_its_papers_by_meaning(
        fresh: Catalog, depth: list[str]):
    """Sorted by venue, a description had listed only the papers holding one of its words
    (Whoosh's sort): those close in meaning alone were counted, never shown, and none was
    marked. And a pasted text counted every paper close in meaning, listed or not."""
    _encoded(fresh)
    with TestClient(create_app(fresh.settings)) as client:
        ranked, by_rank = _every_page(client, q=GUESS)
        first, by_venue = _every_page(client, q=GUESS, sort="venue")
        assert first["total"] == ranked["total"] == len(by_venue) == len(by_rank)
        assert {h["id"] for h in by_venue} == {h["id"] for h in by_rank}
        assert first["by_meaning"] == sum(h["by_meaning"] for h in by_venue) > 0
        assert {h["id"]: h["by_meaning"] for h in by_venue} == {
            h["id"]: h["by_meaning"] for h in by_rank}
        slugs = [h["venue_slug"] for h in by_venue]
        assert slugs == sorted(slugs) and len(set(slugs)) > 1
        within = [h["id"] for h in by_rank if h["venue_slug"] == "depth-2026"]
        assert [h["id"] for h in by_venue if h["venue_slug"] == "depth-2026"] == within
        pasted, listed = _every_page(client, q=DEPTH + " " + PRIVACY)
        assert pasted["pasted"] and listed
        assert pasted["by_meaning"] == sum(h["by_meaning"] for h in listed)


def test_meaning_on_is_the_default_and_your_words_only_keeps_the_filters(
        fresh: Catalog, depth: list[str]):
    """`meaning:on` had been read as two words to match ("0 results", each paper missing
    "meaning on"); "Your words only" had dropped the page's filters and order."""
    _encoded(fresh)
    with TestClient(create_app(fresh.settings)) as client:
        for q in (GUESS, "diffusion models", "what is in-context learning"):
            on = client.get("/api/search", params={"q": f"meaning:on {q}"}).json()
            plain = client.get("/api/search", params={"q": q}).json()
            assert (on["total"], on["hits"], on["reading"]) == (
                plain["total"], plain["hits"], plain["reading"]), q
        page = client.get("/search", params={"q": GUESS, "year": 2026, "sort": "venue"}).text
        link = re.search(r'href="([^"]*)">Your words only', page)
        assert link, page
        words_only = html.unescape(link.group(1))
        assert {"q": [f"{GUESS} meaning:off"], "year": ["2026"], "sort": ["venue"]} == \
            parse_qs(urlsplit(words_only).query)
        words_page = client.get("/search" + words_only).text
        assert "Close in meaning" not in words_page
        # Kept in the box and said, with the way back: edited and searched again, the words
        # had silently come back with meaning
        assert f'value="{html.escape(GUESS)} meaning:off"' in words_page
        back = re.search(r'href="([^"]*)">With papers close in meaning too', words_page)
        assert back and parse_qs(urlsplit(html.unescape(back.group(1))).query) == {
            "q": [GUESS], "year": ["2026"], "sort": ["venue"]}
        assert "With papers close in meaning too" not in page
        # Copied from a PDF with a character no reader sees: read as the search reads it, and
        # said, with the way back.
        # Or typed full-width, with a CJK input method on
        for typed in ("meaning:\u200boff", "ｍｅａｎｉｎｇ：ｏｆｆ", "meaning：off"):
            hidden = client.get("/search", params={"q": f"{GUESS} {typed}"}).text
            assert "Close in meaning" not in hidden, typed
            assert "With papers close in meaning too" in hidden, typed


def test_a_facet_counts_what_a_click_on_it_lists_with_the_papers_close_in_meaning(
        fresh: Catalog, depth: list[str], monkeypatch: pytest.MonkeyPatch):
    """A question's or a description's papers close in meaning are the closest of those its
    filters allow: the sidebar had counted the unfiltered ones ("Oral 18", the click 117).
    The seeds hold fewer than the 100 listed at most: 5 here, as among 88,000 papers."""
    monkeypatch.setattr(by_meaning, "NEAR_PAPERS", 5)
    _encoded(fresh)
    with TestClient(create_app(fresh.settings)) as client:
        for q, kept in ((GUESS, {}), ("how can we tell if a record was used to train a model", {}),
                        (GUESS, {"series": "depth"})):
            found = client.get("/api/search", params={"q": q, **kept}).json()
            assert found["reading"] and found["by_meaning"], q
            clicked = 0
            for name in ("series", "year", "venue"):
                for value in found["facets"].get(name, []):
                    if name in kept:
                        continue
                    after = client.get("/api/search", params={
                        "q": q, **kept, name: value["value"]}).json()
                    assert after["total"] == value["count"], (q, name, value)
                    clicked += 1
            assert clicked >= 2, found["facets"]


# Papers that all hold one concept: one about why it works, two using it in passing, often.
EXPLAINS = ("Why does dropout work? We explain dropout as approximate Bayesian model averaging "
            "over thinned networks, which reduces co-adaptation of hidden units.")
IN_PASSING = [f"A convolutional network for {task} of aerial images: dropout layers, a dropout "
              f"rate per block and dropout schedules with batch normalization in every block."
              for task in ("road segmentation", "building detection")]


# A description in everyday words that papers on other things hold, and papers on its idea
# that share a term it lacks ("membership inference").
RECORD = "finding out whether a person's record was used to teach a model"
MEMBERS = (
    "Membership inference attacks decide whether a given example was part of a model's "
    "training data; we audit deployed image classifiers.",
    "We study membership inference against generative adversarial networks and show that "
    "overfitting leaks which samples were in the training set.",
    "Differential privacy bounds the success of membership inference: we measure the gap "
    "between the bound and attacks on image classifiers.",
    "Label-only membership inference: without confidence scores an adversary still tells the "
    "training members of a classifier apart.",
)
ASIDE = (
    "Teachers record each person's progress: a tutoring model finds out which exercise to "
    "teach next.",
    "Electronic health records of each person are used to teach a model that finds out the "
    "risk of readmission.",
    "Finding out whether a speaker is the same person from a short voice record, we teach a "
    "model with few examples.",
)


def test_a_vague_description_raises_the_papers_holding_the_terms_its_closest_papers_share(
        fresh: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The encoder is unsure of RECORD (no paper lies close to it). Its closest papers share
    "membership inference", so the four papers on the idea follow those holding its words,
    ahead of the seeds that are as close in meaning; without the raise a seed comes between.
    A download lists the papers in the page's order. A description the encoder is sure of
    (a paper's own words) is ordered as without it."""
    fresh.ingest(write_list(tmp_path / "privacy.txt", "PRIVACY 2026 Papers", *MEMBERS, *ASIDE))
    _encoded(fresh)
    with fresh.session() as session:
        kinds = {paper.id: "member" if paper.abstract in MEMBERS else
                 "aside" if paper.abstract in ASIDE else "seed"
                 for paper in session.exec(select(Paper))}
    sure = MEMBERS[2].removesuffix(".")

    def found(client: TestClient, q: str) -> list[str]:
        return [hit["id"] for hit in client.get("/api/search", params={"q": q}).json()["hits"]]

    with TestClient(create_app(fresh.settings)) as client:
        raised, sure_raised = found(client, RECORD), found(client, sure)
        scores = [hit["score"] for page in (1, 2) for hit in client.get(
            "/api/search", params={"q": RECORD, "page": page}).json()["hits"]]
        assert len(scores) > 20 and scores == sorted(scores, reverse=True)  # across the pages
        assert [kinds[pid] for pid in raised[:7]] == ["aside"] * 3 + ["member"] * 4
        # The page names the terms borrowed, each a search of its own.
        borrowed = client.get("/api/search", params={"q": RECORD}).json()["reading"]["borrowed"]
        assert "membership inference" in [term.lower() for term in borrowed], borrowed
        page = client.get("/search", params={"q": RECORD}).text
        assert "The papers closest in meaning to it write" in page
        assert re.search(r'href="\?q=membership\+inference">membership inference</a>', page,
                         re.IGNORECASE)
        assert client.get("/api/search", params={"q": sure}).json()["reading"]["borrowed"] == []
        records = client.get("/search", params={"q": RECORD, "format": "json"}).json()
        assert [record["id"] for record in records][:len(raised)] == raised
    monkeypatch.setattr(weights, "WEIGHTS", replace(weights.WEIGHTS, shared_terms=0.0))
    with TestClient(create_app(fresh.settings)) as client:
        alone = found(client, RECORD)
        assert [kinds[pid] for pid in alone[:7]] != ["aside"] * 3 + ["member"] * 4
        assert sorted(alone) == sorted(raised)  # the same papers: only their order moved
        assert found(client, sure) == sure_raised


def test_a_question_of_one_concept_is_ordered_with_its_meaning(fresh: Catalog, tmp_path: Path):
    """A question naming one concept had listed its papers by words alone (BM25F: those
    repeating the word first); it is ordered as a question of several concepts is, its papers
    with the concept first, then those close in meaning, counted apart."""
    fresh.ingest(write_list(tmp_path / "dropout.txt", "DROPOUT 2026 Papers", EXPLAINS,
                            *IN_PASSING))
    _encoded(fresh)
    with TestClient(create_app(fresh.settings)) as client:
        def ask(q: str) -> dict:
            return client.get("/api/search", params={"q": q}).json()

        with fresh.session() as session:
            ids = {paper.abstract: paper.id for paper in session.exec(
                select(Paper).where(Paper.edition_slug == "dropout-2026"))}
        words = ask("why does dropout work meaning:off")
        meaning = ask("why does dropout work")
        assert words["reading"]["concepts"] == meaning["reading"]["concepts"] == ["dropout"]
        holders = words["total"]
        assert holders == meaning["reading"]["complete"] == words["reading"]["complete"] >= 3
        assert words["hits"][0]["id"] != ids[EXPLAINS]
        assert meaning["hits"][0]["id"] == ids[EXPLAINS]
        assert meaning["total"] == holders + meaning["by_meaning"]
        assert not any(hit["by_meaning"] for hit in meaning["hits"][:holders])


def test_keyword_queries_count_and_list_what_they_did_before_the_vectors(fresh: Catalog):
    before = {q: _search(fresh, q) for q in KEYWORD_QUERIES}
    totals = {q: PaperSearch(fresh.settings.index_path).counts(SearchRequest(q=q)).total
              for q in KEYWORD_QUERIES}
    _encoded(fresh)
    search = PaperSearch(fresh.settings.index_path, result_cache=0)
    assert search.with_index(lambda current: current.meaning is not None, False)
    for q in KEYWORD_QUERIES:
        assert search.counts(SearchRequest(q=q)).total == totals[q], q
        assert _search(fresh, q) == before[q], q


def test_a_paper_ingested_later_gets_its_vector_and_is_found_by_meaning(
        fresh: Catalog, tmp_path: Path):
    _encoded(fresh)
    later = write_list(tmp_path / "later.txt", "DEPTH 2027 Papers", DEPTH)
    env = {**fresh.env(), "CATALOG_ENCODE_VECTORS": "1"}
    done = subprocess.run([CATALOG, "ingest", str(later)], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sentence vectors derived in the background" in done.stdout
    deadline = time.monotonic() + 120  # `catalog update-index`, started by the ingest
    while time.monotonic() < deadline:
        with fresh.session() as session:
            with_vectors, total = counts(session)
        found = dict(_search(fresh, GUESS))
        if with_vectors == total and any(found.values()):
            break
        time.sleep(0.5)
    with fresh.session() as session:
        assert counts(session)[0] == counts(session)[1]
    assert any(by_meaning for _, by_meaning in _search(fresh, GUESS)[:5])


def test_a_killed_encoding_resumes_where_it_stopped(fresh: Catalog, tmp_path: Path):
    # The seeds' vectors made here (remembered from the tests before): the `catalog` process
    # then encodes the 300 papers only, 256 before the kill and the rest after it, not the
    # seeds a third time as well (6 s of a core).
    _encoded(fresh)
    fresh.ingest(synthetic_list(tmp_path / "many.txt", "MANY 2026", 300, "okapi"))
    env = {"CATALOG_ENCODE_VECTORS": "1"}
    killed_at(fresh, tmp_path, "encoded-batch", "update-index", env=env)
    with fresh.session() as session:
        stored, total = counts(session)
    assert 0 < stored < total  # the first batch committed, the rest not
    done = subprocess.run([CATALOG, "update-index"], env={**fresh.env(), **env},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{total - stored:,} papers encoded; {total:,} of {total:,}" in done.stdout
    search = PaperSearch(fresh.settings.index_path)
    vectors = search.with_index(lambda current: int(current.meaning.codes.any(axis=1).sum()), 0)
    assert vectors == total


@pytest.mark.parametrize("damage", ["garbled", "cut short"])
def test_damaged_vectors_keep_search_by_words_and_are_laid_out_again_alone(
        fresh: Catalog, depth: list[str], damage: str):
    """A damaged meaning.npy, found as a server starts with no other generation: the words are
    served (no "not ready", /healthz "ok" naming the damage), and the next update lays the
    vectors out again in a successor of the same Whoosh files, not a rebuild (minutes at L)."""
    _encoded(fresh)
    learning = PaperSearch(fresh.settings.index_path).counts(SearchRequest(q="learning")).total
    # A process that searched by meaning before the damage, and keeps its results.
    served = PaperSearch(fresh.settings.index_path)
    guessed = served.search(SearchRequest(q=GUESS), lambda ids: {})
    assert any(hit.by_meaning for hit in guessed.hits)
    live = fresh.settings.index_path.resolve()
    vectors = live / by_meaning.MEANING_FILE
    if damage == "garbled":
        vectors.write_bytes(b"\x00" * 128 + vectors.read_bytes()[128:])
    else:
        with open(vectors, "r+b") as data:
            data.truncate(vectors.stat().st_size // 2)
    served.warm()  # its check finds the damage: what it kept is not served again
    guessed = served.search(SearchRequest(q=GUESS), lambda ids: {})
    assert not any(hit.by_meaning for hit in [*guessed.hits, *guessed.partial])
    # The index lock held: the keeper finds the index busy, and the damage stays for the
    # server to serve around.
    with index_lock(fresh.settings), TestClient(create_app(fresh.settings)) as client:
        answer = client.get("/api/search", params={"q": "learning"}).json()
        assert answer["total"] == learning and answer["hits"], answer.get("message")
        described = client.get("/api/search", params={"q": GUESS}).json()
        assert not any(hit["by_meaning"] for hit in described["hits"])
        health = client.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok", health.json()
        assert by_meaning.MEANING_FILE in health.json()["index"], health.json()
        assert "deriving meaning" in health.json()["index"]
    # What /healthz says while the keeper's child makes them again: not a rebuild.
    assert IndexKeeper(fresh.settings)._working(None) == "making meaning again"
    with fresh.session() as session:
        outcome = sync_index(fresh.settings, session)
    assert outcome.kind is SyncKind.REMADE and by_meaning.MEANING_FILE in str(outcome)
    remade = fresh.settings.index_path.resolve()
    assert remade != live and verify(remade) is None
    segments = sorted(path.name for path in live.glob("*.pst"))
    assert segments and all((live / name).stat().st_ino == (remade / name).stat().st_ino
                            for name in segments)  # the words' files kept, linked
    assert dict(_search(fresh, GUESS)[:5]).get(depth[0]) is True


def test_the_progress_counts_papers_encoded_again_as_not_yet_done(fresh: Catalog):
    """Papers whose vector is not of their text now (their text, or the model's settings,
    changed) have a vector, but the bar counts them as to do until they are encoded again: it
    had stood at 100 % and 0/s through the whole run."""
    _encoded(fresh)
    with fresh.session() as session:
        stale = session.exec(select(PaperVector).limit(3)).all()
        for vector in stale:
            vector.digest = "0" * 16
            session.add(vector)
        session.commit()
        shown: list[tuple[int, int]] = []
        encoded = encode_and_publish(replace(fresh.settings, encode_vectors=True), session,
                                     publish_vectors, lambda *done: shown.append(done))
        total = counts(session)[1]
    assert encoded == 3
    assert shown[0] == (total - 3, total) and shown[-1] == (total, total)


def _damaged(archive: Path, how: str) -> None:
    """The archive as a disk or a download damages it: a byte changed inside a member (its
    CRC no longer matches), or the file cut short."""
    data = bytearray(archive.read_bytes())
    if how == "a byte changed":
        at = data.index(b"not the model either")
        data[at] ^= 0x20
    else:
        data = data[:len(data) // 2]
    archive.write_bytes(bytes(data))


@pytest.mark.parametrize(("archive", "named"), [
    ("of another model", "SHA-256"), ("with a byte changed", "damaged"),
    ("cut short", "damaged")])
def test_a_model_with_the_wrong_checksum_is_refused_and_search_by_words_goes_on(
        fresh: Catalog, depth: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        archive: str, named: str):
    _encoded(fresh)  # the vectors are there; the model a worker loads is not
    (fresh.settings.data_dir / "model" / "model.safetensors").write_bytes(b"not the model")
    wrong = tmp_path / "model.zip"
    with zipfile.ZipFile(wrong, "w") as written:  # stored: a changed byte is a bad CRC
        written.writestr("model.safetensors", b"not the model either")
        written.writestr("tokenizer.json", b"{}")
    if archive != "of another model":
        _damaged(wrong, archive.removeprefix("with "))
    monkeypatch.setattr(model_files, "packaged_archive", lambda: wrong)
    by_words = PaperSearch(fresh.settings.index_path, result_cache=0)
    assert by_words.search(SearchRequest(q="depth estimation"), lambda ids: {}).total >= 1
    found = by_words.search(SearchRequest(q=GUESS), lambda ids: {})
    assert not any(hit.by_meaning for hit in found.hits)
    assert by_words.encoder.problem is not None and named in by_words.encoder.problem


def _wheel_of_another_model(where: Path) -> Path:
    """A package of the wheel's name whose model.zip holds another file: put first on the
    server's path, it stands for a damaged install."""
    package = where / "all_minilm_l6_v2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    with zipfile.ZipFile(package / "model.zip", "w") as written:
        written.writestr("model.safetensors", b"not the model either")
    return where


@pytest.mark.parametrize("wheel", ["without its model.zip", "with a model.zip cut short"])
def test_a_model_missing_or_damaged_in_its_wheel_is_one_line_of_update_index(
        fresh: Catalog, tmp_path: Path, wheel: str):
    package = _wheel_of_another_model(tmp_path / "wheel") / "all_minilm_l6_v2"
    if wheel.startswith("without"):
        (package / "model.zip").unlink()
    else:
        (package / "model.zip").write_bytes((package / "model.zip").read_bytes()[:40])
    env = {**fresh.env(), "PYTHONPATH": str(package.parent), "CATALOG_ENCODE_VECTORS": "1"}
    done = subprocess.run([CATALOG, "update-index"], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith("sentence vectors")]
    assert len(said) == 1 and "none made, search by words only" in said[0], done.stdout
    assert str(package / "model.zip") in said[0] and "reinstall the model" in said[0]


def _page(base: str, q: str) -> str:
    return html.unescape(httpx.get(f"{base}/search", params={"q": q}).text)


def _vectors_said(base: str, said: Callable[[str], bool]) -> str:
    deadline = time.monotonic() + 60  # the keeper checks the model at each of its polls
    while (vectors := str(httpx.get(f"{base}/healthz").json().get("vectors"))) and not said(
            vectors) and time.monotonic() < deadline:
        time.sleep(0.3)
    return vectors


def test_a_damaged_model_is_named_in_one_line_and_by_healthz_and_mended_without_a_restart(
        fresh: Catalog, tmp_path: Path, model_cache: Path):
    """Every paper has its vector, so no encoding meets the model: it was damaged unnamed
    while every description silently lost the papers close in meaning."""
    _encoded(fresh)
    cache = fresh.settings.data_dir / "model"
    shutil.copytree(model_cache, cache, dirs_exist_ok=True)
    (cache / "model.safetensors").write_bytes(b"not the model")
    env = {**fresh.env(), "PYTHONPATH": str(_wheel_of_another_model(tmp_path / "wheel"))}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (tmp_path / "serve.log").open("w") as log:
        server = subprocess.Popen([CATALOG, "serve", "--port", str(port)], env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_ready(base, 60)
        vectors = _vectors_said(base, lambda said: "off" in said)
        assert "search by meaning is off" in vectors and "SHA-256" in vectors, vectors
        assert by_meaning.UNAVAILABLE in _page(base, GUESS)
        assert by_meaning.UNAVAILABLE not in _page(base, "depth estimation")  # words asked
        logged = (tmp_path / "serve.log").read_text()
        assert "Traceback" not in logged
        named = [line for line in logged.splitlines() if "search by meaning is off" in line]
        assert named and all("SHA-256" in line for line in named), logged
        # Mended as a reinstall does: the wheel's archive replaced whole, the copy extracted
        # again from it (copied into the cache in place, a check could read it half-written)
        archive = tmp_path / "wheel" / "all_minilm_l6_v2" / "model.zip"
        shutil.copy(model_files.packaged_archive(), archive.with_suffix(".new"))
        archive.with_suffix(".new").replace(archive)
        assert "off" not in _vectors_said(base, lambda said: "off" not in said)
        found = httpx.get(f"{base}/api/search", params={"q": TOLD}).json()
        assert any(hit["by_meaning"] for hit in found["hits"]), found
        assert by_meaning.UNAVAILABLE not in _page(base, GUESS)  # not the result kept
    finally:
        server.terminate()
        server.wait(timeout=30)
