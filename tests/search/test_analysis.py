import pytest
from whoosh.formats import Positions

from app.search.words.analysis import (
    MAX_STOPS,
    AnalyzedPositions,
    _stemming_chain,
    _word_chain,
    americanize,
    catalog_analyzer,
    word_analyzer,
    word_place,
)
from tests.conftest import SEEDS, parse_list_file

TRICKY = "The in-context weak-to-strong ℓ1 α-entmax naïve Q₈ behaviour optimise a the 8.8% e.g."


def tokens(analyzer, text, **options):
    return [(t.text, t.pos, t.startchar, t.endchar, t.stopped)
            for t in analyzer(text, positions=True, chars=True, **options)]


def places(found):
    """Tokens with their stored positions as the word places the filter chain gives."""
    return [(text, pos if stopped else word_place(pos), *rest)
            for text, pos, *rest, stopped in found]


@pytest.mark.parametrize(("fast", "reference"), [(catalog_analyzer, _stemming_chain),
                                                 (word_analyzer, _word_chain)])
@pytest.mark.parametrize("options", [{}, {"removestops": False}, {"start_pos": 7}])
def test_cached_analyzer_gives_exactly_the_filter_chains_tokens(fast, reference, options):
    texts = [TRICKY] + [a.text for path in sorted(SEEDS.glob("*.txt"))
                        for a in parse_list_file(path).abstracts]
    for text in texts:
        assert places(tokens(fast(), text, **options)) == places(
            [(*token[:-1], True) for token in tokens(reference(), text, **options)])


def test_analyzer_unifies_spellings_and_math():
    words = [t.text for t in catalog_analyzer()(TRICKY)]
    assert words[:6] == ["in", "context", "weak", "to", "strong", "l1"]
    assert "alpha" in words and "q8" in words and "behavior" in words


@pytest.mark.parametrize(("british", "american"), [
    ("generalisation", "generalization"), ("optimised", "optimized"), ("analyse", "analyze"),
    ("behaviour", "behavior"), ("modelling", "modeling"), ("supervised", "supervised"),
    ("pairwise", "pairwise"), ("noise", "noise"), ("precise", "precise"),
])
def test_americanize(british, american):
    assert americanize(british) == american


@pytest.mark.parametrize("analyzer", [catalog_analyzer, word_analyzer])
@pytest.mark.parametrize("boost", [1.0, 1.5])
def test_analyzed_positions_writes_the_postings_whoosh_would(analyzer, boost):
    texts = [TRICKY, "", "the the of", "A the graph graph of the graph"] + [
        a.text for path in sorted(SEEDS.glob("*.txt")) for a in parse_list_file(path).abstracts]
    fast, reference = AnalyzedPositions(field_boost=boost), Positions(field_boost=boost)
    for text in texts:
        assert sorted(fast.word_values(text, analyzer(), mode="index")) == sorted(
            reference.word_values(text, analyzer(), mode="index"))
        assert sorted(_placed(fast, fast.word_values(text, analyzer(), mode="index"))) == sorted(
            _placed(reference, reference.word_values(text, _chain_of(analyzer), mode="index"),
                    stored=False))


def _placed(format, values, stored=True):
    """Postings with their positions as word places (the filter chain's are already)."""
    return [(text, freq, weight, [word_place(p) if stored else p
                                  for p in format.decode_positions(value)])
            for text, freq, weight, value in values]


def test_a_stored_position_holds_the_stop_words_just_before_its_word():
    found = catalog_analyzer().positions("In the context of learning, a of the an at model")
    assert {term: [(word_place(p), p & MAX_STOPS) for p in at] for term, at in found.items()} \
        == {"in": [(0, 0)], "context": [(1, 1)], "learn": [(2, 1)], "model": [(3, MAX_STOPS)]}


def _chain_of(analyzer):
    return _stemming_chain() if analyzer is catalog_analyzer else _word_chain()


def test_spans_are_where_the_analyzer_puts_matching_tokens():
    texts = [TRICKY] + [a.text for path in sorted(SEEDS.glob("*.txt"))
                        for a in parse_list_file(path).abstracts]
    analyzer = catalog_analyzer()
    for terms in ({"learn", "model"}, {"in", "context"}, {"naiv", "l1"}, set()):
        for text in texts:
            expected = [(t.startchar, t.endchar) for t in analyzer(text, chars=True)
                        if t.text in terms]
            assert analyzer.spans(text, terms) == expected
    assert analyzer.spans("In-context learning", {"in", "context", "learn"}) == [
        (0, 2), (3, 10), (11, 19)]


def test_the_analyzer_is_safe_for_many_threads_while_its_cache_is_cleared(monkeypatch):
    import sys
    import threading

    from app.search.words import analysis

    monkeypatch.setattr(analysis, "_WORD_CACHE_LIMIT", 5)  # cleared again and again
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes, as under load
    analyzer = analysis.catalog_analyzer()
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for i in range(8000):  # distinct words: Whoosh's stem cache held 50,000
                word = f"w{seed}x{i}ing"
                assert analyzer.terms(f"{word} models") == (analyzer.normalize(word), "model")
                analyzer.spans(f"{word} x", {"model"})
        except BaseException as error:  # noqa: BLE001 - any failure in a thread is the finding
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_a_word_is_analyzed_right_when_its_cache_is_cleared_at_the_worst_moment(monkeypatch):
    """Deterministic form of the thread test above (issue 28, mutant 11, which the threads
    caught in 9 runs of 10): another thread clears the shared cache just after this one
    stored a word, so the value must be the one computed, never read back."""
    from app.search.words import analysis

    class ClearedAtOnce(type(analysis._caches["stem"])):  # type: ignore[misc]
        def __setitem__(self, key, value):  # type: ignore[no-untyped-def]
            super().__setitem__(key, value)
            self.clear()

    analyzer = analysis.catalog_analyzer()
    expected = analyzer.normalize("transformers")
    monkeypatch.setitem(analysis._caches, "stem", ClearedAtOnce("stem"))
    assert analyzer.normalize("transformers") == expected == "transformer"
    assert analyzer.terms("transformers models") == ("transformer", "model")
    assert analyzer.spans("transformers models", {"model"}) == [(13, 19)]


def test_words_one_process_met_are_learned_by_another_without_the_filter_chain(monkeypatch):
    """An ingest's index-build child learns the words the ingest analyzed for topics."""
    import pickle

    from app.search.words import analysis

    text = "Quokkanets and QKNs: quokkanetting the QKN"
    analyzer = catalog_analyzer()
    met = analysis.words_met()
    try:
        expected = analyzer.positions(text)
    finally:
        analysis.forget_words_met()
    analyzer.terms("Wombatnets")  # met after forgetting: not recorded
    words = {word for word, _ in met}
    assert {"Quokkanets", "QKNs", "quokkanetting", "QKN"} <= words <= set(text.replace(":", "")
                                                                            .split())
    # Another process's cache: what this one held before the text, and none of its new words
    other = analysis._WordCache("stem")
    other.update((word, term) for word, term in analysis._caches["stem"].items()
                 if word not in words)
    monkeypatch.setitem(analysis._caches, "stem", other)

    def no_chain(kind: str) -> None:
        raise AssertionError(f"the {kind} chain ran")

    monkeypatch.setattr(analysis, "_chain", no_chain)
    analysis.learn_words(pickle.loads(pickle.dumps(met)))  # as the pipe carries them
    learned = analyzer.positions(text)
    assert learned == expected and "QKN" in learned  # the acronym's marker too
