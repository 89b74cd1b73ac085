"""A full build writes its segment in bulk: what Whoosh's own writer writes, for the seeds and
for documents at the edges of the formats. The postings' blocks are pickled otherwise and not
compressed (writing.py), so those two files are compared as Whoosh reads them: every term's
statistics and every block's; all the other files byte for byte."""

from __future__ import annotations

from dataclasses import replace
from itertools import accumulate
from pathlib import Path

import pytest
from sqlmodel import select
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.fields import TEXT, Schema
from whoosh.util.numeric import byte_to_length, length_to_byte

from app.models import Edition, Paper
from app.search.index import postings
from app.search.index import sync as index_module
from app.search.index.sync import _writer, build_index, build_schema, paper_document
from app.search.index.whoosh import create_index, segment_lengths, writing
from app.search.index.whoosh.writing import BulkSegmentWriter
from app.search.results import SearchRequest
from app.search.searcher import PaperSearch
from tests.conftest import Catalog
from tests.search.test_arrays import _check_every_term


def _segment_files(directory: Path) -> dict[str, bytes]:
    """The segment's files by their kind (`pst`, `trm`, `text_len.col`, ...): segment IDs
    are random, the contents are what is compared."""
    files = {}
    for path in directory.iterdir():
        if path.name.startswith("MAIN_") and "." in path.name:
            files[path.name.split(".", 1)[1]] = path.read_bytes()
    return files


def _segment(directory: Path) -> tuple[dict[str, bytes], dict[tuple[str, bytes], list]]:
    """The segment's files but its postings and terms (`_segment_files`), and what Whoosh
    reads of each term: its statistics, then each block's info and postings."""
    files = _segment_files(directory)
    assert {"pst", "trm"} <= set(files)
    terms: dict[tuple[str, bytes], list] = {}
    with whoosh_index.open_dir(str(directory)).reader() as reader:
        for field, term in reader.all_terms():
            info = reader.term_info(field, term)
            read = terms[field, term] = [(
                info.weight(), info.doc_frequency(), info.min_length(), info.max_length(),
                info.max_weight(), info.min_id(), info.max_id())]
            matcher = reader.postings(field, term)
            while matcher.is_active():
                matcher._read_weights()
                matcher._read_values()
                read.append((matcher._blocklength, matcher._maxid, matcher._maxweight,
                             matcher._minlength, matcher._maxlength, matcher._lastblock,
                             list(accumulate(matcher._data[0])), list(matcher._weights),
                             list(matcher._values)))
                matcher._next_block()
    return {kind: content for kind, content in files.items() if kind not in ("pst", "trm")}, terms


def _assert_same_segment(whoosh: Path, bulk: Path) -> None:
    whoosh_files, whoosh_terms = _segment(whoosh)
    bulk_files, bulk_terms = _segment(bulk)
    assert {"_stored.col", "_text_len.col"} <= set(whoosh_files)
    assert bulk_files.keys() == whoosh_files.keys()
    for kind, content in whoosh_files.items():
        assert bulk_files[kind] == content, kind
    assert list(bulk_terms) == list(whoosh_terms)
    for key, read in whoosh_terms.items():
        assert bulk_terms[key] == read, key


def _write_both(documents: list[dict[str, object]], root: Path) -> None:
    (root / "whoosh").mkdir()
    (root / "bulk").mkdir()
    ix = create_index(root / "whoosh", build_schema())
    writer = _writer(ix)
    for document in documents:
        writer.add_document(**document)
    writer.commit()
    ix = create_index(root / "bulk", build_schema())
    seen: list[str] = []
    bulk = BulkSegmentWriter(ix, lambda segment, name, postings: seen.append(name))
    for document in documents:
        bulk.add_document(**document)
    bulk.commit()
    assert {"headline", "text"} <= set(seen)
    _assert_same_segment(root / "whoosh", root / "bulk")


def _documents(*catalogs: Catalog) -> list[dict[str, object]]:
    documents = []
    for catalog in catalogs:
        with catalog.session() as session:
            venues = {venue.slug: venue for venue in session.exec(select(Edition))}
            documents.extend(paper_document(paper, venues[paper.edition_slug])
                             for paper in session.exec(select(Paper).order_by(Paper.id)))
    return documents


# Written at once, or by parts: merged and written a chunk of postings at a time.
@pytest.mark.parametrize("by_parts", [False, True])
def test_bulk_segments_read_as_whoosh_own_for_the_catalogs(seeded: Catalog,
                                                           multiseries: Catalog,
                                                           tmp_path: Path, monkeypatch,
                                                           by_parts: bool):
    if by_parts:
        monkeypatch.setattr(postings, "MERGE_CHUNK", 100)
        monkeypatch.setattr(writing, "_POSTINGS_AT_ONCE", 30)
    documents = _documents(seeded, multiseries)
    assert len(documents) > 500  # common words fill several posting blocks of 128
    _write_both(documents, tmp_path)


