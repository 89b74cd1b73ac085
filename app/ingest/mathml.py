"""TeX math → MathML for display, converted once at ingest by latex2mathml.

The converter copies some input through verbatim (`\\text{<script>}` becomes a <script>
element inside <mtext>, `\\href{javascript:..}` an href attribute), so its output is parsed
and rebuilt from an allowlist of MathML elements and attributes. Anything that cannot be
converted or parsed returns None and the page shows the TeX source instead.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import escape

from latex2mathml.converter import convert

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "semantics", "annotation",
    "mmultiscripts", "mprescripts", "none", "mlabeledtr",
})
ATTRIBUTES = frozenset({
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "form",
    "movablelimits", "accent", "accentunder", "minsize", "maxsize", "columnalign",
    "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "width", "height",
    "depth", "linethickness", "displaystyle", "scriptlevel", "symmetric", "largeop",
    "notation", "align", "encoding", "alttext",
})
MAX_TEX_CHARS = 2_000


def tex_to_mathml(tex: str, display: bool = False) -> str | None:
    """Safe MathML for a TeX fragment, or None when it cannot be converted."""
    if not tex.strip() or len(tex) > MAX_TEX_CHARS:
        return None
    try:
        raw = convert(tex, display="block" if display else "inline")
        root = ET.fromstring(raw)
    except Exception:  # noqa: BLE001 - the converter raises many kinds of errors on odd TeX
        return None
    if _local(root.tag) != "math" or _is_empty(root):
        return None
    root.attrib["alttext"] = tex  # what screen readers and copy-paste fall back to
    return _serialize(root)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _is_empty(element: ET.Element) -> bool:
    return not "".join(element.itertext()).strip() and len(list(element.iter())) <= 2


def _serialize(element: ET.Element) -> str:
    tag = _local(element.tag)
    text = escape(element.text or "", quote=False)
    if tag not in ELEMENTS:  # unknown elements keep only their text, escaped
        inner = text + "".join(_serialize(child) for child in element)
        return inner + escape(element.tail or "", quote=False)
    attributes = "".join(
        f' {name}="{escape(value)}"' for name, value in element.attrib.items()
        if name in ATTRIBUTES and not re.search(r"[<>]|script:", value, re.I)
    )
    if tag == "math":
        attributes = f' xmlns="{MATHML_NS}"' + attributes
    children = "".join(_serialize(child) for child in element)
    return f"<{tag}{attributes}>{text}{children}</{tag}>" + escape(element.tail or "", quote=False)
