"""The judged relevance benchmark must not fall below what the engine reached."""

from pathlib import Path

from bench.relevance.evaluate import build_seed_catalog, evaluate, summary

# Measured when the benchmark was written (see docs/search.md); raise them when search improves.
FLOORS = {"precision_at_5": 0.93, "recall_at_10": 0.91, "ndcg_at_10": 0.95}


def test_relevance_does_not_fall(tmp_path: Path):
    scores = evaluate(build_seed_catalog(tmp_path))
    measured = summary(scores)
    assert measured["queries"] >= 30
    for metric, floor in FLOORS.items():
        assert measured[metric] >= floor, (metric, measured[metric])
