"""Words mean what the researcher typed: inflections fold, derivations stay apart, acronyms
expand only when typed as acronyms and never through a stem, every member of a synonym group
finds the same papers, and completions are phrases and names researchers would type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.search.words.acronyms import AcronymCounts
from app.search.words.analysis import analyze
from app.search.words.completions import CompletionCounts, Completions
from app.search.words.definitions import definitions
from tests.conftest import served_list


@pytest.mark.parametrize("forms", [
    "network networks", "policy policies", "query queries", "learn learns learned learning",
    "transformer transformers", "embedding embeddings embed embedded", "model models modeling",
    "behaviour behavior behaviours", "optimise optimize optimized optimising",
    "finetune finetuned finetuning finetunes", "LLM LLMs llms", "analysis analyses",
])
def test_inflections_fold_together(forms):
    assert len({analyze(word) for word in forms.split()}) == 1, forms


@pytest.mark.parametrize(("one", "other"), [
    ("transformer", "transform"), ("generative", "general"), ("generative", "generation"),
    ("general", "generation"), ("positive", "position"), ("relational", "relation"),
    ("relation", "related"), ("computer", "computation"), ("optimizer", "optimization"),
    ("AIS", "ai"),
])
def test_derivations_and_acronyms_stay_apart(one, other):
    assert analyze(one) != analyze(other)


ABSTRACTS = [
    "Transformers replace recurrence with attention.",
    "A transformer block with sparse attention.",
    "We transform images into sketches.",
    "Generative models of molecules.",
    "General bounds for kernels.",
    "Maximum a posteriori (MAP) estimation of sparse codes.",
    "Maximum a posteriori (MAP) inference in graphical models.",
    "MAP estimates of the posterior mode.",
    "Feature maps of convolutional networks are pruned.",
    "We map sentences to graphs.",
    "Annealed importance sampling (AIS) estimates partition functions.",
    "Annealed importance sampling (AIS) for marginal likelihoods.",
    "Explainable AI for clinicians.",
    "Named entity recognition (NER) with gazetteers.",
    "Named entity recognition (NER) in tweets.",
    "NER for low-resource languages.",
    "Large language models (LLMs) write proofs.",
    "A large language model plans.",
    "LLM agents browse the web.",
    "Large models of language are studied.",
    "Diffusion models generate images at https://github.com/zzhang05/diffusion-demo now.",
    "Latent diffusion models compress images; contact qwertyfoo@example.org.",
    "Diffusion maps embed manifolds.",
    "Model predictive control (MPC) for quadrotors.",
    "Model predictive control (MPC) with learned dynamics.",
    "Model-predictive controllers (MPC) for legged robots.",
    "Model-predictive controllers (MPC) run onboard.",
    "Model-predictive controllers stabilize the arm.",
    "Genetic programming (GP) evolves programs.",
    "Genetic programming (GP) for symbolic regression.",
    "Gaussian process (GP) priors over functions.",
    "Gaussian process (GP) regression at scale.",
    "Gaussian processes model smooth functions.",
    "Our llm agents plan trips.",
]


@pytest.fixture(scope="module")
def words(tmp_path_factory: pytest.TempPathFactory):
    with served_list(tmp_path_factory, "WORDS 2025 Papers", *ABSTRACTS) as (_, client):
        yield client


def found(client: TestClient, q: str) -> set[str]:
    body = client.get("/api/search", params={"q": q, "venue": "words-2025"}).json()
    assert body["total"] == len([hit for hit in body["hits"] if not hit["partial"]])
    return {hit["abstract"] for hit in body["hits"] if not hit["partial"]}


def expanded(client: TestClient, q: str) -> list[dict]:
    return client.get("/api/search", params={"q": q}).json()["expanded"]


def test_a_word_finds_its_inflections_not_its_derivations(words: TestClient):
    assert found(words, "transformer") == {ABSTRACTS[0], ABSTRACTS[1]}
    assert found(words, "transform") == {ABSTRACTS[2]}
    assert found(words, "generative") == {ABSTRACTS[3]}


def test_a_lowercase_word_is_the_word_and_an_acronym_is_the_acronym(words: TestClient):
    assert expanded(words, "map") == [] and expanded(words, "mapping") == []
    assert {ABSTRACTS[8], ABSTRACTS[9]} <= found(words, "map")
    acronym = found(words, "MAP")
    assert acronym == {ABSTRACTS[5], ABSTRACTS[6], ABSTRACTS[7]}  # not feature maps
    assert expanded(words, "MAP") == [{"word": "MAP", "also_matched": ["maximum a posteriori"]}]
    assert found(words, '"maximum a posteriori"') == acronym


def test_a_lowercase_acronym_is_the_word_in_any_case(words: TestClient):
    assert expanded(words, "llm") == [] and expanded(words, "sim") == []
    assert found(words, "llm") == {ABSTRACTS[16], ABSTRACTS[18], ABSTRACTS[33]}
    assert ABSTRACTS[33] in found(words, "LLM")  # the acronym finds it written lowercase


def test_an_acronym_never_matches_through_a_stem(words: TestClient):
    assert expanded(words, "ai") == []
    assert found(words, "ai") == {ABSTRACTS[12]}
    assert found(words, "AIS") == {ABSTRACTS[10], ABSTRACTS[11]}


@pytest.mark.parametrize("group", [
    ["LLM", "LLMs", "large language model", '"large language models"', "large language models"],
    ["NER", '"named entity recognition"', "named entity recognition"],
])
def test_every_member_of_a_group_finds_the_same_papers(words: TestClient, group):
    results = [found(words, member) for member in group]
    assert results[0] and all(result == results[0] for result in results), group
    assert ABSTRACTS[19] not in results[0]  # "large models of language" is no phrase match


def test_variants_of_a_meaning_find_each_other_and_other_meanings_stay_apart(
        words: TestClient):
    mpc = found(words, "MPC")
    assert len(mpc) == 5
    assert found(words, '"model predictive control"') == mpc
    assert found(words, "model-predictive controllers") == mpc
    assert len(found(words, "GP")) == 5
    # A long form finds its acronym, which the other meaning writes too, but not the other
    # meaning's long form.
    assert ABSTRACTS[32] not in found(words, "genetic programming")


def test_a_rare_meaning_of_an_acronym_is_not_learned():
    counts = AcronymCounts()
    counts.papers.update({("QA", "question answer"): 40, ("QA", "quality assessment"): 3})
    counts.written.update({("QA", "question answer"): "question answering",
                           ("QA", "quality assessment"): "quality assessment"})
    assert [m.long_form for m in counts.meanings()] == ["question answering"]


def test_learned_meanings_are_cleaned_of_markup():
    assert definitions("the simultaneous location and mapping} (SLAM) problem") == {
        ("SLAM", "simultaneous location and mapping")}
    assert definitions("with *low-rank adaptation* (LoRA) we") == {
        ("LoRA", "low-rank adaptation")}


def suggested(client: TestClient, q: str) -> list[str]:
    return client.get("/api/suggest", params={"q": q}).json()["suggestions"]


def test_completions_offer_phrases_and_never_parts_of_addresses(words: TestClient):
    assert suggested(words, "diffusion m")[0] == "diffusion models"
    assert "latent diffusion models" in suggested(words, "latent diff")
    for typed in ("zz", "zzh", "qwer", "diffusion-d"):
        assert suggested(words, typed) == [], typed


def test_completions_offer_series_and_authors(tmp_path: Path):
    from tests.conftest import make_catalog

    catalog = make_catalog(tmp_path)
    rows = [{"venue": "NeurIPS", "year": 2024, "title": f"Paper {i}", "abstract": text,
             "authors": authors}
            for i, (text, authors) in enumerate([
                ("Offline reinforcement learning.", ["Sergey Levine", "Aviral Kumar"]),
                ("Robot learning at scale.", ["Sergey Levine", "Chelsea Finn"]),
                ("Meta-learning for robots.", ["Chelsea Finn", "Sergey Ioffe"])])]
    source = tmp_path / "people.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    catalog.ingest(source)
    with TestClient(create_app(catalog.settings)) as client:
        assert "series:NeurIPS" in suggested(client, "neur")
        assert suggested(client, "author:serg") == ['author:"Sergey Levine"',
                                                     'author:"Sergey Ioffe"']
        assert suggested(client, "author:finn") == ['author:"Chelsea Finn"']
        assert suggested(client, "sergey") == ['author:"Sergey Levine"', 'author:"Sergey Ioffe"']
        chosen = client.get("/api/search", params={"q": 'author:"Sergey Levine"'}).json()
        assert chosen["total"] == 2
    catalog.close()


def test_a_phrase_that_nearly_always_goes_on_is_offered_whole(tmp_path: Path):
    counts = CompletionCounts()
    counts.phrases.update({"graph neural": 10, "graph neural networks": 7,
                           "graph neural network": 2, "graph networks": 3, "unique title": 1})
    counts.write(tmp_path)
    completions = Completions.read(tmp_path)
    assert completions.phrase("graph ne", 4) == ["graph neural networks", "graph networks"]
    assert completions.phrase("uniq", 4) == []  # one paper's phrase is not the field's


def test_the_index_is_open_before_the_first_request(words: TestClient):
    app = create_app(words.app.state.settings)
    assert app.state.search.opened() is None
    with TestClient(app):
        assert app.state.search.opened() is not None


def test_a_word_whose_matches_run_out_goes_on_with_its_family(words: TestClient):
    body = words.get("/api/search", params={"q": "transform", "venue": "words-2025"}).json()
    assert body["total"] == 1 and body["related_words"]
    assert "transformer" in body["related_words"]
    related = [hit["abstract"] for hit in body["hits"] if hit["partial"]]
    assert ABSTRACTS[0] in related and ABSTRACTS[2] not in related  # not counted twice
    page = words.get("/search", params={"q": "transform", "venue": "words-2025"}).text
    assert "Papers with words related to “transform”" in page
