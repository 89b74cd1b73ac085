"""The vocabulary file beside the index: prefix expansion, completions and "did you mean"."""

import re
from collections import Counter
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import text

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index.generation import VERSION_FILE
from app.search.index.manifest import write_manifest
from app.search.index.sync import SyncKind, SyncOutcome, sync_index
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from app.search.words.prefix_table import PrefixTable
from app.search.words.vocabulary import Vocabulary, paper_words, read_counts
from tests.conftest import Catalog, write_list


def count_words(texts: list[str]) -> Counter[str]:
    """Document frequencies, as an index build counts them."""
    counts: Counter[str] = Counter()
    for abstract in texts:
        counts.update(paper_words(abstract))
    return counts


def _vocabulary(*texts: str) -> Vocabulary:
    counts = count_words(list(texts))
    return Vocabulary(PrefixTable.of(counts))


def test_counts_are_papers_not_occurrences_and_words_are_folded():
    counts = count_words(["Learning to learn: learning Café.", "Learned CAFÉ"])
    assert counts["learning"] == 1 and counts["learned"] == 1 and counts["cafe"] == 2


def test_completions_are_the_most_frequent_words_with_the_prefix():
    vocabulary = _vocabulary("optimal optimizer", "optimal optimization", "optimal", "opera")
    assert vocabulary.completions("opt", 2) == ["optimal", "optimization"]
    assert vocabulary.completions("zz", 5) == []
    assert vocabulary.completions("opera", 5) == ["opera"]


def test_suggestions_prefer_the_closest_word_then_the_most_used():
    vocabulary = _vocabulary("transformer", "transformer", "transformed", "transformers")
    assert vocabulary.suggest("transformr") == "transformer"
    assert vocabulary.suggest("transformer") in {"transformers", "transformed"}
    # Words sorting after every known word, and an empty vocabulary, are no error.
    assert vocabulary.suggest("zzzzzzzz") is None
    assert Vocabulary().suggest("anything") is None


def test_full_build_counts_every_paper(seeded: Catalog):
    counts = read_counts(seeded.settings.index_path.resolve())
    with seeded.session() as session:
        texts = list(session.execute(text("SELECT plain FROM paper")).scalars())
    expected = sum(1 for text in texts if re.search(r"\bgrokking\b", text, re.I))
    assert expected and counts["grokking"] == expected


def test_incremental_updates_add_new_words_once(fresh: Catalog, tmp_path: Path):
    directory = fresh.settings.index_path.resolve()
    assert read_counts(directory)["quokkas"] == 0
    stamp_before = (directory / VERSION_FILE).read_text()
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers", "Quokkas hop.", "Quokkas nap.")
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        assert sync_index(fresh.settings, session) == SyncOutcome(SyncKind.UPDATED, 2)
        directory = fresh.settings.index_path.resolve()  # the update's own generation
        assert read_counts(directory)["quokkas"] == 2
        # As if the update's stamp had not been written: the same changes applied again.
        (directory / VERSION_FILE).write_text(stamp_before)
        write_manifest(directory, None)
        assert sync_index(fresh.settings, session) == SyncOutcome(SyncKind.UPDATED, 2)
    assert read_counts(fresh.settings.index_path.resolve())["quokkas"] == 2
    search = PaperSearch(fresh.settings.index_path, check_interval=0, result_cache=0)
    assert search.suggest("quok") == ["quokkas"]
    result = search.search(SearchRequest(q="quokk*"), lambda ids: {})
    assert result.total == 2
    result = search.search(SearchRequest(q="quokas"), lambda ids: {})
    assert result.corrected == "quokkas" and result.total == 2


def test_prefix_that_no_word_starts_with_finds_nothing(client: TestClient):
    for q in ("zzqxw*", "zzqxw* learning", "learning -zzqxw*"):
        response = client.get("/search", params={"q": q})
        assert response.status_code == 200
    body = client.get("/api/search", params={"q": "zzqxw*"}).json()
    assert body["total"] == 0
    with_word = client.get("/api/search", params={"q": "learning -zzqxw*"}).json()
    assert with_word["total"] == client.get("/api/search", params={"q": "learning"}).json()["total"]
