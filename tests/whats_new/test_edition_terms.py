"""What's new, counted from the index (issue 24): each edition's papers per word and per
two-word title phrase are exactly what a search finds there, phrases never cross papers or
full stops that titles do not join, and what rose against earlier editions is found."""

import gc
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from whoosh import index as whoosh_index

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.main import create_app
from app.search.index import arrays
from app.search.index.arrays import deleted_docs
from app.search.index.held_files import counts_in, mapped_arrays
from app.search.index.sync import SyncKind, sync_index
from app.search.searcher import PaperSearch
from app.search.words.completions import PHRASES_FILE
from app.whats_new import edition_terms, rising, term_counts
from app.whats_new.concepts import ConceptNames
from app.whats_new.edition_terms import TERMS_FILE, read_edition_terms
from app.whats_new.rising import edition_whats_new, names_of, year_whats_new
from app.whats_new.term_counts import count_edition_terms
from tests.conftest import Catalog, make_catalog, write_list
from tests.rising import corpus, more, record


def counts(catalog: Catalog, edition: str, directory: Path | None = None) -> dict[str, int]:
    terms = read_edition_terms(directory or catalog.settings.index_path.resolve())
    at = terms.editions.index(edition)
    vector = terms.vector([at])
    return {term: int(vector[i]) for i, term in enumerate(terms.terms) if vector[i]}


def test_an_editions_counts_are_its_papers_holding_each_term(delta: Catalog):
    found = counts(delta, "delta-2023")
    assert found["quantum widget"] == 12
    assert found["quantum"] == 13 and found["widget"] == 13  # the two split papers hold one each
    assert found["kernel machine"] == 18
    assert found["sparse"] == found["attention"] == 20
    # Phrases are those of the catalog's titles and keywords: none writes these two.
    assert not {"network deep", "deep network"} & set(found)
    assert counts(delta, "delta-2022")["kernel machine"] == 20
    assert "quantum widget" not in counts(delta, "delta-2022")


def test_counts_equal_what_a_search_finds_in_the_edition(delta: Catalog):
    found = counts(delta, "delta-2023")
    with TestClient(create_app(delta.settings)) as client:
        for term, query in (("quantum widget", '"quantum widgets"'), ("kernel", "kernel"),
                            ("kernel machine", '"kernel machines"'), ("widget", "widgets")):
            total = client.get("/api/search", params={"q": query, "venue": "delta-2023"}
                               ).json()["total"]
            assert total == found[term], term


def test_a_phrase_is_counted_where_its_quoted_search_finds_it_not_across_stop_words(
        tmp_path: Path):
    """A typed phrase matches only where no stop word parts its words: "vision and language"
    had counted for "vision language", whose link (its quoted search) does not find it; at L
    what's new's earlier column read 314 where the row's link found 221."""
    catalog = make_catalog(tmp_path)
    rows = [("Vision language pretraining", "We pretrain on captions."),
            ("Vision language alignment", "We align captions."),
            ("Grounding robots", "We align vision and language in robots."),
            ("Grounding agents", "Agents that join vision with language."),
            ("Grounding words", "Vision of language: a study."),
            ("Tasks", "Vision language tasks are hard.")]
    path = tmp_path / "zeta.jsonl"
    path.write_text("".join(json.dumps({"venue": "ZETA", "year": 2024, "title": title,
                                        "abstract": abstract}) + "\n"
                            for title, abstract in rows))
    catalog.ingest(path)
    with TestClient(create_app(catalog.settings)) as client:
        found = client.get("/api/search", params={"q": '"vision language"',
                                                  "venue": "zeta-2024"}).json()["total"]
    assert found == 3 == counts(catalog, "zeta-2024")["vision language"]
    assert counts(catalog, "zeta-2024")["vision"] == 6


_searches: dict[Path, PaperSearch] = {}  # kept open: the names read from an index need it


def opened(catalog: Catalog) -> tuple[edition_terms.EditionTerms, ConceptNames]:
    """The catalog's edition terms and how what's new names them, from its open index."""
    search = _searches.setdefault(catalog.settings.index_path,
                                  PaperSearch(catalog.settings.index_path))
    return search.with_index(lambda current: (edition_terms.opened_terms(current.parts),
                                              names_of(current)), None)


def test_what_rose_at_an_edition_and_what_is_new_there(delta: Catalog):
    terms, names = opened(delta)
    found = edition_whats_new(terms, names, "delta-2023")
    assert found.before_editions == ["delta-2020", "delta-2021", "delta-2022"]
    assert (found.papers, found.before_papers) == (20, 60)
    rising = {t.shown: t for t in found.rising}
    assert "quantum widgets" in rising
    widgets = rising["quantum widgets"]
    assert (widgets.papers, widgets.before, widgets.query) == (12, 0, '"quantum widgets"')
    assert "kernel machines" not in rising and "kernel" not in rising  # their share fell
    assert "quantum" not in rising  # the phrase holds most of its papers
    assert {t.term for t in found.first_seen} >= {"quantum widget"}
    assert edition_whats_new(terms, names, "delta-2020").rising == []  # nothing before
    assert edition_whats_new(terms, names, "nowhere-2020") is None


