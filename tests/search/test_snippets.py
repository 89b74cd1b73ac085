import re

import pytest
from whoosh.query import And, Phrase, Term

from app.search.rank.snippets import make_snippet, query_terms
from app.search.words.analysis import AcronymTerm, CachedAnalyzer, analyze, catalog_analyzer
from app.search.words.word_starts import candidates
from tests.conftest import SEEDS, parse_list_file

TEXT = ("Intro words " * 30 + "we study grokking in <b>small</b> transformers & memorisation. "
        + "Filler " * 80 + "Grokking again at the end.")


def test_marks_every_form_of_the_query_terms_and_escapes_the_rest():
    snippet = make_snippet(TEXT, set(analyze("grokking memorization")))
    assert "<mark>grokking</mark>" in snippet and "<mark>memorisation</mark>" in snippet
    assert "&lt;b&gt;small&lt;/b&gt;" in snippet and "&amp;" in snippet
    assert "<b>" not in snippet


def test_passages_are_cut_at_spaces_with_ellipses():
    snippet = make_snippet(TEXT, set(analyze("grokking")))
    assert snippet.startswith("…") and " … " in snippet
    assert "<mark>Grokking</mark> again at the end." in snippet
    assert len(snippet) < 700


def test_no_match_gives_the_start_of_the_text():
    assert make_snippet("A short text.", {"zebra"}) == "A short text."


def test_query_terms_come_from_text_fields_and_phrases():
    query = And([Term("text", "grok"), Phrase("headline", ["weak", "strong"]),
                 Term("venue", "icml-2026")])
    assert query_terms(query) == {"grok", "weak", "strong"}


def test_passages_never_show_runs_of_ellipses():
    # Matches close together and far apart: passages that meet are joined, the others are
    # separated by one ellipsis.
    text = " ".join(f"word{i} grokking" if i % 37 == 0 else f"word{i}" for i in range(400))
    for width in (60, 120, 240):
        snippet = make_snippet(text, set(analyze("grokking")), width=width)
        assert "… …" not in snippet and "……" not in snippet, snippet
        assert snippet.count("<mark>") >= 2
    near = "A grokking B " + "x " * 100 + "grokking C grokking D " + "y " * 300 + "end"
    snippet = make_snippet(near, set(analyze("grokking")))
    assert "… …" not in snippet and snippet.endswith("…")


def test_passages_that_meet_read_as_one_run_of_the_text():
    """Two windows that overlap are one passage: no word shown twice, none lost at a seam,
    and an ellipsis only where words are left out (issue 28, mutant 8)."""
    words = [f"w{i:03d}" for i in range(150)]
    for second in range(50, 80):
        text = " ".join(["alpha" if i == 20 else "omega" if i == second else w
                         for i, w in enumerate(words)])
        snippet = make_snippet(text, {"alpha", "omega"}).replace("<mark>", "").replace(
            "</mark>", "")
        source = text.split()
        shown = [passage.split() for passage in snippet.strip("…").split(" … ")]
        starts = [source.index(passage[0]) for passage in shown]
        for passage, start in zip(shown, starts, strict=True):
            assert passage == source[start:start + len(passage)], (second, snippet)
        for (before, start), after in zip(zip(shown, starts, strict=False), starts[1:],
                                          strict=False):
            assert start + len(before) < after, (second, snippet)  # a gap, or one passage


M = "<mark>grok</mark>"


@pytest.mark.parametrize(("text", "width", "snippet"), [
    # A short text shows whole, from its first word to its last.
    ("grok at start and more", 60, f"{M} at start and more"),
    ("ab grok cd", 10, f"ab {M} cd"),
    ("ab cd grok", 10, f"ab cd {M}"),
    # A sixth of the window before the match (24 // 6 = 4), cut at a space.
    ("aaa grok" + " x" * 40, 24, f"aaa {M} x x x x x x x…"),
    ("aaaa grok" + " x" * 40, 24, f"…{M} x x x x x x x…"),
    ("ab grok" + " z" * 20, 12, f"…{M} z z…"),
    # No space to cut at inside the window: cut mid-word rather than lose the match.
    ("x(grok)" + " y" * 20, 6, f"…({M})…"),
    # Two passages at most, the best first; passages that meet are one.
    (" ".join("grok" if i % 15 == 0 else "w" for i in range(60)), 20,
     f"{M} w w w w w w w … w {M} w w w w w w…"),
    ("grok" + " zz" * 6 + " grok" + " y" * 30, 20, f"{M} zz zz zz zz zz zz {M} y y y y y y…"),
    # A match exactly a window after another counts for the later window, not the first.
    ("grok zzzzzzzzzzzzzz grok grok" + " y" * 30, 20,
     f"{M} zzzzzzzzzzzzzz {M} {M} y y y…"),
    ("grok zzzzzzzzzzzzzz grok" + " y" * 30, 20, f"{M} zzzzzzzzzzzzzz {M} y y y y y y…"),
    # Two matches in one window beat a lone one before them: the lone one is left out.
    ("grok " + "z" * 14 + " grok grok " + "y" * 68 + " grok grok" + " x" * 30, 20,
     f"…{M} {M} … {M} {M} x x x…"),
])
def test_passage_edges(text: str, width: int, snippet: str):
    assert make_snippet(text, {"grok"}, width=width) == snippet


