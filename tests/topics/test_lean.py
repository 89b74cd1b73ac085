import gzip
import json
from pathlib import Path

import pytest

from app.search.words.analysis import analyze
from app.topics import OTHER, TopicScorer, load_taxonomy
from app.topics.fit import confident_papers
from app.topics.lean import topic_lean
from app.topics.softmax import features

OBVIOUS = {
    "probabilistic-methods": ("Scalable variational inference for Gaussian process regression",
                              "We derive a variational posterior for sparse Gaussian processes "
                              "with inducing points and compare it with MCMC on regression "
                              "benchmarks, reporting calibrated predictive uncertainty."),
    "reinforcement-learning": ("Exploration bonuses for deep Q-learning",
                               "An agent explores its environment with a count-based bonus added "
                               "to the reward; the policy reaches higher return on Atari games."),
}
RL_TEXT = ("We study reinforcement learning: an agent learns a policy from reward with policy "
           "gradient and a value function, and exploration in a Markov decision process.")


def test_the_lean_predicts_the_taxonomys_topics():
    lean = topic_lean()
    assert lean is not None
    assert lean.topics == [t.slug for t in load_taxonomy().topics if t.slug != OTHER]


@pytest.mark.parametrize("topic", sorted(OBVIOUS))
def test_an_obvious_abstract_leans_to_its_topic(topic: str):
    lean = topic_lean()
    headline, text = OBVIOUS[topic]
    p = lean.probabilities(features(analyze(headline), analyze(text)))
    assert lean.topics[int(p.argmax())] == topic and p.max() > lean.threshold


def test_a_paper_of_a_leaning_series_takes_only_its_familys_lean():
    scorer, unleaned = TopicScorer(), TopicScorer(lean=False)
    headline, text = OBVIOUS["probabilistic-methods"]
    assert scorer.scores(headline, text, "cvpr") == unleaned.scores(headline, text, "cvpr")
    assert scorer.scores(headline, text) != unleaned.scores(headline, text)


def test_the_lean_never_trains_on_the_evaluation_venues(tmp_path: Path):
    rows = [{"venue": venue, "title": "Policy gradient", "abstract": f"{RL_TEXT} ({venue})"}
            for venue in ("NeurIPS", "AAAI", "IJCAI")]
    with gzip.open(tmp_path / "papers.jsonl.gz", "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    topics, papers = confident_papers(tmp_path)
    assert [topics[topic] for topic, _ in papers] == ["reinforcement-learning"]
    assert "neurips" in papers[0][1] and "aaai" not in papers[0][1]
