"""Input files as researchers bring them: gzipped, with line separators inside JSON strings
and CSV fields, with a status per paper, and directories that hold nothing to read."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import bibtexparser
from fastapi.testclient import TestClient
from sqlmodel import select
from typer.testing import CliRunner

from app.cli import cli
from app.ingest.tabular import parse_csv_bytes, parse_jsonl_bytes
from app.main import create_app
from app.models import Paper
from tests.conftest import Catalog, write_list

SEPARATORS = "\u2028 \u2029 \x85 \x0c \x1c \x1d \x1e"


def _row(i: int, **extra: object) -> dict[str, object]:
    return {"venue": "SepConf", "year": 2024, "title": f"Paper {i}",
            "abstract": f"Abstract {i} about sparse attention.", **extra}


def test_jsonl_records_end_at_line_feeds_only(tmp_path: Path):
    rows = [_row(1), _row(2, abstract=f"Before{SEPARATORS}after, one record."), _row(3)]
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    parsed = parse_jsonl_bytes(tmp_path / "a.jsonl", data)
    assert parsed.row_errors == []
    assert [a.line for a in parsed.abstracts] == [1, 2, 3]
    assert parsed.abstracts[1].text.startswith("Before") and "after" in parsed.abstracts[1].text


def test_csv_fields_keep_line_separators_inside_quotes(tmp_path: Path):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["venue", "year", "abstract", "status"])
    writer.writeheader()
    writer.writerow({"venue": "SepConf", "year": 2024, "status": "Oral",
                     "abstract": f"Quoted{SEPARATORS}still one field.\nAnd a real newline."})
    writer.writerow({"venue": "SepConf", "year": 2024, "abstract": "Second row."})
    parsed = parse_csv_bytes(tmp_path / "a.csv", buffer.getvalue().encode())
    assert parsed.row_errors == [] and len(parsed.abstracts) == 2
    assert parsed.abstracts[0].status == "Oral" and parsed.abstracts[1].line == 4


def test_gzipped_inputs_of_every_format_load(fresh: Catalog, tmp_path: Path):
    jsonl = tmp_path / "a.jsonl.gz"
    jsonl.write_bytes(gzip.compress(json.dumps(_row(1, status="Spotlight")).encode() + b"\n"))
    listing = write_list(tmp_path / "b.txt", "ZipConf 2023 Papers", "A zipped list abstract.")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(listing.read_bytes()))
    listing.unlink()
    (tmp_path / "c.csv.gz").write_bytes(gzip.compress(
        b"venue,year,abstract\nZipConf,2023,A zipped CSV abstract.\n"))
    report = fresh.ingest(tmp_path)
    assert report.errors == [] and report.added == 3
    with fresh.session() as session:
        status = session.exec(select(Paper.status).where(Paper.edition_slug == "sepconf-2024"))
        assert list(status) == ["Spotlight"]
    again = fresh.ingest(tmp_path)
    assert again.files_unchanged == 3 and again.added == 0


def test_a_corrupt_gzip_is_a_clear_error_and_loads_nothing(fresh: Catalog, tmp_path: Path):
    good = gzip.compress(json.dumps(_row(1)).encode() + b"\n")
    (tmp_path / "broken.jsonl.gz").write_bytes(good[: len(good) // 2])
    (tmp_path / "notgzip.jsonl.gz").write_bytes(b"plain text, not gzip")
    report = fresh.ingest(tmp_path / "broken.jsonl.gz", tmp_path / "notgzip.jsonl.gz")
    assert report.added == 0
    messages = sorted(str(error) for error in report.errors)
    assert messages[0].startswith(f"{tmp_path / 'broken.jsonl.gz'}: not a readable gzip file")
    assert messages[1].startswith(f"{tmp_path / 'notgzip.jsonl.gz'}: not a readable gzip file")


def test_a_directory_without_input_files_is_reported_and_fails_the_command(
        tmp_path: Path, catalog_env: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.md").write_text("nothing to load")
    result = CliRunner().invoke(cli, ["ingest", str(empty)])
    assert result.exit_code == 1
    assert f"{empty}: no .txt, .jsonl or .csv files" in result.output


def test_status_is_shown_searched_and_exported(fresh: Catalog, tmp_path: Path):
    path = tmp_path / "status.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in [
        _row(1, status="Oral"), _row(2, status="Poster"), _row(3)]))
    fresh.ingest(path)
    with TestClient(create_app(fresh.settings)) as client:
        oral = client.get("/api/search", params={"q": "attention status:oral"}).json()
        assert [hit["status"] for hit in oral["hits"]] == ["Oral"]
        facet = client.get("/api/search", params={"q": "attention"}).json()["facets"]["status"]
        assert {f["value"]: f["count"] for f in facet} == {"oral": 1, "poster": 1}
        page = client.get(f"/papers/{oral['hits'][0]['id']}").text
        assert '<span class="status-badge">Oral</span>' in page
        rows = list(csv.DictReader(io.StringIO(client.get("/venues/sepconf-2024.csv").text)))
        assert sorted(row["status"] for row in rows) == ["", "Oral", "Poster"]
        records = client.get("/venues/sepconf-2024.json").json()
        assert sorted((r["status"] for r in records), key=str) == [None, "Oral", "Poster"]
        bib = bibtexparser.parse_string(client.get("/venues/sepconf-2024.bib").text)
        assert sorted(e.fields_dict["note"].value for e in bib.entries
                      if "note" in e.fields_dict) == ["Oral", "Poster"]
