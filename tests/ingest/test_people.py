"""Issue 23, item 1: the people fields of JSON Lines and CSV (affiliations, institutions,
countries, code, TL;DR) are read, normalized, stored and replaced when a row changes; a
malformed field costs only that field."""

import json
from pathlib import Path

from alembic import command
from fastapi.testclient import TestClient
from sqlmodel import select

from app.db import get_engine
from app.ingest.tabular import parse_csv_bytes, parse_jsonl_bytes
from app.main import create_app
from app.models import Paper, PaperAuthor, PaperOrigin
from app.schema import _config, head_revision, upgrade
from tests.conftest import Catalog

ROW = {"venue": "CoRL", "year": 2025, "title": "Legged Quokkas",
       "abstract": "We train legged robots; code at https://github.com/q/legged.",
       "authors": ["Ada  Lovelace", "Jose\u0301 García,", "Ada Lovelace", "Jose\u0301 García"],
       "affiliations": ["ETH Zurich", "", "ETH Zurich", "Universidad de Chile"],
       "institutions": ["ETH Zurich", "Universidad de Chile", "ETH Zürich"],
       "countries": "Switzerland; Chile",
       "code": "https://github.com/q/legged-release", "tldr": "Quokkas   walk."}


def _jsonl(tmp_path: Path, *rows: dict, name: str = "people.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_people_are_normalized_and_a_repeated_author_list_is_one(tmp_path: Path):
    path = _jsonl(tmp_path, ROW)
    (paper,) = parse_jsonl_bytes(path, path.read_bytes()).abstracts
    people = paper.people
    # NFC (José written with a combining accent), single spaces, no trailing comma; the
    # second half of the list repeats the first, as ICRA's and IROS's lists do.
    assert people.authors == ("Ada Lovelace", "José García")
    # José's first affiliation is empty; the repeat gives it.
    assert people.affiliations == ("ETH Zurich", "Universidad de Chile")
    # ETH Zürich and ETH Zurich share a slug: one institution, as written first
    assert people.institutions == ("ETH Zurich", "Universidad de Chile")
    assert people.countries == ("Switzerland", "Chile")
    assert (people.code, people.tldr) == ("https://github.com/q/legged-release", "Quokkas walk.")


def test_csv_takes_the_same_fields_separated_by_semicolons(tmp_path: Path):
    path = tmp_path / "people.csv"
    path.write_text("venue,year,abstract,authors,affiliations,institutions,countries,code,tldr\n"
                    'CoRL,2025,A robot abstract.,"Ada Lovelace; Alan Turing","MIT; ",MIT,'
                    "United States,https://github.com/a/b,Short.\n")
    (paper,) = parse_csv_bytes(path, path.read_bytes()).abstracts
    assert paper.people.authors == ("Ada Lovelace", "Alan Turing")
    assert paper.people.affiliations == ("MIT", "")
    assert (paper.people.institutions, paper.people.countries) == (("MIT",), ("United States",))
    assert (paper.people.code, paper.people.tldr) == ("https://github.com/a/b", "Short.")


def test_a_malformed_field_is_named_and_its_row_loads_without_it(fresh: Catalog,
                                                                   tmp_path: Path):
    rows = [{**ROW, "affiliations": ["Only one"]},
            {**ROW, "abstract": "Second.", "institutions": 42, "countries": [1]},
            {**ROW, "abstract": "Third.", "code": "javascript:alert(1)", "tldr": ["x"]},
            {**ROW, "abstract": "Fourth.", "authors": [None]}]
    path = _jsonl(tmp_path, *rows)
    report = fresh.ingest(path)
    assert report.added == 4
    assert [(e.line, e.message.split(" ")[0]) for e in report.errors] == [
        (1, "affiliations:"), (2, "institutions"), (2, "countries"), (3, "code"),
        (3, "tldr"), (4, "authors")]
    assert all(str(e).startswith(f"{path}:") and "loads without it" in e.message
               for e in report.errors)
    with fresh.session() as session:
        papers = {p.source_line: p for p in session.exec(
            select(Paper).where(Paper.edition_slug == "corl-2025"))}
    assert papers[1].author_list == ["Ada Lovelace", "José García"]
    assert papers[1].affiliation_list == [] and papers[1].country_list == ["Switzerland", "Chile"]
    assert papers[2].institution_list == [] and papers[2].country_list == []
    assert papers[3].code_links == [] and papers[3].tldr == ""
    assert papers[4].author_list == [] and papers[4].institution_list


def test_hostile_people_are_bounded(fresh: Catalog, tmp_path: Path):
    row = {**ROW, "authors": [f"Author {i}" for i in range(500)] + ["<b>x</b>" * 5_000],
           "affiliations": ["A" * 10_000] + ["<script>B</script>"] * 500,
           "institutions": [f"Lab {i}" for i in range(1_000)]}
    fresh.ingest(_jsonl(tmp_path, row))
    with fresh.session() as session:
        (paper,) = session.exec(select(Paper).where(Paper.edition_slug == "corl-2025"))
        origins = session.exec(select(PaperOrigin).where(PaperOrigin.kind == "institution"))
        assert len(origins.all()) == 100
    assert len(paper.author_list) == 200
    assert len(paper.affiliation_list) == 200 and len(paper.affiliation_list[0]) == 300
    assert len(paper.institution_list) == 100


def test_stored_people_and_places(fresh: Catalog, tmp_path: Path):
    fresh.ingest(_jsonl(tmp_path, ROW))
    with fresh.session() as session:
        (paper,) = session.exec(select(Paper).where(Paper.edition_slug == "corl-2025"))
        authors = session.exec(select(PaperAuthor.name, PaperAuthor.slug)
                               .order_by(PaperAuthor.position)).all()
        origins = session.exec(select(PaperOrigin.kind, PaperOrigin.slug, PaperOrigin.name)
                               .order_by(PaperOrigin.kind, PaperOrigin.slug)).all()
    assert authors == [("Ada Lovelace", "ada-lovelace"), ("José García", "jose-garcia")]
    assert origins == [("country", "chile", "Chile"), ("country", "switzerland", "Switzerland"),
                       ("institution", "eth-zurich", "ETH Zurich"),
                       ("institution", "universidad-de-chile", "Universidad de Chile")]
    # the code field first, then the links the abstract holds
    assert paper.code_links == ["https://github.com/q/legged-release",
                                "https://github.com/q/legged"]
    assert paper.tldr == "Quokkas walk."
    with TestClient(create_app(fresh.settings)) as client:  # each author's own affiliation
        page = client.get(f"/papers/{paper.id}").text
    assert ('Ada Lovelace</a> <span class="affiliation">(ETH Zurich)</span>' in page
            and '(Universidad de Chile)</span>' in page)


def test_a_row_with_new_people_replaces_its_paper_and_unchanged_files_do_no_work(
        fresh: Catalog, tmp_path: Path):
    path = _jsonl(tmp_path, ROW, {**ROW, "abstract": "A second paper."})
    fresh.ingest(path)
    with fresh.session() as session:
        first_added = {p.id: p.added_at for p in session.exec(select(Paper))
                       if p.edition_slug == "corl-2025"}
    again = fresh.ingest(path)
    assert (again.files_unchanged, again.added, again.updated, again.changed) == (1, 0, 0, False)

    _jsonl(tmp_path, {**ROW, "authors": ["Grace Hopper"], "affiliations": ["Yale"],
                      "institutions": ["Yale University"], "countries": ["United States"]},
           {**ROW, "abstract": "A second paper."})
    report = fresh.ingest(path)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 1, 1, 0)
    assert report.changed
    with fresh.session() as session:
        papers = {p.id: p for p in session.exec(select(Paper)) if p.edition_slug == "corl-2025"}
        names = session.exec(select(PaperAuthor.name)).all()
        places = session.exec(select(PaperOrigin.name)).all()
    assert {p.id: p.added_at for p in papers.values()} == first_added  # first ingested: kept
    assert sorted(names) == ["Ada Lovelace", "Grace Hopper", "José García"]
    assert sorted(places) == ["Chile", "ETH Zurich", "Switzerland", "United States",
                              "Universidad de Chile", "Yale University"]
    with TestClient(create_app(fresh.settings)) as client:
        found = client.get("/api/search", params={"q": 'author:"grace hopper"'}).json()
        assert found["total"] == 1


