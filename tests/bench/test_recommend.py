"""bench/recommend.py's measure from single papers keeps working: a paper found from a pasted
abstract is relevant when it shares an author keyword with the pasted paper, on a tiny catalog
of made-up ICLR papers built as the bench builds its own (keywords left out), beside FTS5."""

import pytest

from bench.recommend import (
    TOP,
    Judging,
    keywords_by_title,
    pasted_sample,
    shared_methods,
    shared_precision,
)
from bench.relevance.keywords import build_catalog
from bench.vectors import with_vectors

FILLER = ("The method is evaluated on several benchmarks and compared with strong baselines, "
          "and the results show that it improves over previous work in accuracy and in the "
          "time it takes to train, while it needs fewer labelled examples than before.")
ROWS = [
    {"venue": "ICLR", "year": 2018, "title": f"Faster sampling for diffusion models {i}",
     "abstract": f"We make diffusion models sample in fewer steps, variant {i}, with a "
                 f"distilled sampler and an ODE solver for the diffusion process. {FILLER}",
     "keywords": ["Diffusion  Models", "sampling"] if i % 2 else ["diffusion models"]}
    for i in range(4)
] + [
    {"venue": "ICLR", "year": 2018, "title": f"Elastic weight consolidation, revisited {i}",
     "abstract": f"Elastic weight consolidation keeps old tasks while new tasks are learned, "
                 f"variant {i}, against catastrophic forgetting in continual learning. {FILLER}",
     "keywords": ["continual learning"]}
    for i in range(4)
] + [
    {"venue": "ICLR", "year": 2017, "title": "Batch normalization smooths the loss landscape",
     "abstract": "Why BatchNorm helps training: the loss landscape becomes smoother.",
     "keywords": ["batch normalization"]},
]


@pytest.fixture(scope="module")
def judging(tmp_path_factory):
    root = tmp_path_factory.mktemp("recommend")
    # With the papers' sentence vectors, as the bench gives its catalog (the encoder's rows)
    opened = Judging.open(with_vectors(build_catalog(ROWS, root, "tiny.jsonl"), None),
                          root / "fts5.db")
    yield opened
    opened.close()


def test_keywords_are_lower_cased_their_spaces_normalised_and_their_plurals_merged():
    keywords = keywords_by_title(ROWS)
    assert keywords["Faster sampling for diffusion models 1"] == {"diffusion model", "sampling"}
    assert keywords["Faster sampling for diffusion models 0"] == {"diffusion model"}


def test_only_abstracts_read_as_pasted_texts_are_sampled(judging):
    opened = judging
    sample = pasted_sample(opened, keywords_by_title(ROWS), 100)
    titles = {opened.title_of[pid] for pid in sample}
    assert len(sample) == 8
    assert "Batch normalization smooths the loss landscape" not in titles  # 11 words


def test_a_paper_found_counts_when_it_shares_any_keyword(judging):
    opened = judging
    keywords = keywords_by_title(ROWS)
    id_of = opened.id_of
    pasted = id_of["Faster sampling for diffusion models 1"]
    same = [id_of[f"Faster sampling for diffusion models {i}"] for i in (0, 2, 3)]
    other = id_of["Elastic weight consolidation, revisited 0"]

    def keywords_of(pid: str) -> set[str]:
        return keywords[opened.title_of[pid]]

    # The paper itself is left out, the next ten counted: three share "diffusion models".
    p, _ = shared_precision(lambda pid: [pid, *same, other], [pasted], keywords_of)
    assert p == pytest.approx(3 / TOP)


def test_every_finder_finds_the_papers_of_the_pasted_papers_theme(judging):
    opened = judging
    keywords = keywords_by_title(ROWS)
    pasted = opened.id_of["Elastic weight consolidation, revisited 2"]
    for name, finder in shared_methods(opened).items():
        found = [pid for pid in finder(pasted) if pid != pasted][:3]
        assert [keywords[opened.title_of[pid]] for pid in found] == [
            {"continual learning"}] * 3, name
