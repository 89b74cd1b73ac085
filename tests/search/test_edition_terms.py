"""What's new, counted from the index (issue 24): each edition's papers per word and per
two-word title phrase are exactly what a search finds there, phrases never cross papers or
full stops that titles do not join, and what rose against earlier editions is found."""

from pathlib import Path

from fastapi.testclient import TestClient

from app.ingest.load import ingest_paths
from app.main import create_app
from app.search.edition_terms import read_edition_terms
from app.search.index import SyncKind, sync_index
from app.search.vocabulary import Vocabulary
from app.whats_new import edition_whats_new, year_whats_new
from tests.conftest import Catalog, make_catalog
from tests.rising import corpus, more


def counts(catalog: Catalog, edition: str) -> dict[str, int]:
    terms = read_edition_terms(catalog.settings.index_path.resolve())
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


def test_what_rose_at_an_edition_and_what_is_new_there(delta: Catalog):
    directory = delta.settings.index_path.resolve()
    terms, vocabulary = read_edition_terms(directory), Vocabulary.read(directory)
    found = edition_whats_new(terms, vocabulary, "delta-2023")
    assert found.before_editions == ["delta-2020", "delta-2021", "delta-2022"]
    assert (found.papers, found.before_papers) == (20, 60)
    rising = {t.shown: t for t in found.rising}
    assert "quantum widgets" in rising
    widgets = rising["quantum widgets"]
    assert (widgets.papers, widgets.before, widgets.query) == (12, 0, '"quantum widgets"')
    assert "kernel machines" not in rising and "kernel" not in rising  # their share fell
    assert "quantum" not in rising  # the phrase holds most of its papers
    assert {t.term for t in found.first_seen} >= {"quantum widget"}
    assert edition_whats_new(terms, vocabulary, "delta-2020").rising == []  # nothing before
    assert edition_whats_new(terms, vocabulary, "nowhere-2020") is None


def test_a_series_new_in_a_year_does_not_rise_with_it(delta: Catalog):
    directory = delta.settings.index_path.resolve()
    terms, vocabulary = read_edition_terms(directory), Vocabulary.read(directory)
    year = year_whats_new(terms, vocabulary, 2023)
    assert year.papers == 50 and year.filters == {"year": 2023}
    shown = {t.shown for t in year.rising}
    assert "quantum widgets" in shown
    assert not shown & {"omega", "frobnication", "lattices"}
    assert "frobnication" in {t.shown for t in year.first_seen}  # but it is new there


def test_an_update_of_the_index_counts_again(tmp_path: Path):
    catalog = make_catalog(tmp_path)
    catalog.ingest(corpus(tmp_path / "delta.jsonl"))
    with catalog.session() as session:
        ingest_paths(session, [more(tmp_path / "more.jsonl", 5)])
        assert sync_index(catalog.settings, session).kind is SyncKind.UPDATED
    assert counts(catalog, "delta-2023")["quantum widget"] == 17
