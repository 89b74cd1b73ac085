"""The search engine itself, over the seed catalog: PaperSearch with a real Whoosh index."""

import re
import shutil
from pathlib import Path

from sqlmodel import select

from app.models import Paper
from app.search.index.manifest import MANIFEST_FILE
from app.search.index.paper_ids import IDS_DIR
from app.search.index.sync import read_index_version
from app.search.rank.filters import COLUMNS_DIR
from app.search.results import SearchRequest, SearchResult
from app.search.searcher import PaperSearch
from tests.conftest import Catalog, write_list


def texts_from(catalog: Catalog):
    def texts(ids: list[str]) -> dict[str, str]:
        with catalog.session() as session:
            return {p.id: p.plain for p in session.exec(select(Paper).where(Paper.id.in_(ids)))}
    return texts


def run(catalog: Catalog, q: str = "", **filters) -> SearchResult:
    return PaperSearch(catalog.settings.index_path).search(
        SearchRequest(q=q, **filters), texts_from(catalog))


def ids(result: SearchResult) -> set[str]:
    return {hit.id for hit in result.hits}


def ids_matching(catalog: Catalog, pattern: str, venue: str | None = None) -> set[str]:
    with catalog.session() as session:
        return {p.id for p in session.exec(select(Paper))
                if re.search(pattern, p.plain, re.I) and venue in (None, p.edition_slug)}


def test_a_word_finds_its_inflections_and_not_its_derivations(seeded: Catalog):
    result = run(seeded, "memorize")
    assert ids(result) == ids_matching(seeded, r"\bmemori[sz](?:e|es|ed|ing)\b")
    assert result.total == len(ids(result)) > 0
    nouns = run(seeded, "memorization")
    assert ids(nouns) == ids_matching(seeded, r"\bmemori[sz]ations?\b")
    assert nouns.total > 5 and ids(nouns) != ids(result)


def test_all_words_must_match(seeded: Catalog):
    both = ids(run(seeded, "sharpness minimization"))
    assert both == ids(run(seeded, "sharpness")) & ids(run(seeded, "minimization"))
    assert 0 < len(both) < len(ids(run(seeded, "minimization")))


def test_venue_filter(seeded: Catalog):
    iclr = run(seeded, "memorization", venue="iclr-2026")
    assert 0 < iclr.total < run(seeded, "memorization").total
    assert ids(iclr) == ids_matching(seeded, r"\bmemori[sz]ations?\b", venue="iclr-2026")


def test_snippets_mark_matches_and_escape_text(fresh: Catalog, tmp_path: Path):
    fresh.ingest(write_list(tmp_path / "x.txt", "XSS 2026 Papers",
                            "Zebrafish <script>alert(1)</script> zebrafish & co."))
    result = run(fresh, "zebrafish")
    assert result.total == 1
    snippet = result.hits[0].snippet
    assert ">Zebrafish</mark>" in snippet
    assert "<script>" not in snippet and "&lt;script&gt;" in snippet


def test_server_picks_up_a_changed_index_without_restart(fresh: Catalog, tmp_path: Path):
    search = PaperSearch(fresh.settings.index_path, check_interval=0)
    assert search.search(SearchRequest(q="axolotl"), texts_from(fresh)).total == 0
    fresh.ingest(write_list(tmp_path / "new.txt", "ICLR 2027 Papers", "Axolotl regeneration."))
    assert search.search(SearchRequest(q="axolotl"), texts_from(fresh)).total == 1


def test_a_generation_written_before_its_mapped_files_is_searched_alike(fresh: Catalog):
    """An index of an older format is served until the keeper has rebuilt it: without the
    facet columns and paper IDs a newer one maps, they are read from Whoosh's own columns."""
    request = SearchRequest(q="learning", series="iclr")
    before = PaperSearch(fresh.settings.index_path).search(request, texts_from(fresh))
    directory = fresh.settings.index_path.resolve()
    for written in (COLUMNS_DIR, IDS_DIR):
        shutil.rmtree(directory / written)
    (directory / MANIFEST_FILE).unlink()  # written before manifests, too
    after = PaperSearch(fresh.settings.index_path).search(request, texts_from(fresh))
    assert after.total == before.total > 0
    assert [hit.id for hit in after.hits] == [hit.id for hit in before.hits]
    assert after.facets == before.facets and after.facets["venue"]


def test_index_records_the_catalog_version(seeded: Catalog):
    assert read_index_version(seeded.settings.index_path) == 1


def test_readable_math_is_searchable(fresh: Catalog, tmp_path: Path):
    fresh.ingest(write_list(tmp_path / "m.txt", "MATH 2026 Papers",
                            r"Sorting in $\mathcal{O}(n\log n)$ time under $\ell_1$ loss.",
                            r"A bound of $\Theta(\sqrt{T})$ for $\alpha$-mixing."))
    assert run(fresh, "l1").total == 1
    assert run(fresh, "O(n log n)").total == 1
    assert run(fresh, '"alpha mixing"').total == 1
    assert run(fresh, "theta").total >= 1


def test_alpha_entmax_in_the_seeds(seeded: Catalog):
    assert ids(run(seeded, "alpha-entmax")) == ids_matching(seeded, r"α-entmax")


def test_matching_query_matches_exactly_what_the_ranked_query_matches(seeded: Catalog):
    from whoosh import index as whoosh_index

    from app.search.query.language import QueryParser
    from app.search.rank.matches import matching_query

    searcher = whoosh_index.open_dir(str(seeded.settings.index_path)).searcher()
    parser = QueryParser(lambda prefix: [], lambda name: True)
    for text in ["reinforcement learning", '"in-context learning" -grokking', "venue:icml LLM",
                 "(sharpness OR flatness) minimization", "memorization NOT privacy", "SAM"]:
        query = parser.parse(text).query
        assert set(searcher.docs_for_query(matching_query(query))) == set(
            searcher.docs_for_query(query)), text
    searcher.close()
