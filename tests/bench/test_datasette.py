"""The datasette comparison keeps working: the whole run on 48 made-up papers (no timing
assertions; the full run is by hand: python -m bench.datasette)."""

import gzip
import json
import shutil
import sqlite3
from itertools import product

import pytest

from bench.datasette import CATALOG, DATASETTE, print_report, run
from bench.harness import BIN
from bench.meaning_mix import fts5_answer, with_descriptions
from tests.postgres import sqlite_run

TOPICS = ["graph neural networks", "diffusion models", "policy gradients", "sparse attention",
          "contrastive learning", "bayesian optimization"]
SETTINGS = ["for molecules", "under noise", "with few labels", "at scale"]


def _tiny_corpus(path):
    """48 papers of two venues and two years, titles drawn from a few topics."""
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for number, (topic, setting, venue) in enumerate(
                product(TOPICS, SETTINGS, ["ICML", "NeurIPS"])):
            title = f"{topic.capitalize()} {setting}"
            out.write(json.dumps({
                "venue": venue, "year": 2020 + number % 2, "title": title,
                "abstract": f"We study {topic} {setting} and show that our method, number "
                            f"{number}, improves on earlier work.",
                "authors": [f"Author {number}"]}) + "\n")


@pytest.mark.skipif(not (shutil.which("datasette", path=str(BIN))
                         and shutil.which("sqlite-utils", path=str(BIN))),
                    reason="datasette and sqlite-utils are not installed: "
                    "pip install -e '.[bench]'")
@sqlite_run  # the catalog side is the default, SQLite
def test_datasette_comparison_prints_its_ratios(tmp_path, capsys):
    corpus = tmp_path / "tiny.jsonl.gz"
    _tiny_corpus(corpus)
    report = run([corpus], tmp_path, rounds=2, seconds=1, searches=10)
    assert report["records"] == 48 and report["build"]["catalog"]["stored"] == 48
    for name in (DATASETTE, CATALOG):
        side = report["pages"]["sides"][name]
        assert side["requests"] > 0 and side["errors"] == 0 and len(side["rounds"]) == 2
        assert side["cpu_ms_per_page"] > 0
    assert len(report["pages"]["workers_mb"]) == 2
    searches = report["in_process_ms"]
    assert searches["catalog"]["wall"]["n"] == searches["fts5"]["cpu"]["n"] == 10
    print_report(report)
    out = capsys.readouterr().out
    for ratio in ("catalog ingest", "ratio catalog / datasette: req/s", "CPU per page",
                  "one worker's RSS",
                  "first-time search in-process"):
        assert ratio in out


def test_with_meaning_one_query_in_ten_is_a_description_and_fts5_ors_its_words(tmp_path):
    phrases = [f"phrase {number}" for number in range(25)]
    mixed = with_descriptions(phrases, ["first tldr", "second tldr", "third tldr"])
    assert [at for at, (a, b) in enumerate(zip(phrases, mixed, strict=True)) if a != b] == [9, 19]
    assert mixed[9] == "first tldr" and mixed[19] == "second tldr"
    fts = sqlite3.connect(tmp_path / "fts.db")
    fts.execute("CREATE VIRTUAL TABLE papers USING fts5(id, venue, year, title, headline, plain)")
    fts.execute("INSERT INTO papers VALUES ('a', 'ICML', 2020, 't', 'h', 'sparse attention')")
    asked: list[str] = []
    fts.set_trace_callback(asked.append)
    fts5_answer(fts, "we make attention sparse at scale", {"we make attention sparse at scale"})
    assert any('"attention" OR "sparse"' in line for line in asked)  # ANDed: nothing found