def test_prose_pieces_and_undefined_acronyms_rise_but_are_not_listed(delta: Catalog):
    terms, names = opened(delta)
    found = edition_whats_new(terms, names, "delta-2023")
    counted = counts(delta, "delta-2023")
    for term in ("significantly", "demonstrably", "outshine", "xy", "krr"):
        assert counted[term] == 12, term  # they rose: 12 papers now, none before
    listed = {t.term for t in found.rising + found.first_seen}
    assert not listed & {"significantly", "demonstrably", "outshine", "xy", "krr"}
    assert not any(word in {"significantly", "xy", "krr"} for t in listed for word in t.split())


def test_an_acronym_is_listed_with_the_meaning_its_papers_define(delta: Catalog):
    terms, names = opened(delta)
    found = edition_whats_new(terms, names, "delta-2023")
    dm = next(t for t in found.rising if t.term == "dm")
    assert (dm.shown, dm.meaning, dm.label) == ("DMs", "diffusion models", "DMs (diffusion models)")
    assert (dm.papers, dm.query) == (12, "dms")  # the search that counts exactly its papers


def test_an_acronym_holds_the_words_of_its_meaning(delta: Catalog):
    """"diffusion models" rose in the same papers as "DMs (diffusion models)": listed once."""
    terms, names = opened(delta)
    found = edition_whats_new(terms, names, "delta-2023")
    listed = {t.term for t in found.rising}
    assert "dm" in listed and not listed & {"diffusion model", "diffusion", "model"}


def test_a_series_new_in_a_year_does_not_rise_with_it(delta: Catalog):
    terms, names = opened(delta)
    year = year_whats_new(terms, names, 2023)
    assert year.papers == 50 and year.filters == {"year": 2023}
    shown = {t.shown for t in year.rising}
    assert "quantum widgets" in shown
    assert not shown & {"omega", "frobnication", "lattices"}
    assert "frobnication" in {t.shown for t in year.first_seen}  # but it is new there