def test_bulk_segments_read_as_whoosh_own_at_the_edges(seeded: Catalog, tmp_path: Path):
    base = _documents(seeded)[0]
    far = " ".join(["filler"] * 300)  # position deltas beyond one byte
    farther = " ".join(["padding"] * 70_000)  # and beyond two bytes
    edges = [
        "wombat " * 1500,  # more positions than pickle writes in one batch
        f"quokka {far} quokka {farther} quokka",
        "Ünïcödé naïve Straße 東京 résumé — ∀x∈ℝ",
        "",  # a paper whose text has no terms
    ]
    # Keyword and name fields with repeated, spaced and tabbed values, and empty ones
    keywords = ["ada-lovelace emile-borel ada-lovelace", "", "mit  eth-zurich\tmit ",
                "東京-大学"]
    documents = [{**base, "id": f"edge-{i}", "text": text, "headline": text[:40],
                  "author": "" if i % 2 else "Ada Lovelace ; Émile Borel",
                  "has": "code" if i % 2 else "", "year": 1987 + 40 * i,
                  "by": keywords[i], "institution": keywords[-1 - i],
                  "status": "" if i % 2 else base["status"],
                  "venue_name": "NeurIPS neurips-2026 NeurIPS Straße" if i % 2 else ""}
                 for i, text in enumerate(edges)]
    _write_both(documents, tmp_path)


def test_field_lengths_decode_as_whoosh_reads_them(seeded: Catalog, tmp_path: Path):
    base = _documents(seeded)[0]
    texts = ["long text " * 300, "short", "", ""]  # the last papers have no text length
    ix = whoosh_index.create_in(str(tmp_path), build_schema())
    writer = BulkSegmentWriter(ix, lambda *args: None)
    for i, text in enumerate(texts):
        writer.add_document(**{**base, "id": f"p{i}", "text": text, "author": ""})
    writer.commit()
    with ix.reader() as reader:
        perdoc = reader._perdoc
        for field in ("headline", "text", "author"):
            column = perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
            expected = None if column is None else [byte_to_length(b) for b in column]
            decoded = segment_lengths(reader, field)
            assert (None if decoded is None else list(decoded)) == expected, field
        assert list(segment_lengths(reader, "text")) == [byte_to_length(length_to_byte(n))
                                                          for n in (600, 1, 0, 0)]


def _array_files(directory: Path) -> dict[str, bytes]:
    """The posting arrays beside the index by field and file (segment IDs are random)."""
    return {f"{field.name.split('.', 1)[1]}/{path.name}": path.read_bytes()
            for field in (directory / "arrays").iterdir() for path in field.iterdir()}


def test_a_build_past_its_memory_bound_writes_the_bytes_of_one_piece(seeded: Catalog,
                                                                    monkeypatch,
                                                                    tmp_path: Path):
    merges: list[object] = []
    monkeypatch.setattr(index_module, "_writer", lambda ix: merges.append(ix) or _writer(ix))
    spills: list[Path] = []
    spill = BulkSegmentWriter.spill
    monkeypatch.setattr(BulkSegmentWriter, "spill",
                        lambda self, directory: spills.append(directory) or spill(self, directory))
    built = {}
    # Runs of 20,000 characters, merged and written 50 postings at a time; or one piece.
    for limit, chunk in ((20_000, 50), (index_module.BUILD_RUN_CHARS, postings.MERGE_CHUNK)):
        monkeypatch.setattr(index_module, "BUILD_RUN_CHARS", limit)
        monkeypatch.setattr(postings, "MERGE_CHUNK", chunk)
        settings = replace(seeded.settings, data_dir=tmp_path / str(limit))
        with seeded.session() as session:
            count = build_index(settings, session)
        built[limit] = settings.index_path.resolve()
    assert len(spills) >= 4 and merges == []  # set aside on disk, merged by no Whoosh writer
    in_runs, in_one = built.values()
    assert not (in_runs / "runs").exists()
    assert _segment_files(in_runs) == _segment_files(in_one)
    assert _array_files(in_runs) == _array_files(in_one)
    with whoosh_index.open_dir(str(in_runs)).reader() as reader:
        assert reader.doc_count() == count
        assert len(list(reader.leaf_readers())) == 1
    assert _check_every_term(in_runs) > 1000
    merged = PaperSearch(in_runs, check_interval=0, result_cache=0)
    single = PaperSearch(seeded.settings.index_path, check_interval=0, result_cache=0)
    for query in ["learning", '"large language models"', "diffusion -image", "graph*"]:
        request = SearchRequest(q=query)
        assert [hit.id for hit in merged.search(request, lambda ids: {}).hits] == [
            hit.id for hit in single.search(request, lambda ids: {}).hits], query


def test_fields_the_bulk_writer_cannot_write_are_refused(tmp_path: Path):
    ix = whoosh_index.create_in(str(tmp_path), Schema(body=TEXT(vector=True)))
    with pytest.raises(ValueError, match="body"):
        BulkSegmentWriter(ix, lambda *args: None)
    ix.writer().cancel()  # the refusal left the index unlocked
