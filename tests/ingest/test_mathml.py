import re

import pytest

from app.ingest.mathml import tex_to_mathml
from app.ingest.normalize import normalize_abstract
from app.tex import split_math
from tests.conftest import SEEDS, parse_list_file


def seed_math() -> list[str]:
    fragments = []
    for path in sorted(SEEDS.glob("*.txt")):
        for abstract in parse_list_file(path).abstracts:
            fragments += [s.text for s in split_math(abstract.text) if s.is_math]
    return fragments


def test_every_seed_math_fragment_converts(capsys):
    fragments = seed_math()
    converted = [tex for tex in fragments if tex_to_mathml(tex) is not None]
    share = len(converted) / len(fragments)
    with capsys.disabled():
        print(f"\nseed math converted to MathML: {len(converted)}/{len(fragments)} = {share:.1%}")
    assert len(fragments) > 50
    assert share == 1.0


def test_every_seed_abstract_renders_math_or_falls_back():
    for path in sorted(SEEDS.glob("*.txt")):
        for abstract in parse_list_file(path).abstracts:
            html = normalize_abstract(abstract.text).html
            assert html.count("<math") + html.count('<code class="tex">') == len(
                [s for s in split_math(abstract.text) if s.is_math])


@pytest.mark.parametrize("broken", [r"\frac{", r"\begin{matrix}", "x" * 3000, " "])
def test_broken_tex_falls_back_to_source_in_code(broken):
    html = normalize_abstract(f"Before ${broken}$ after.").html
    assert tex_to_mathml(broken) is None
    assert '<code class="tex">' in html and "<math" not in html


@pytest.mark.parametrize("hostile", [
    r"\text{<script>alert(1)</script>}", r"\href{javascript:alert(1)}{x}",
    r"\text{<img src=x onerror=alert(1)>}", r"\mathrm{\"><svg onload=alert(1)>}",
])
def test_converter_output_is_sanitized(hostile):
    html = normalize_abstract(f"${hostile}$").html
    assert not re.search(r"<(script|img|svg)|<[^>]*\bon\w+=|href=", html, re.I)


def test_alttext_keeps_the_tex_source():
    assert 'alttext="\\alpha"' in tex_to_mathml(r"\alpha")
