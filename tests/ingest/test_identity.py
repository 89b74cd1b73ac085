"""Which paper a row is (issue 43): papers a source listed under one abstract are kept apart
by their titles, people or links; a row that says the same, or nothing besides its abstract,
is the paper stored before."""

import json
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import select
from typer.testing import CliRunner

from app.cli import cli
from app.ids import paper_id
from app.ingest.identity import PLACEHOLDER
from app.main import create_app
from app.models import Paper
from tests.conftest import Catalog, write_list

ABSTRACT = "We measure how keratin plates bend under load in armoured mammals of the savanna."
WITHDRAWN = {"venue": "ICLR", "year": 2018, "title": "Withdrawn", "abstract": ABSTRACT,
             "status": "Withdraw"}
PANGOLIN = {"venue": "ICLR", "year": 2018, "title": "Pangolin Scales Under Stress",
            "abstract": ABSTRACT, "authors": ["Ada Lovelace"]}
OTHER = {"venue": "ICLR", "year": 2018, "title": "Tortoise Shell Mechanics",
         "abstract": "Shells of tortoises resist crushing by a layered design."}


def write_jsonl(path: Path, *rows: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def papers(catalog: Catalog, venue: str = "iclr-2018") -> dict[str, tuple[str, str]]:
    with catalog.session() as session:
        return {p.id: (p.title, p.status) for p in session.exec(
            select(Paper).where(Paper.edition_slug == venue))}


def search(catalog: Catalog, query: str) -> list[tuple[str, str]]:
    with TestClient(create_app(catalog.settings)) as client:
        hits = client.get("/api/search", params={"q": query}).json()["hits"]
    return [(hit["id"], hit["title"]) for hit in hits]


def test_papers_listed_with_one_abstract_are_both_kept(fresh: Catalog, tmp_path: Path):
    report = fresh.ingest(write_jsonl(tmp_path / "twins.jsonl", WITHDRAWN, PANGOLIN))
    assert (report.added, report.duplicate, report.errors) == (2, 0, [])
    withdrawn, pangolin = paper_id("iclr-2018", ABSTRACT), paper_id(
        "iclr-2018", ABSTRACT, PANGOLIN["title"])
    assert papers(fresh) == {withdrawn: ("Withdrawn", PLACEHOLDER),
                             pangolin: ("Pangolin Scales Under Stress", "")}
    assert [str(note) for note in report.apart] == [
        f"twins.jsonl:2: another paper than twins.jsonl:1 (same abstract, other title, people "
        f"or links): kept as {pangolin}"]
    assert search(fresh, "pangolin") == [(pangolin, "Pangolin Scales Under Stress")]
    assert sorted(search(fresh, "keratin armoured")) == sorted(
        [(withdrawn, "Withdrawn"), (pangolin, "Pangolin Scales Under Stress")])
    assert search(fresh, "status:placeholder") == [(withdrawn, "Withdrawn")]


def test_twins_keep_their_ids_from_ingest_to_ingest(fresh: Catalog, tmp_path: Path):
    path = write_jsonl(tmp_path / "twins.jsonl", WITHDRAWN, PANGOLIN)
    fresh.ingest(path)
    before = papers(fresh)
    again = fresh.ingest(path)
    assert (again.files_unchanged, again.added, again.unchanged, again.changed) == (
        1, 0, 2, False)
    write_jsonl(path, OTHER, PANGOLIN, WITHDRAWN)  # re-read: new bytes, the twins swapped
    changed = fresh.ingest(path)
    assert (changed.added, changed.updated, changed.unchanged, changed.removed,
            changed.duplicate) == (1, 0, 2, 0, 0)
    after = papers(fresh)
    assert {pid: after[pid] for pid in before} == before
    assert len(after) == 3


def test_a_row_identical_to_a_stored_paper_is_that_paper(fresh: Catalog, tmp_path: Path):
    first = fresh.ingest(write_jsonl(tmp_path / "a.jsonl", PANGOLIN))
    report = fresh.ingest(write_jsonl(tmp_path / "b.jsonl", OTHER, PANGOLIN, PANGOLIN))
    assert (report.added, report.duplicate) == (1, 2)
    assert [str(note) for note in report.merged] == [
        "b.jsonl:2: the same paper as a.jsonl:1 (same abstract, title, people and links): "
        "not stored again",
        "b.jsonl:3: the same paper as a.jsonl:1 (same abstract, title, people and links): "
        "not stored again"]
    assert set(papers(fresh)) == {*first.added_ids, *report.added_ids}


def test_list_file_rows_with_one_abstract_still_merge(fresh: Catalog, tmp_path: Path):
    listed = write_list(tmp_path / "iclr.txt", "ICLR 2018 Papers", ABSTRACT, ABSTRACT)
    report = fresh.ingest(listed, write_jsonl(tmp_path / "z.jsonl", PANGOLIN))
    assert (report.added, report.duplicate, report.apart) == (1, 2, [])
    assert list(papers(fresh)) == [paper_id("iclr-2018", ABSTRACT)]
    assert [note.line for note in report.merged] == [5, 1]
    assert "one of them says nothing else" in str(report.merged[1])


def test_a_paper_without_a_twin_keeps_the_id_of_its_abstract(seeded: Catalog):
    with seeded.session() as session:
        stored = session.exec(select(Paper.id, Paper.edition_slug, Paper.abstract)).all()
    assert len(stored) == 91
    assert all(pid == paper_id(venue, abstract) for pid, venue, abstract in stored)


def test_the_cli_names_each_merged_and_kept_apart_row(tmp_path: Path, catalog_env: Path):
    path = write_jsonl(tmp_path / "twins.jsonl", WITHDRAWN, PANGOLIN, PANGOLIN)
    result = CliRunner().invoke(cli, ["ingest", str(path)])
    assert result.exit_code == 0, result.output
    assert "papers added: 2, updated: 0, unchanged: 0, duplicate: 1" in result.output
    assert "  merged: twins.jsonl:3: the same paper as twins.jsonl:2 " in result.output
    assert "  kept apart: twins.jsonl:2: another paper than twins.jsonl:1 " in result.output
    assert "errors: 0" in result.output
