"""Schema migrations: a catalog at the first revision upgrades in place, on the run's database
(`make test` runs the suite on SQLite and on PostgreSQL)."""

import json
from pathlib import Path

from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import Engine, inspect, text
from sqlmodel import Session
from typer.testing import CliRunner

from app.cli import cli
from app.config import Settings
from app.db import connect
from app.enrich import ON_INGEST
from app.ingest.identity import source_digest
from app.ingest.listfile import RawAbstract
from app.ingest.load import ingest_paths
from app.main import create_app
from app.schema import FIRST_REVISION, HEAD_REVISION, _config, head_revision, upgrade
from tests.conftest import SEEDS, TEST_HOSTS
from tests.postgres import BACKEND, cluster, sqlite_run

# A catalog as the first release wrote it: one venue, two papers (one with an author).
FIRST_RELEASE_ROWS = [
    "INSERT INTO venue VALUES ('iclr-2026', 'ICLR', 2026, 2)",
    "INSERT INTO paper VALUES ('p1', 'iclr-2026', 0, 'We study quokkas.', 'We study quokkas.', "
    "'<p>We study quokkas.</p>', 'We study quokkas.', '', 'Ada Lovelace', '', '', '', "
    "'other', '[]', '', 'a.txt', 3, '2026-01-01 00:00:00+00')",
    "INSERT INTO paper VALUES ('p2', 'iclr-2026', 1, 'Wombats dig.', 'Wombats dig.', "
    "'<p>Wombats dig.</p>', 'Wombats dig.', '', '', '', '', '', 'other', '[]', '', 'a.txt', 5, "
    "'2026-01-01 00:00:00+00')",
    "INSERT INTO paperauthor VALUES ('p1', 0, 'Ada Lovelace', 'ada-lovelace')",
    "INSERT INTO sourcefile VALUES ('a.txt', 'abc', 2, '2026-01-01 00:00:00+00')",
    "INSERT INTO wordstat VALUES ('quokka', 1)",
    "INSERT INTO catalogstate VALUES ('catalog_version', '1')",
]
TABLES = ("edition", "paper", "paperauthor", "sourcefile", "wordstat", "catalogstate")
FIRST_TABLES = {"edition": "venue"}  # the first release's names, where they differ (0007)


def _url(tmp_path: Path) -> str:
    """A new, empty database of the run's kind (each run of `make test` checks its own)."""
    return f"sqlite:///{tmp_path / 'catalog.db'}" if BACKEND == "sqlite" else (
        cluster().new_database())


