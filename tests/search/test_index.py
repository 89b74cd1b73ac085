from pathlib import Path

from app.search import index as search_index
from app.search.index import VERSION_FILE, read_index_version, sync_index, update_index
from tests.conftest import Catalog, write_list


def test_index_of_an_older_format_is_rebuilt(fresh: Catalog, monkeypatch):
    live = fresh.settings.index_path
    assert read_index_version(live) == 1
    monkeypatch.setattr(search_index, "INDEX_FORMAT", search_index.INDEX_FORMAT + 1)
    assert read_index_version(live) is None
    with fresh.session() as session:
        assert sync_index(fresh.settings, session).startswith("rebuilt")
    assert read_index_version(live) == 1
    assert (live.resolve() / VERSION_FILE).exists()


def test_incremental_update_applies_only_the_changes(fresh: Catalog, tmp_path: Path):
    from app.ingest.load import ingest_paths

    path = write_list(tmp_path / "n.txt", "ICLR 2027 Papers", "Quokka behaviour.")
    with fresh.session() as session:
        report = ingest_paths(session, [path])
        assert update_index(fresh.settings, session, report.added_ids, report.removed_ids,
                            report.version_before)
    assert read_index_version(fresh.settings.index_path) == 2


def test_incremental_update_refuses_an_index_from_another_version(fresh: Catalog, tmp_path):
    with fresh.session() as session:
        assert not update_index(fresh.settings, session, [], [], from_version=7)