def test_query_terms_decode_byte_terms():
    assert query_terms(Term("text", "grök".encode())) == {"grök"}


def test_a_phrases_small_word_is_marked_where_the_phrase_stands_not_alone():
    text = "In practice, we study in-context learning. Results in tables."
    assert make_snippet(text, {"in", "context", "learn"}) == (
        "In practice, we study <mark>in</mark>-<mark>context</mark> <mark>learning</mark>. "
        "Results in tables.")
    assert make_snippet("in the box", {"in"}) == "<mark>in</mark> the box"  # asked alone


# Irregular lemmas, British spellings, Porter's exceptions, stop words, hyphens, acronyms and
# their markers, dotted words, and Unicode and TeX math as the plain text writes them.
IRREGULAR = (
    "Results were better: the models went deeper, ate more data and dying ReLUs were "
    "oestrogen-free. Mice and geese; feet. We study in-context learning (ICL) of LLMs with "
    "MAP and the map. Naïve Σ-Δ modulators, ℓ1 and α-divergence, 𝒪(n log n) time, ﬁne-tuning "
    "of GPT-4 e.g.transformers, i.e. U.S. standards; generalisation behaviour, analysed; "
    "studies, tying and lying. Ünïcödé ÉCOLE straße.")


def full_scan(text: str, terms: set[str]) -> list[tuple[int, int]]:
    """Every word of the text analyzed by the filter chain: where a snippet's marks must be."""
    return [(token.startchar, token.endchar) for token in catalog_analyzer()(text, chars=True)
            if token.text in terms
            or (isinstance(token.text, AcronymTerm) and token.text.marker in terms)]


def test_marks_irregular_forms_spellings_and_unicode_as_the_analyzer_reads_them():
    def marked(terms: set[str]) -> list[str]:
        return re.findall(r"<mark>(.*?)</mark>", make_snippet(IRREGULAR, terms, width=1000))

    assert marked({"be", "go", "eat"}) == ["were", "went", "ate", "were"]
    assert marked({"die", "tie", "lie", "estrogen"}) == ["dying", "oestrogen", "tying", "lying"]
    assert marked({"mouse", "goose", "foot"}) == ["Mice", "geese", "feet"]
    assert marked({"sigma", "delta", "alpha", "o", "l1", "fine"}) == [
        "Σ", "Δ", "ℓ1", "α", "𝒪", "ﬁne"]
    assert marked({"MAP", "llm"}) == ["LLMs", "MAP"]
    assert marked({"map"}) == ["MAP", "map"]
    assert marked({"generalization", "behavior", "analyze", "naive", "unicod", "ecol"}) == [
        "Naïve", "generalisation", "behaviour", "analysed", "Ünïcödé", "ÉCOLE"]
    assert marked({"e.g.transformer", "u.s", "transformer"}) == ["e.g.transformers", "U.S"]


def test_marks_exactly_the_words_a_full_scan_finds(monkeypatch):
    """The terms of the texts' words, three at a time and all at once (and alone for the
    irregular text): the spans and the snippets are those of analyzing every word."""
    texts = [IRREGULAR, TEXT] + [a.text for path in sorted(SEEDS.glob("*.txt"))
                                 for a in parse_list_file(path).abstracts]
    cases = []
    for text in texts:
        terms = sorted({token.text for token in catalog_analyzer()(text, mode="index")})
        cases += [(text, set(terms[i:i + 3])) for i in range(0, len(terms), 3)]
        cases.append((text, set(terms)))
    cases += [(IRREGULAR, {term}) for term in analyze(IRREGULAR)]
    snippets = [make_snippet(text, terms, width=120) for text, terms in cases]
    for text, terms in cases:
        words = candidates(frozenset(terms), text.isascii())
        assert catalog_analyzer().spans(text, terms, words) == full_scan(text, terms), terms
    monkeypatch.setattr(CachedAnalyzer, "spans",
                        lambda _, text, terms, words: full_scan(text, terms))
    assert snippets == [make_snippet(text, terms, width=120) for text, terms in cases]
