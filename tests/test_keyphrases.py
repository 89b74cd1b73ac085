"""Keyphrase chips read as phrases a researcher would tag a paper with."""

from __future__ import annotations

from app.keyphrases import KeyphraseExtractor, candidate_phrases

ABSTRACT = (
    "To better understand catastrophic forgetting, we study low-rank adaptation (LoRA) of "
    "large language models (LLMs). Obtaining exact expressions for the forgetting of LLMs, "
    "cf. prior work, we show that LoRA adapters forget less on labeled data. CF appears once. "
    "Our 3DGS renderer beats 3DGS baselines; the framework's diffusion models are compared."
)


def test_candidates_are_noun_phrases_without_verb_fragments_or_stubs():
    found = candidate_phrases(ABSTRACT)
    assert {"catastrophic forgetting", "large language models", "low-rank adaptation",
            "exact expressions", "labeled data", "diffusion models"} <= set(found)
    assert not {word for phrase in found for word in phrase.split()} & {
        "understand", "obtaining", "better", "cf"}
    assert "better understand catastrophic" not in found
    assert "obtaining exact expressions" not in found
    assert "models" not in found and "data" not in found  # generic nouns only inside phrases
    assert all(len(phrase) > 2 for phrase in found)


def test_acronyms_keep_their_case_where_defined_or_repeated():
    found = candidate_phrases(ABSTRACT)
    assert found["LoRA"] == 2 and found["LLM"] == 2
    assert "CF" not in found and "cf" not in found  # used once, never defined
    assert "3DGS" in found  # a leading digit stays part of the word
    assert "framework's" not in found and "framework" not in found


def test_inflections_are_one_candidate_in_the_form_written_most():
    found = candidate_phrases("Graph neural networks are compared with a graph neural network. "
                              "Graph neural networks win.")
    assert found["graph neural networks"] == 3 and "graph neural network" not in found


def test_a_phrase_of_the_title_outranks_one_of_the_abstract_alone():
    extract = KeyphraseExtractor({}, 1000).extract
    text = "Spectral wavelets filter signals. Sparse kernels compress signals."
    assert extract(text, limit=1, title="Sparse kernels for graphs") == ["sparse kernels"]
    assert extract(text, limit=1, title="Spectral wavelets on graphs") == ["spectral wavelets"]


def test_the_parts_of_a_link_are_no_candidates():
    found = candidate_phrases("Code for sparse kernels is at https://github.com/lab/sparse-kernels "
                              "and www.lab.org/kernels.")
    assert set(found) == {"sparse kernels", "kernels"}
