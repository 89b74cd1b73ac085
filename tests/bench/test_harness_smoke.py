"""The benchmark harness keeps working: a run on 500 abstracts (no timing assertions)."""

import pytest

from bench.harness import CORPUS
from bench.run import print_report, run


@pytest.mark.skipif(not (CORPUS / "make_lists.py").exists(), reason="../shared/corpus is absent")
def test_harness_runs_on_500_abstracts(capsys):
    report = run("smoke", page_seconds=0.3)
    ingest = report["ingest"]
    assert ingest["papers"] == 500 and ingest["stored"] > 450
    assert ingest["reingest_index"] == "no work"
    search = report["search_in_process_ms"]
    assert search["whoosh"]["all"]["n"] == search["fts5"]["all"]["n"] > 100
    http = report["http"]
    assert set(http["pages"]) >= {"hello (baseline)", "/", "/papers/{id}"}
    assert http["paper_page_first_ms"]["n"] >= 2
    assert report["ingest_jsonl"]["stored"] == ingest["stored"]
    assert all(page["errors"] == 0 for page in http["pages"].values())
    assert http["pages"]["hello (baseline)"]["requests"] > 0
    assert set(http["browsing"]) >= {"/", "/venues/{series}", "/topics", "/trends?q=..."}
    assert all(page["kb"] > 1 for page in http["browsing"].values())
    readers = report["readers"]  # on the JSON Lines catalog: people pages are read too
    assert readers["errors"] == 0 and readers["people_urls"] > 0
    print_report(report)
    assert "papers/s" in capsys.readouterr().out