def test_an_upgraded_catalog_reads_its_jsonl_again_to_fill_in_people(fresh: Catalog,
                                                                      tmp_path: Path):
    path = _jsonl(tmp_path, ROW)
    fresh.ingest(path)
    engine = get_engine(fresh.settings.database_url)
    with engine.begin() as connection:  # back to the catalog revision 0005 left
        command.downgrade(_config(connection), "0005")
    assert upgrade(engine) == ("0005", head_revision())
    report = fresh.ingest(path)
    assert (report.files_unchanged, report.updated) == (0, 1)
    with fresh.session() as session:
        (paper,) = session.exec(select(Paper).where(Paper.edition_slug == "corl-2025"))
        assert len(session.exec(select(PaperOrigin)).all()) == 4
    assert paper.institution_list == ["ETH Zurich", "Universidad de Chile"]


def test_a_code_link_is_one_address(fresh: Catalog, tmp_path: Path):
    report = fresh.ingest(_jsonl(tmp_path, {
        **ROW, "code": "https://github.com/x javascript:alert(1)"}))
    assert [e.message.split(" ")[0] for e in report.errors] == ["code"]
    with fresh.session() as session:
        (paper,) = session.exec(select(Paper).where(Paper.edition_slug == "corl-2025"))
    assert paper.code_links == ["https://github.com/q/legged"]  # the abstract's own
