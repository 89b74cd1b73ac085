"""From a verbatim abstract derive readable plain text, safe display HTML and a headline.

The abstract mixes three markups: TeX (math in `$...$` / `\\(...\\)` and text commands such as
`\\textbf{...}` or `\\%`), markdown (`*em*`, `**strong**`, `[text](url)`) and bare URLs. The text
is cut into math and prose segments first, so markdown never reaches inside math, and every
prose construct is rendered twice: as plain text for the index and as escaped HTML for pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from app.ingest.mathml import tex_to_mathml
from app.tex import split_math, tex_to_text
from app.words import drop_invisible, is_safe_url

HEADLINE_CHARS = 120
# URLs end before whitespace and markup; trailing sentence punctuation is trimmed separately.
_URL_BODY = r"https?://[^\s<>\"'`{}\[\]\\|^]+"
_URL_TRAILING = ".,;:!?'\")]}*_"
_DASHES = {"--": "–", "---": "—"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class NormalizedText:
    plain: str
    html: str
    headline: str
    code_urls: list[str]


def normalize_abstract(raw: str) -> NormalizedText:
    plain_parts, html_parts = [], []
    for segment in split_math(raw):
        if segment.is_math:
            plain_parts.append(tex_to_text(segment.text))
            html_parts.append(_math_html(segment.text, segment.delimiters))
        else:
            plain_part, html_part = _prose_plain_and_html(segment.text)
            plain_parts.append(plain_part)
            html_parts.append(html_part)
    plain = " ".join("".join(plain_parts).split())
    html = "".join(html_parts)
    return NormalizedText(plain=plain, html=html, headline=make_headline(plain),
                          code_urls=extract_code_urls(raw))


def title_html(title: str) -> str:
    """A title as HTML: its math as MathML, like an abstract's; the rest escaped as written,
    since titles use * and _ as characters, not markdown (Q*, snake_case)."""
    return "".join(_math_html(s.text, s.delimiters) if s.is_math else escape(s.text)
                   for s in split_math(" ".join(title.split())))


def _math_html(tex: str, delimiters: tuple[str, str]) -> str:
    mathml = tex_to_mathml(tex, display=delimiters[0] in ("$$", "\\["))
    if mathml is not None:
        return f'<span class="math">{mathml}</span>'
    source = f"{delimiters[0]}{tex}{delimiters[1]}"
    return f'<code class="tex">{escape(source)}</code>'


# --- prose: markdown, TeX text commands and URLs ------------------------------------------------

# Every construct starts with one of the characters of the lookahead: checking it first lets
# the scan skip other positions at once (a sixth of the time of trying each alternative).
_PROSE = re.compile(
    r"(?=[\[\\h*_`\-~{])(?:"
    r"\[(?P<link_text>[^\]\n]+)\]\((?P<link_url>[^)\s]+)\)"
    r"|\\href\{(?P<href_url>[^}]*)\}\{(?P<href_text>[^}]*)\}"
    r"|\\url\{(?P<url_arg>[^}]*)\}"
    rf"|(?P<bare_url>{_URL_BODY})"
    r"|\\(?:cite[tp]?|citep?|citeauthor|citeyear|ref|eqref|label)\*?(?:\[[^\]]*\])*\{(?P<cite>[^}]*)\}"
    r"|\\(?P<strong_cmd>textbf|mathbf|bf)\{(?P<strong_arg>[^{}]*)\}"
    r"|\\(?P<em_cmd>textit|emph|textsl|it)\{(?P<em_arg>[^{}]*)\}"
    r"|\\(?P<plain_cmd>texttt|textsc|textrm|textsf|underline|mbox|text|textnormal)\{(?P<plain_arg>[^{}]*)\}"
    # TeX's older font switches: "{\it nonparametric networks}", "{\bf 10x}", "{\tt code}"
    r"|\{\\(?P<switch>it|em|sl|bf|tt|sc|rm|sf)\s+(?P<switch_arg>(?:[^{}]|\{[^{}]*\})*)\}"
    r"|\*\*(?P<strong_md>(?!\s).+?(?<!\s))\*\*"
    r"|__(?P<strong_us>(?!\s).+?(?<!\s))__"
    r"|(?<![\w*\\])\*(?P<em_md>(?![\s*]).*?(?<![\s\\]))\*(?![\w*])"
    r"|(?<![\w\\])_(?P<em_us>(?![\s_]).*?(?<!\s))_(?!\w)"
    r"|`(?P<code>[^`\n]+)`"
    r"|\\(?P<escaped>[%&#_$])"
    r"|(?<!\S)\\?(?P<dash>-{2,3})(?!\S)"
    r"|(?P<tie>~)(?=\\)"
    r"|\\(?P<command>[A-Za-z]+)\s?)",
)


_SWITCH_TAGS = {"it": "em", "em": "em", "sl": "em", "bf": "strong"}


def prose_to_plain(text: str) -> str:
    return _render_prose(text, ((_plain_node, str),))[0]


def prose_to_html(text: str) -> str:
    return _render_prose(text, ((_html_node, escape),))[0]


def _prose_plain_and_html(text: str) -> tuple[str, str]:
    plain, html = _render_prose(text, ((_plain_node, str), (_html_node, escape)))
    return plain, html


NodeRenderer = Callable[[re.Match[str], Callable[[str], str]], str]
Rendering = tuple[NodeRenderer, Callable[[str], str]]  # a construct's rendering, the rest's


def _render_prose(text: str, renderings: tuple[Rendering, ...]) -> list[str]:
    """The text rendered in each of the ways, read once (plain text and HTML of every
    abstract: reading it twice was a sixth of normalizing)."""
    text = drop_invisible(_CONTROL.sub(" ", text))
    outs: list[list[str]] = [[] for _ in renderings]
    position = 0
    for match in _PROSE.finditer(text):
        before = text[position : match.start()]
        for out, rendering in zip(outs, renderings, strict=True):
            node, leaf = rendering
            out += (leaf(before),
                    node(match, lambda inner, way=rendering: _render_prose(inner, (way,))[0]))
        position = match.end()
    return ["".join(out) + leaf(text[position:])
            for out, (_, leaf) in zip(outs, renderings, strict=True)]


def split_url(candidate: str) -> tuple[str, str]:
    """Split a matched URL into the URL and the punctuation that ends the sentence after it."""
    url = candidate
    while url and url[-1] in _URL_TRAILING:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url, candidate[len(url) :]


def _plain_node(match: re.Match[str], inner: Callable[[str], str]) -> str:
    kind = match.lastgroup
    group = match.groupdict()
    if group["link_text"] is not None:
        return inner(group["link_text"])
    if group["href_url"] is not None:
        return inner(group["href_text"])
    if kind == "url_arg":
        return group["url_arg"]
    if kind == "bare_url":
        return "".join(split_url(group["bare_url"]))
    if kind == "cite":
        return ""
    for name in ("strong_arg", "em_arg", "plain_arg", "switch_arg", "strong_md", "strong_us",
                 "em_md", "em_us"):
        if group[name] is not None:
            return inner(group[name])
    if kind == "code":
        return group["code"]
    if kind == "escaped":
        return group["escaped"]
    if kind == "dash":
        return _DASHES[group["dash"]]
    if kind == "tie":
        return " "
    return group["command"] + " "


def _html_node(match: re.Match[str], inner: Callable[[str], str]) -> str:
    kind = match.lastgroup
    group = match.groupdict()
    if group["link_text"] is not None:  # the label stays text: no link inside a link
        return _link(group["link_url"], escape(prose_to_plain(group["link_text"])))
    if group["href_url"] is not None:
        return _link(group["href_url"], inner(group["href_text"]))
    if kind == "url_arg":
        return _link(group["url_arg"], escape(group["url_arg"]))
    if kind == "bare_url":
        url, trailing = split_url(group["bare_url"])
        return _link(url, escape(url)) + escape(trailing)
    if kind == "cite":
        return f"<cite>[{escape(group['cite'])}]</cite>"
    if group["strong_arg"] is not None:
        return f"<strong>{inner(group['strong_arg'])}</strong>"
    if group["em_arg"] is not None:
        return f"<em>{inner(group['em_arg'])}</em>"
    if group["plain_arg"] is not None:
        return inner(group["plain_arg"])
    if group["switch_arg"] is not None:
        tag = _SWITCH_TAGS.get(group["switch"])
        text = inner(group["switch_arg"])
        return f"<{tag}>{text}</{tag}>" if tag else text
    if group["strong_md"] is not None or group["strong_us"] is not None:
        return f"<strong>{inner(group['strong_md'] or group['strong_us'])}</strong>"
    if group["em_md"] is not None or group["em_us"] is not None:
        return f"<em>{inner(group['em_md'] or group['em_us'])}</em>"
    if kind == "code":
        return f"<code>{escape(group['code'])}</code>"
    if kind == "escaped":
        return escape(group["escaped"])
    if kind == "dash":
        return _DASHES[group["dash"]]
    if kind == "tie":
        return " "
    return escape(group["command"]) + " "


def _link(url: str, label_html: str) -> str:
    if not is_safe_url(url):
        return label_html
    return f'<a href="{escape(url)}" rel="nofollow noopener">{label_html}</a>'


# --- code links ---------------------------------------------------------------------------------

_CODE_HOSTS = re.compile(
    r"^https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|hf\.co"
    r"|codeberg\.org|sourceforge\.net|[\w-]+\.github\.io|colab\.research\.google\.com"
    r"|paperswithcode\.com)/?", re.I)
_URL_ANYWHERE = re.compile(_URL_BODY)
_CODE_CUE = re.compile(r"\b(?:code|implementation|project page|repository|github)\b", re.I)


def extract_code_urls(raw: str) -> list[str]:
    """Code and project URLs in an abstract, cleaned of trailing punctuation, in order."""
    urls: list[str] = []
    previous_end = 0
    for match in _URL_ANYWHERE.finditer(raw):
        url, _ = split_url(match[0])
        # The cue must sit just before this URL, not before an earlier one.
        before = raw[max(previous_end, match.start() - 50) : match.start()]
        previous_end = match.end()
        if not is_safe_url(url) or url in urls:
            continue
        if _CODE_HOSTS.match(url) or _CODE_CUE.search(before):
            urls.append(url)
    return urls


# --- headline ----------------------------------------------------------------------------------

_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "approx.")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


def make_headline(plain: str) -> str:
    """The first sentence, cut at a word boundary to about HEADLINE_CHARS characters."""
    sentence = plain
    for match in _SENTENCE_END.finditer(plain):
        head = plain[: match.start()]
        if not head.endswith(_ABBREVIATIONS):
            sentence = head
            break
    if len(sentence) <= HEADLINE_CHARS:
        return sentence
    cut = sentence[:HEADLINE_CHARS].rsplit(" ", 1)[0] or sentence[:HEADLINE_CHARS]
    return cut.rstrip(" ,;:-–—") + "…"
