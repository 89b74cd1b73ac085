"""Posting arrays beside the index: written by builds and updates, identical to Whoosh's
postings, memory-mapped by searches, and not needed for correct results."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from whoosh import index as whoosh_index

from app.enrich import ON_INGEST
from app.ingest.load import ingest_paths
from app.search.index import arrays
from app.search.index.arrays import ARRAYS_DIR, FIELDS, field_arrays
from app.search.index.held_files import mapped_array
from app.search.index.sync import SyncKind, sync_index
from app.search.index.whoosh import decode_positions, decode_postings
from app.search.query.language import QueryParser
from app.search.rank.matches import matching_docs
from tests.conftest import Catalog, write_list


def _check_every_term(directory: Path) -> int:
    checked = 0
    with whoosh_index.open_dir(str(directory)).reader() as reader:
        for leaf, _ in reader.leaf_readers():
            for fieldname in FIELDS:
                found = field_arrays(leaf, fieldname)
                assert found is not None and isinstance(found.ids.base, np.memmap)  # mapped
                for term in leaf.lexicon(fieldname):
                    mapped = found.term(term.decode("utf-8"))
                    counted = decode_postings(leaf, fieldname, term)
                    decoded = decode_positions(leaf, fieldname, term)
                    for postings in (counted, decoded):
                        assert mapped.ids.tolist() == postings.ids.tolist(), term
                        assert mapped.weights.tolist() == postings.weights.tolist(), term
                    assert [mapped.positions_of(doc).tolist() for doc in mapped.ids] == [
                        decoded.positions_of(doc).tolist() for doc in decoded.ids], term
                    checked += 1
    return checked


def test_a_build_writes_arrays_equal_to_whoosh_postings(seeded: Catalog):
    directory = seeded.settings.index_path.resolve()
    assert sorted(p.name.split(".")[1] for p in (directory / ARRAYS_DIR).iterdir()) == sorted(
        FIELDS)
    assert _check_every_term(directory) > 1000


def test_an_update_adds_its_segment_arrays_and_a_rebuild_drops_old_ones(fresh: Catalog,
                                                                        tmp_path: Path):
    added = write_list(tmp_path / "n.txt", "ICLR 2027 Papers", "Quokka graph diffusion.",
                       "Wombat learning in graphs.")
    with fresh.session() as session:
        ingest_paths(session, [added], ON_INGEST)
        assert sync_index(fresh.settings, session).kind is SyncKind.UPDATED
    directory = fresh.settings.index_path.resolve()
    assert len(list((directory / ARRAYS_DIR).iterdir())) == 2 * len(FIELDS)
    _check_every_term(directory)
    parser = QueryParser(lambda prefix: [], lambda name: True)
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        assert matching_docs(searcher, parser.parse("quokka").query).sum() == 1


def _dtypes(directory: Path, name: str) -> set[str]:
    return {str(np.load(folder / f"{name}.npy", mmap_mode="r").dtype)
            for folder in (directory / ARRAYS_DIR).iterdir()}


def test_weights_and_positions_are_narrowed_only_where_every_value_stays_the_same(
        tmp_path: Path, seeded: Catalog):
    """float16 and uint16 where each value is the same in them (the seeds' arrays), the
    wider type where one is not."""
    directory = seeded.settings.index_path.resolve()
    assert _dtypes(directory, "weights") == {"float16"}
    assert _dtypes(directory, "positions") == {"uint16"}
    cases = [(np.array([1.0, 1.5, 73.0, 1023.5], np.float32), np.float16, True),
             (np.array([1024.5], np.float32), np.float16, False),
             (np.array([1.0, 0.1], np.float32), np.float16, False),
             (np.array([0, 65_535], np.int32), np.uint16, True),
             (np.array([0, 65_536], np.int32), np.uint16, False),
             (np.array([-1, 3], np.int32), np.uint16, False)]
    for number, (values, dtype, fits) in enumerate(cases):
        path = tmp_path / f"{number}.npy"
        np.save(path, values)
        assert arrays.narrowed(path, dtype) is fits, values
        kept = np.load(path)
        assert kept.dtype == (dtype if fits else values.dtype) and kept.tolist() == values.tolist()
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_phrase_past_the_16383rd_word_of_a_paper_is_found(fresh: Catalog, tmp_path: Path):
    """A paper long enough that its positions do not fit uint16 keeps them in int32, and
    its last words are found as a phrase."""
    long_text = "Quokka " + "word " * 17_000 + "wombat tunnels at night."
    fresh.ingest(write_list(tmp_path / "long.txt", "LONG 2025 Papers", long_text,
                            "Wombat burrows are dug by day."), rebuild=True)
    directory = fresh.settings.index_path.resolve()
    assert "int32" in _dtypes(directory, "positions")
    parser = QueryParser(lambda prefix: [], lambda name: True)
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        assert matching_docs(searcher, parser.parse('"wombat tunnels"').query).sum() == 1


def test_searches_without_arrays_find_the_same(fresh: Catalog):
    directory = fresh.settings.index_path.resolve()
    parser = QueryParser(lambda prefix: [], lambda name: True)
    queries = [parser.parse(q).query for q in ("learning", "graph neural", '"in-context"')]
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        with_arrays = [matching_docs(searcher, q).tolist() for q in queries]
    shutil.rmtree(directory / ARRAYS_DIR)
    arrays._opened.clear()
    with whoosh_index.open_dir(str(directory)).searcher() as searcher:
        leaf = next(iter(searcher.leaf_searchers()))[0].reader()
        assert field_arrays(leaf, "text") is None
        assert [matching_docs(searcher, q).tolist() for q in queries] == with_arrays
    assert any(map(any, with_arrays))


def test_a_fields_terms_are_numbered_from_their_mapped_file(tmp_path: Path):
    """Every term is found at its line, across strides, and nothing else is found."""
    terms = sorted({f"{a}{b}{c}" for a in "bcdéfz" for b in ("", "x", "yy", "ñu", "-z")
                    for c in ("", "a", "ab", "é", "s")}, key=str.encode)
    assert len(terms) > 2 * arrays.TERM_STRIDE
    (tmp_path / "terms.txt").write_bytes("\n".join(terms).encode())
    for stride in (1, 3, arrays.TERM_STRIDE, 1000):
        table = arrays.TermTable(tmp_path / "terms.txt", stride)
        assert len(table) == len(terms) and list(table) == terms
        assert [table.get(term) for term in terms] == list(range(len(terms)))
        for absent in ("", " ", "a", "bb", "b-y", "zz", "\U0010ffff", "B", "bxyy"):
            assert table.get(absent) is None, absent
    (tmp_path / "none.txt").write_bytes(b"")
    empty = arrays.TermTable(tmp_path / "none.txt")
    assert len(empty) == 0 and list(empty) == [] and empty.get("a") is None


def _mapped_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1])
    raise AssertionError("no RssFile in /proc/self/status")


def test_a_mapped_array_read_in_windows_leaves_memory_and_reads_the_same(tmp_path: Path,
                                                                        monkeypatch):
    values = np.arange(8 << 20, dtype=np.int32)  # 32 MB
    np.save(tmp_path / "values.npy", values)
    mapped = mapped_array(tmp_path / "values.npy")
    monkeypatch.setattr(arrays, "WINDOW", 1 << 20)
    before = _mapped_kb()
    total = 0
    for begin, end in arrays.windows(mapped):
        total += int(mapped[begin:end].sum(dtype=np.int64))
    assert total == int(values.sum(dtype=np.int64))
    assert _mapped_kb() - before < 8 << 10  # a window or so stays mapped, not 32 MB
    assert np.array_equal(mapped, values)  # dropped pages come back from the file
    arrays.drop_pages(mapped, 0, len(mapped))
    assert _mapped_kb() - before < 8 << 10
    # A writable array in memory is one window, and its pages are its own: kept.
    assert list(arrays.windows(values)) == [(0, len(values))]
    arrays.drop_pages(values, 0, len(values))
    assert values[-1] == len(values) - 1
