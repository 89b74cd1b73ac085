import re
from pathlib import Path

import pytest
from sqlmodel import select

from app.models import Paper
from app.search.index import read_index_version
from app.search.searcher import PaperSearch
from tests.conftest import Catalog, write_list


def texts_from(catalog: Catalog):
    def texts(ids: list[str]) -> dict[str, str]:
        with catalog.session() as session:
            return {p.id: p.plain for p in session.exec(select(Paper).where(Paper.id.in_(ids)))}
    return texts


def ids_matching(catalog: Catalog, pattern: str) -> set[str]:
    with catalog.session() as session:
        return {p.id for p in session.exec(select(Paper))
                if re.search(pattern, p.plain, re.I)}


def test_stemming_finds_other_forms_of_a_word(seeded: Catalog):
    result = PaperSearch(seeded.settings.index_path).search("memorize", texts_from(seeded))
    found = {hit.id for hit in result.hits}
    assert found == ids_matching(seeded, r"\bmemori[sz]\w*")
    assert result.total == len(found) > 5


def test_all_words_must_match(seeded: Catalog):
    search = PaperSearch(seeded.settings.index_path)

    def found(query: str) -> set[str]:
        return {hit.id for hit in search.search(query, texts_from(seeded)).hits}

    both = found("sharpness minimization")
    assert both == found("sharpness") & found("minimization")
    assert 0 < len(both) < len(found("minimization"))


def test_venue_filter(seeded: Catalog):
    search = PaperSearch(seeded.settings.index_path)
    everywhere = search.search("generalization", texts_from(seeded))
    iclr = search.search("generalization", texts_from(seeded), venue="iclr-2026")
    with seeded.session() as session:
        iclr_ids = {p.id for p in session.exec(select(Paper)
                                               .where(Paper.venue_slug == "iclr-2026"))}
    assert 0 < iclr.total < everywhere.total
    assert {hit.id for hit in iclr.hits} <= iclr_ids


def test_snippets_mark_matches_and_escape_text(fresh: Catalog, tmp_path: Path):
    fresh.ingest(write_list(tmp_path / "x.txt", "XSS 2026 Papers",
                            "Zebrafish <script>alert(1)</script> zebrafish & co."))
    result = PaperSearch(fresh.settings.index_path).search("zebrafish", texts_from(fresh))
    assert result.total == 1
    snippet = result.hits[0].snippet
    assert "<mark" in snippet and ">Zebrafish</mark>" in snippet
    assert "<script>" not in snippet and "&lt;script&gt;" in snippet


def test_server_picks_up_a_changed_index_without_restart(fresh: Catalog, tmp_path: Path):
    search = PaperSearch(fresh.settings.index_path, check_interval=0)
    assert search.search("axolotl", texts_from(fresh)).total == 0
    fresh.ingest(write_list(tmp_path / "new.txt", "ICLR 2027 Papers", "Axolotl regeneration."))
    assert search.search("axolotl", texts_from(fresh)).total == 1


def test_index_records_the_catalog_version(seeded: Catalog):
    assert read_index_version(seeded.settings.index_path) == 1


@pytest.mark.parametrize("query", ['"unbalanced', "(", "AND", "*", "venue:", "NOT", ")))",
                                   "a" * 10_000, "\x00\x01", "<b>x</b>", "'; DROP TABLE paper"])
def test_odd_queries_never_raise(seeded: Catalog, query: str):
    result = PaperSearch(seeded.settings.index_path).search(query, texts_from(seeded))
    assert result.total >= 0
    assert result.message is None or "query" in result.message.lower()