def test_an_update_of_the_index_counts_again(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(corpus(tmp_path / "delta.jsonl"))
    with catalog.session() as session:
        ingest_paths(session, [more(tmp_path / "more.jsonl", 5)], ON_INGEST)
        assert sync_index(catalog.settings, session).kind is SyncKind.UPDATED
    assert counts(catalog, "delta-2023")["quantum widget"] == 17


def written(directory: Path) -> dict[str, np.ndarray]:
    count_edition_terms(directory, counts_in(directory / PHRASES_FILE))
    return mapped_arrays(directory / TERMS_FILE)


def counted_by_chunks(index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      papers: int, window: int) -> Path:
    """Count a copy of the index `papers` at a time, reading its mapped arrays `window` bytes
    at a time: every array written equals the one counted in a single chunk and the one the
    index was built with. The copy, so counted."""
    directory = tmp_path / "index"
    shutil.copytree(index.resolve(), directory)  # the fixture's index stays as it was
    built = {name: np.array(array) for name, array in mapped_arrays(directory / TERMS_FILE).items()}
    monkeypatch.setattr(term_counts, "CHUNK_DOCUMENTS", 1 << 30)
    whole = written(directory)
    monkeypatch.setattr(term_counts, "CHUNK_DOCUMENTS", papers)
    monkeypatch.setattr(arrays, "WINDOW", window)
    chunked = written(directory)
    assert built.keys() == whole.keys() == chunked.keys() and len(whole["term_ids"])
    for name, array in whole.items():
        for other in (built[name], chunked[name]):
            assert array.dtype == other.dtype and np.array_equal(array, other), name
    return directory


@pytest.mark.parametrize(("papers", "window"), [(1, 64), (2, 4100), (3, 8 << 20)])
def test_counting_a_few_papers_at_a_time_counts_the_same(delta: Catalog, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          papers: int, window: int):
    # No phrase made across a chunk's edge ("quantum" ending one untitled paper, "widgets"
    # starting the next), no paper counted in two chunks or left out of all.
    counted_by_chunks(delta.settings.index_path, tmp_path, monkeypatch, papers, window)


def test_chunks_of_several_segments_leave_out_deleted_papers(fresh: Catalog, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers",
                       *(f"Quantum widgets of sparse attention, case {n}." for n in range(8)))
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
        write_list(added, "ICLR 2027 Papers",
                   *(f"Quantum widgets of sparse attention, case {n}." for n in range(6)))
        ingest_paths(session, [added], ON_INGEST)  # two of them removed: deleted in the new segment
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
    with whoosh_index.open_dir(str(fresh.settings.index_path.resolve())).searcher() as searcher:
        leaves = [leaf.reader() for leaf, _ in searcher.leaf_searchers()]
        assert len(leaves) >= 2 and sum(len(deleted_docs(leaf)) for leaf in leaves) >= 2
    directory = counted_by_chunks(fresh.settings.index_path, tmp_path, monkeypatch, 2, 64)
    assert counts(fresh, "iclr-2027", directory)["quantum"] == 6


def test_an_index_opened_again_names_its_terms_from_the_new_opening(delta: Catalog):
    """An app started again on the same catalog opens the same generation again: what's new
    must not name terms through the first opening, closed by then."""
    first = PaperSearch(delta.settings.index_path)
    first.with_index(names_of, None)  # the first opening's names, nothing looked up yet
    first.close()
    del first
    gc.collect()
    again = PaperSearch(delta.settings.index_path)
    year = again.with_index(lambda current: year_whats_new(
        edition_terms.opened_terms(current.parts), names_of(current), 2023), None)
    assert "frobnication" in {t.shown for t in year.first_seen}


def test_a_rising_terms_counts_then_and_now_are_what_its_search_finds(tmp_path: Path):
    """The earlier column had been the postings' count where the now column is the search's:
    a search of a term's group also finds papers writing only another form, so the two columns
    counted different things ("vision language" of 2022-2024 at L: 207 by its postings, 221
    by its search). Both are recounted by the search, whatever the postings said."""
    rows = []
    for year in (2021, 2022, 2023):
        rows += [record("Omega", year, f"Kernel machines {year} {n}",
                        ("An RL agent with kernel machines." if n < 2 else
                         "We study kernel machines.") + f" Case {n}.") for n in range(20)]
    rows += [record("Omega", 2024, f"Reinforcement learning for kernels {n}",
                    f"We use reinforcement learning (RL) on kernel machines. Case {n}.")
             if n < 12 else record("Omega", 2024, f"Kernel machines 2024 {n}",
                                   f"We study kernel machines. Case {n}.") for n in range(20)]
    source = tmp_path / "omega.jsonl"
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    catalog = make_catalog(tmp_path / "catalog")
    catalog.ingest(source)
    terms, names = opened(catalog)
    found = edition_whats_new(terms, names, "omega-2024")
    assert found.rising and found.before_years == [2021, 2022, 2023]
    miscounted = replace(found, rising=[replace(t, papers=999, before=999) for t in found.rising])
    search = _searches[catalog.settings.index_path]
    recounted = search.with_index(lambda current: rising._searched(current, miscounted), None)
    with TestClient(create_app(catalog.settings)) as client:
        def total(q: str, **filters: object) -> int:
            return client.get("/api/search", params={"q": q, **filters}).json()["total"]

        for term in recounted.rising:
            assert term.papers == total(term.query, venue="omega-2024") > 0, term
            assert term.before == total(term.query + " year:2021-2023", series="omega") > 0
            assert term.before_share == term.before / found.before_papers
        served = client.get("/api/whats-new", params={"series": "omega", "year": 2024}).json()
        assert [(t["papers"], t["before"]) for t in served["rising"]] == [
            (t.papers, t.before) for t in recounted.rising]


def test_a_term_that_rose_at_one_conference_alone_does_not_rise_in_the_year(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Of three conferences held in 2022 and 2023, one brings "quantum widgets" (18 of its 20
    papers in 2023): that is its own news, not the year's (rising.ONE_SERIES of the papers a
    term gained are one conference's). "sparsifiers" rose at all three: the year's."""
    rows = []
    for venue in ("Alpha", "Beta", "Gamma"):
        for n in range(20):
            rows.append(record(venue, 2022, f"Kernel machines {venue} {n}",
                               f"We study kernel machines on benchmarks. Case {n}."))
            topic = ("Quantum widgets beat kernel machines" if venue == "Alpha" and n < 18
                     else "Kernel machines on benchmarks")
            broad = " Graph sparsifiers help." if n < 8 else ""
            rows.append(record(venue, 2023, f"{topic} {venue} {n}",
                               f"{topic}.{broad} Case {n}."))
    source = tmp_path / "three.jsonl"
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    catalog = make_catalog(tmp_path / "catalog")
    catalog.ingest(source)
    terms, names = opened(catalog)
    shown = {term.shown for term in year_whats_new(terms, names, 2023).rising}
    assert "sparsifiers" in shown
    assert not shown & {"quantum widgets", "quantum", "widgets"}
    # Without the rule it would have risen in the year: the rule, not the counts, left it out
    monkeypatch.setattr(rising, "ONE_SERIES", 1.01)
    assert "quantum widgets" in {term.shown for term in year_whats_new(terms, names, 2023).rising}
