"""bench/questions.py and bench/descriptions.py keep working: their scoring on a tiny catalog
of made-up papers, beside FTS5 built from it (the L runs are by hand)."""

import pytest

from app.search.searcher import PaperSearch
from bench.descriptions import (
    figures,
    in_catalog,
    run_descriptions,
    sample_described,
    summary_table,
)
from bench.fts5 import build_fts5
from bench.plain_words import (
    DESCRIPTIONS,
    LATER_DESCRIPTIONS,
    THIRD_DESCRIPTIONS,
    load_descriptions,
)
from bench.questions import (
    CATALOG,
    FTS5,
    STOP_40,
    CatalogTexts,
    Question,
    concept_pattern,
    fts5_match,
    load_questions,
    per_question_table,
    run_questions,
    top_titles,
)
from bench.questions import summary_table as questions_table
from bench.relevance.keywords import build_catalog

ROWS = [
    {"venue": "ICLR", "year": 2018, "title": f"Faster sampling for diffusion models {i}",
     "abstract": f"We make diffusion models sample in fewer steps, variant {i}, with a "
                 "distilled sampler and an ODE solver.",
     "tldr": "Diffusion models sample faster with a distilled sampler."}
    for i in range(6)
] + [
    {"venue": "ICLR", "year": 2018, "title": "Overcoming catastrophic forgetting in networks",
     "abstract": "Elastic weight consolidation keeps old tasks while new tasks are learned.",
     "tldr": "Elastic weight consolidation protects weights that old tasks need."},
    {"venue": "CoRL", "year": 2022, "title": "Grasping transparent objects with depth",
     "abstract": "A robot grasps glass cups from completed depth images of transparent "
                 "objects.", "tldr": "Robots grasp glass cups using completed depth images."},
    {"venue": "ICLR", "year": 2017, "title": "Batch normalization smooths the loss landscape",
     "abstract": "Why BatchNorm helps training: the loss landscape becomes smoother.",
     "tldr": ""},
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("questions")
    settings = build_catalog(ROWS, root, "tiny.jsonl")
    fts = build_fts5(settings, root / "fts5.db")
    texts = CatalogTexts(settings.database_path)
    search = PaperSearch(settings.index_path, result_cache=0)
    yield settings, fts, texts, search
    search.close()
    texts.close()
    fts.close()


def test_concept_forms_match_inflections_and_hyphens():
    pattern = concept_pattern(["over parameterization", "batchnorm", "prune"])
    for text in ("Over-parameterisation of nets", "overparameterization", "BatchNorms", "pruning",
                 "pruned filters"):
        assert pattern.search(text), text
    for text in ("parameterization", "spruce", "batch"):
        assert not pattern.search(text), text
    question = Question("what is the best way to avoid catastrophic forgetting",
                        ("catastrophic forgetting",))
    assert question.of_concept("forgetting") and not question.of_concept("avoid")
    joined = Question("why do overparameterized networks generalize", ("over parameterized",))
    assert joined.of_concept("overparameterized") and joined.of_concept("over")
    assert fts5_match(question.question) == '"best" OR "way" OR "avoid" OR "catastrophic" ' \
                                            'OR "forgetting"'
    assert len(STOP_40) == 40 and fts5_match("what is it") == ""


def test_the_question_set():
    questions = load_questions()
    assert len(questions) >= 30
    assert all(q.concept and q.pattern.search(" ".join(q.concept)) for q in questions)
    starts = {q.question.split()[0].lower() for q in questions}
    assert {"how", "what", "why", "which", "when", "is", "can", "does"} <= starts


def test_the_plain_word_sets():
    """The three sets of plain-word descriptions load, each idea's terms a regex, and no
    description or idea is in two sets."""
    sets = [load_descriptions(path)
            for path in (DESCRIPTIONS, LATER_DESCRIPTIONS, THIRD_DESCRIPTIONS)]
    for described in sets:
        assert len(described) >= 30
        assert all(d.description and d.idea and d.pattern.pattern for d in described)
    descriptions = [d.description for described in sets for d in described]
    assert len(set(descriptions)) == len(descriptions)
    third = {d.idea for d in sets[2]}
    assert not third & {d.idea for described in sets[:2] for d in described}


def test_questions_scored_for_catalog_and_fts5(tiny):
    _, fts, texts, search = tiny
    questions = [Question("how to make diffusion models sample faster", ("diffusion",)),
                 Question("any work on robots grasping transparent objects", ("grasp",)),
                 Question("what is zyzzyva", ("zyzzyva",))]
    results = run_questions(search, fts, texts, questions)
    catalog, fts5 = results[CATALOG], results[FTS5]
    assert fts5[0].all_on and fts5[0].precision == 1.0  # six diffusion papers
    assert fts5[1].on[:1] == [True] and not fts5[1].all_on  # one grasping paper
    assert fts5[2].ids == [] and fts5[2].precision == 0
    for scored in catalog:
        judged = texts.judged(scored.ids)
        assert scored.on == [bool(scored.question.pattern.search(judged[i])) for i in scored.ids]
        assert all(not scored.question.of_concept(w) for w in scored.missing)
    assert catalog[0].on[:1] == [True] and catalog[2].total == 0
    table = questions_table(results)
    assert CATALOG in table and FTS5 in table
    assert "what is zyzzyva" in per_question_table(results)
    assert "✓" in top_titles(catalog[0], texts)


def test_descriptions_find_the_described_paper(tiny):
    settings, fts, texts, search = tiny
    rows = [r for r in ROWS if r["tldr"]] + [
        {"venue": "ICLR", "year": 2018, "title": "Not in the catalog", "tldr": "Absent."}]
    items = sample_described(in_catalog(settings.database_path, rows), 300)
    assert len(items) == 8  # every row with a TL;DR that the catalog holds
    diffusion = [i for i in items if i.title.startswith("Faster")]
    assert all(len(i.same_title) == 1 for i in items) and len(diffusion) == 6
    outcomes = run_descriptions(search, fts, texts, items)
    by_title = {o.item.title: o for o in outcomes}
    ewc = by_title["Overcoming catastrophic forgetting in networks"]
    assert ewc.fts5 == 1 and ewc.catalog == 1 and not ewc.pasted
    assert all(o.fts5 is not None for o in outcomes)  # OR of words finds every one
    f = figures(outcomes)
    assert f["fts5"]["recall"] == 1.0 and f["fts5"]["empty"] == 0
    assert 0 < f["catalog"]["mrr"] <= 1
    assert "catalog ÷ FTS5" in summary_table(outcomes)