def _rows(url: str, names: dict[str, str] | None = None, tables: tuple[str, ...] = TABLES
          ) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the catalog's tables, by the table's name at head (`names` gives the
    older name of a table renamed since)."""
    names = names or {}
    with connect(url).connect() as connection:
        return {table: sorted(tuple(str(v) for v in row) for row in connection.execute(
            text(f"SELECT * FROM {names.get(table, table)}"))) for table in tables}


def test_a_first_release_catalog_upgrades_to_head_without_loss(tmp_path: Path):
    url = _url(tmp_path)
    engine = connect(url)
    assert upgrade(engine, FIRST_REVISION) == (None, FIRST_REVISION)
    with engine.begin() as connection:
        for statement in FIRST_RELEASE_ROWS:
            connection.execute(text(statement))
    before = _rows(url, FIRST_TABLES)

    assert upgrade(engine) == (FIRST_REVISION, head_revision())
    after = _rows(url)
    # Revision 0003 adds the papers' status, empty for papers loaded before it; revision 0004
    # makes topic scores, keyphrases and word statistics again, with the analyzer that folds
    # inflections only and the keyphrases that read as noun phrases; revision 0006 adds people
    # and places, empty, and the digest of a list file's row (which has neither).
    people = ("", "", "", "", source_digest(RawAbstract(line=0, text="")))
    before["paper"] = [(*row[:13], '[["other", 0.0]]', keyphrases, *row[15:], "", *people)
                       for row, keyphrases in zip(before["paper"], ["quokkas", "wombats dig"],
                                                  strict=True)]
    before["wordstat"] = [("dig", "1"), ("quokkas", "1"), ("wombats", "1")]
    assert {table: rows for table, rows in after.items() if table != "catalogstate"} == {
        table: rows for table, rows in before.items() if table != "catalogstate"}
    state = dict(after["catalogstate"])
    assert state["catalog_version"] == "1" and state["full_rebuild_version"] == "1"
    assert len(state["catalog_id"]) == 32

    # The upgraded catalog serves: the index is built from it, and its papers are found.
    settings = Settings(data_dir=tmp_path / "node", seeds_dir=SEEDS, database=url,
                        allowed_hosts=TEST_HOSTS)
    app = create_app(settings)
    client = TestClient(app)  # no lifespan: the keeper runs only when called below
    assert client.get("/healthz").status_code == 503
    assert app.state.keeper.check() == "rebuilt (2 papers)"
    assert client.get("/healthz").json()["status"] == "ok"
    found = client.get("/api/search", params={"q": "quokkas"}).json()
    assert [hit["id"] for hit in found["hits"]] == ["p1"]
    assert "Ada Lovelace" in client.get("/papers/p1").text
    engine.dispose()


def test_the_cli_refuses_an_old_schema_until_catalog_migrate(tmp_path: Path, monkeypatch):
    url = _url(tmp_path)
    upgrade(connect(url), FIRST_REVISION)
    monkeypatch.setenv("CATALOG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CATALOG_DATABASE_URL", url)
    refused = CliRunner().invoke(cli, ["ingest", str(SEEDS)])
    assert refused.exit_code != 0
    assert "Run `catalog migrate`" in str(refused.exception)
    migrated = CliRunner().invoke(cli, ["migrate"])
    assert migrated.exit_code == 0
    assert f"upgraded from {FIRST_REVISION} to {head_revision()}" in migrated.output
    assert "nothing to do" in CliRunner().invoke(cli, ["migrate"]).output
    assert CliRunner().invoke(cli, ["ingest", str(SEEDS)]).exit_code == 0
    connect(url).dispose()


@sqlite_run  # only SQLite catalogs existed before migrations
def test_a_catalog_from_before_migrations_is_adopted(tmp_path: Path):
    url = _url(tmp_path)
    engine = connect(url)
    upgrade(engine, FIRST_REVISION)
    with engine.begin() as connection:  # what the first release's create_all left behind
        connection.execute(text("DROP TABLE alembic_version"))
        connection.execute(text(FIRST_RELEASE_ROWS[0]))
    assert upgrade(engine) == (FIRST_REVISION, head_revision())
    assert _rows(url)["edition"] == [("iclr-2026", "ICLR", "2026", "2")]


def test_an_upgrade_assigns_topics_again_with_this_releases_analyzer(tmp_path: Path):
    from app.topics import TopicScorer

    abstract = ("Transformers trained with reinforcement learning from human feedback follow "
            "instructions; we align language models with preference optimization.")
    url = _url(tmp_path)
    engine = connect(url)
    upgrade(engine, FIRST_REVISION)
    with engine.begin() as connection:
        connection.execute(text(FIRST_RELEASE_ROWS[0]))
        connection.execute(text(
            "INSERT INTO paper VALUES ('p3', 'iclr-2026', 0, :t, :t, '', :t, '', '', '', '', "
            "'', 'stale-topic', '[]', '', 'a.txt', 3, '2026-01-01 00:00:00+00')"), {"t": abstract})
    upgrade(engine)
    with engine.connect() as connection:
        topic, scores = connection.execute(
            text("SELECT topic, topic_scores FROM paper WHERE id = 'p3'")).one()
    expected = TopicScorer().assign(abstract, abstract)
    assert topic == expected[0][0] != "stale-topic"
    assert [tuple(pair) for pair in json.loads(scores)] == expected
    engine.dispose()


def _first_release_catalog(tmp_path: Path, change: str, **values: str) -> Engine:
    """A catalog of the first release's rows, `change` made to them (SQL with `values`),
    upgraded to head."""
    engine = connect(_url(tmp_path))
    upgrade(engine, FIRST_REVISION)
    with engine.begin() as connection:
        for statement in FIRST_RELEASE_ROWS:
            connection.execute(text(statement))
        connection.execute(text(change), values)
    upgrade(engine)
    return engine


def test_titles_with_math_get_plain_headlines_on_upgrade(tmp_path: Path):
    engine = _first_release_catalog(
        tmp_path, "UPDATE paper SET title = :t, headline = :t WHERE id = 'p2'",
        t=r"Gradient $\ell_1$ Regularization for  Quantization")
    with engine.connect() as connection:
        headlines = dict(connection.execute(text("SELECT id, headline FROM paper")).all())
    assert headlines == {"p1": "We study quokkas.",
                         "p2": "Gradient ℓ1 Regularization for Quantization"}
    engine.dispose()


def test_abstracts_with_tex_font_switches_are_shown_again_on_upgrade(tmp_path: Path):
    engine = _first_release_catalog(  # as the normalization before revision 0008 stored it
        tmp_path, "UPDATE paper SET abstract = :a, html = :h, plain = :p, headline = :p "
        "WHERE id = 'p2'", a=r"Wombats dig {\it deep burrows} at 100\% speed.",
        h="Wombats dig {it deep burrows} at 100% speed.",
        p="Wombats dig {it deep burrows} at 100% speed.")
    with engine.connect() as connection:
        rows = {pid: (html, plain, headline) for pid, html, plain, headline in connection.execute(
            text("SELECT id, html, plain, headline FROM paper"))}
    assert rows["p2"] == ("Wombats dig <em>deep burrows</em> at 100% speed.",
                          "Wombats dig deep burrows at 100% speed.",
                          "Wombats dig deep burrows at 100% speed.")
    assert rows["p1"][0] == "<p>We study quokkas.</p>"  # no switch: as stored
    engine.dispose()


def _names(engine: Engine) -> set[str]:
    """The names of every table's columns, indexes and constraints."""
    inspector = inspect(engine)
    names: set[str] = set()
    for table in inspector.get_table_names():
        names |= {column["name"] for column in inspector.get_columns(table)}
        names |= {index["name"] for index in inspector.get_indexes(table)}
        names |= {key["name"] for key in inspector.get_foreign_keys(table) if key["name"]}
        names.add(inspector.get_pk_constraint(table)["name"] or "")
    return names


