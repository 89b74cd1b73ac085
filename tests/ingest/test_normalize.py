import pytest

from app.ids import edition_slug, paper_id
from app.ingest.normalize import make_headline, normalize_abstract, split_url
from app.tex import tex_to_text


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\mathcal{O}(n)", "O(n)"),
        (r"\alpha", "α"),
        (r"\mathcal{O}(1/\sqrt{MHT})", "O(1/√(MHT))"),
        (r"\ell_\infty", "ℓ∞"),
        (r"W^{k, p}(\mathbb{R}^d)", "W^(k, p)(ℝ^d)"),
        (r"{\sim}5\%", "∼5%"),
        (r"\text{BYOL-}\gamma", "BYOL-γ"),
        (r"\frac{1}{2}", "1/2"),
        (r"p \in [1, \infty)", "p ∈ [1, ∞)"),
        (r"\unknowncommand{x}", "unknowncommandx"),
    ],
)
def test_tex_becomes_readable_text(tex, text):
    assert tex_to_text(tex) == text


@pytest.mark.parametrize("hostile", ["\\", "{" * 5000 + "x", r"\sqrt[", "x^", "}}}{{"])
def test_broken_tex_never_raises(hostile):
    assert isinstance(tex_to_text(hostile), str)


def test_plain_text_strips_tex_and_markdown():
    raw = (r"We get $\mathcal{O}(n)$ cost, 3.0\% gains, \textbf{bold} and *em* and "
           r"**strong** words, as claimed by~\citet{feldman2020} in [our repo](https://x.org/a).")
    plain = normalize_abstract(raw).plain
    assert plain == ("We get O(n) cost, 3.0% gains, bold and em and strong words, "
                     "as claimed by in our repo.")


def test_html_renders_markdown_and_escapes_everything_else():
    html = normalize_abstract(
        "**Method.** *Fast* <script>alert(1)</script> & [site](https://a.org/x) a<b"
    ).html
    assert html.startswith("<strong>Method.</strong> <em>Fast</em> &lt;script&gt;")
    assert "<script>" not in html
    assert '<a href="https://a.org/x" rel="nofollow noopener">site</a>' in html
    assert "&amp;" in html and "a&lt;b" in html


def test_tex_font_switches_read_as_their_text():
    normalized = normalize_abstract(
        r"We introduce {\it nonparametric networks}, a {\bf 10x} gain, {\em no} {\tt gpu} "
        r"<i>, sets {x} and {\it <script>}, {\it \textbf{physics}} insights.")
    assert normalized.plain == ("We introduce nonparametric networks, a 10x gain, no gpu <i>, "
                                "sets {x} and <script>, physics insights.")
    assert normalized.html == ("We introduce <em>nonparametric networks</em>, a "
                               "<strong>10x</strong> gain, <em>no</em> gpu &lt;i&gt;, sets {x} "
                               "and <em>&lt;script&gt;</em>, <em><strong>physics</strong></em> "
                               "insights.")


def test_unsafe_link_schemes_are_not_linked():
    html = normalize_abstract("[click](javascript:alert(1)) \\href{javascript:x}{y}").html
    assert "href" not in html
    assert "javascript" not in html or "<a" not in html


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        (r"Code will be available at \url{https://github.com/yuchang97/GFG-public}",
         "https://github.com/yuchang97/GFG-public"),
        ("available at https://github.com/benmagnifico/SmartFed.",
         "https://github.com/benmagnifico/SmartFed"),
        ("(see https://github.com/a/b), and", "https://github.com/a/b"),
        ("at [https://github.com/yeshenpy/Nevo-CRL](https://github.com/yeshenpy/Nevo-CRL).",
         "https://github.com/yeshenpy/Nevo-CRL"),
    ],
)
def test_urls_are_linked_without_trailing_punctuation(raw, url):
    html = normalize_abstract(raw).html
    assert f'href="{url}"' in html
    assert html.count("<a ") == 1


def test_url_with_balanced_parentheses_keeps_them():
    assert split_url("https://en.wikipedia.org/wiki/A_(b))") == (
        "https://en.wikipedia.org/wiki/A_(b)", ")")


def test_math_renders_as_mathml_and_markdown_does_not_reach_inside():
    html = normalize_abstract(r"Cost $a*b*c$ and *em*.").html
    math = html[html.index("<math"):html.index("</math>")]
    assert "<em>" not in math and "*" in math
    assert html.endswith("and <em>em</em>.")


def test_percent_after_math_and_dashes():
    assert normalize_abstract(r"gains of $8.8$% and a \--- dash").plain == (
        "gains of 8.8% and a — dash")


def test_headline_is_the_first_sentence():
    assert make_headline("Rote learning is a technique. It repeats.") == (
        "Rote learning is a technique.")
    assert make_headline("Models, e.g. LLMs, work. Next.") == "Models, e.g. LLMs, work."


def test_long_headline_is_cut_at_a_word_boundary():
    headline = make_headline("word " * 60)
    assert len(headline) <= 121 and headline.endswith("word…")


def test_ids_are_stable_and_depend_on_venue_and_text():
    assert paper_id("icml-2026", "An  abstract.") == paper_id("icml-2026", "An abstract.")
    assert paper_id("icml-2026", "An abstract.") != paper_id("iclr-2026", "An abstract.")
    assert len(paper_id("icml-2026", "x")) == 16


def test_edition_slugs():
    assert edition_slug("NeurIPS", 2026) == "neurips-2026"
    assert edition_slug("Learning on Graphs", 2024) == "learning-on-graphs-2024"
