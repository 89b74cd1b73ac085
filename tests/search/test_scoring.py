"""SegmentLengthBM25F ranks exactly as Whoosh's BM25F, on one segment and on several."""

from pathlib import Path

import pytest
from whoosh import index as whoosh_index
from whoosh.scoring import BM25F

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index.sync import SyncKind, sync_index
from app.search.index.whoosh import SegmentLengthBM25F
from app.search.query.language import QueryParser
from tests.conftest import Catalog, write_list

QUERIES = ["learning", "neural network", "sharpness aware minimization", '"in-context learning"',
           "diffusion OR transformer", "quokka"]


def _ranking(directory: Path, weighting: BM25F, q: str) -> list[tuple[str, float]]:
    parser = QueryParser(lambda prefix: [], lambda name: True)
    query = parser.parse(q).query
    with whoosh_index.open_dir(str(directory)).searcher(weighting=weighting) as searcher:
        return [(hit["id"], round(hit.score, 9)) for hit in searcher.search(query, limit=30)]


@pytest.mark.parametrize("q", QUERIES)
def test_same_scores_as_whoosh_on_one_segment(seeded: Catalog, q: str):
    directory = seeded.settings.index_path.resolve()
    assert whoosh_index.open_dir(str(directory)).doc_count() > 0
    expected = _ranking(directory, BM25F(), q)
    assert _ranking(directory, SegmentLengthBM25F(), q) == expected
    assert expected or q == "quokka"


def test_same_scores_as_whoosh_on_several_segments(fresh: Catalog, tmp_path: Path):
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers",
                       "Quokka learning with neural networks.", "A quokka of learning.")
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
    directory = fresh.settings.index_path.resolve()
    assert len(whoosh_index.open_dir(str(directory))._segments()) == 2
    for q in QUERIES:
        expected = _ranking(directory, BM25F(), q)
        assert _ranking(directory, SegmentLengthBM25F(), q) == expected
        assert expected