def test_a_catalog_of_the_previous_release_keeps_its_papers_under_edition_names(
        tmp_path: Path):
    url = _url(tmp_path)
    engine = connect(url)
    upgrade(engine)
    people = tmp_path / "people.jsonl"  # a paper with institutions and countries, as origins
    people.write_text(json.dumps({
        "venue": "CoRL", "year": 2025, "abstract": "We train legged quokkas.",
        "authors": ["Ada Lovelace"], "institutions": ["ETH Zurich"],
        "countries": ["Switzerland"]}) + "\n")
    with Session(engine) as session:
        ingest_paths(session, [SEEDS, people], ON_INGEST)
    with engine.begin() as connection:  # back to revision 0008, which named them "venue"
        command.downgrade(_config(connection), "0008")
    before = _rows(url, tables=(*TABLES, "paperorigin"))
    assert {"venue_slug", "ix_paper_venue_ordinal", "ix_paperorigin_kind_venue"} <= _names(engine)

    assert upgrade(engine) == ("0008", head_revision())
    assert _rows(url, tables=(*TABLES, "paperorigin")) == before
    assert len(before["paper"]) > 90 and len(before["paperorigin"]) == 2
    assert not [name for name in _names(engine) if "venue" in name]
    engine.dispose()


def test_the_head_a_server_checks_without_alembic_is_the_newest_migration():
    assert head_revision() == HEAD_REVISION
