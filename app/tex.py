"""TeX math to readable Unicode text, for the index, snippets and headlines; where the math
is in a text (`split_math`), and a title as plain text (`title_text`). A base module: ingest
reads it as it normalizes, exports and topics read titles with it.

Not a TeX engine: it knows the commands abstracts use (Greek letters, relations, fonts,
`\\frac`, `\\sqrt`, sub- and superscripts) and degrades everything else to the command's name,
so any input gives some readable text and never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SYMBOLS = {
    # Greek
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    # letters and operators
    "ell": "ℓ", "infty": "∞", "partial": "∂", "nabla": "∇", "sum": "Σ", "prod": "Π",
    "int": "∫", "times": "×", "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…",
    "pm": "±", "mp": "∓", "div": "÷", "circ": "∘", "star": "⋆", "ast": "*", "otimes": "⊗",
    "oplus": "⊕", "odot": "⊙",
    # relations and arrows
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈",
    "sim": "∼", "simeq": "≃", "propto": "∝", "equiv": "≡", "ll": "≪", "gg": "≫",
    "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "mapsto": "↦",
    "forall": "∀", "exists": "∃", "emptyset": "∅", "setminus": "∖", "mid": "|",
    "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
    # spacing and escapes
    ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " ",
    "%": "%", "&": "&", "#": "#", "_": "_", "$": "$", "{": "{", "}": "}", "|": "‖",
}
_FUNCTIONS = {"log", "ln", "exp", "sin", "cos", "tan", "max", "min", "sup", "inf", "arg",
              "argmax", "argmin", "lim", "det", "tr", "Pr", "dim", "deg", "poly", "polylog"}
_DROPPED = {"left", "right", "big", "Big", "bigg", "Bigg", "displaystyle", "limits", "nolimits"}
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}
_FONTS = {"mathcal", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathfrak", "mathscr",
          "boldsymbol", "bm", "text", "textbf", "textit", "textrm", "texttt", "mbox",
          "operatorname", "emph", "hat", "tilde", "bar", "vec", "widehat", "widetilde",
          "overline", "underline", "dot", "ddot"}

_COMMAND = re.compile(r"\\([A-Za-z]+|.|$)", re.S)


def tex_to_text(tex: str) -> str:
    try:
        text, _ = _convert(tex, 0)
    except RecursionError:  # pathologically nested braces: keep the source, minus markup
        text = re.sub(r"[\\{}]", " ", tex)
    return " ".join(text.split())


@dataclass(frozen=True)
class Segment:
    text: str
    is_math: bool = False
    delimiters: tuple[str, str] = ("", "")


_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$"
    r"|(?<!\\)\$(?P<inline>[^$]+?)(?<!\\)\$"
    r"|\\\((?P<paren>.+?)\\\)"
    r"|\\\[(?P<bracket>.+?)\\\]",
    re.S,
)
_DELIMITERS = {"display": ("$$", "$$"), "inline": ("$", "$"), "paren": ("\\(", "\\)"),
               "bracket": ("\\[", "\\]")}


def split_math(raw: str) -> list[Segment]:
    """Cut an abstract into prose and math segments; an unmatched `$` stays prose."""
    segments: list[Segment] = []
    position = 0
    for match in _MATH.finditer(raw):
        if match.start() > position:
            segments.append(Segment(raw[position : match.start()]))
        kind = match.lastgroup or "inline"
        segments.append(Segment(match[kind], is_math=True, delimiters=_DELIMITERS[kind]))
        position = match.end()
    if position < len(raw):
        segments.append(Segment(raw[position:]))
    return segments


def title_text(title: str) -> str:
    """A title as plain text: its TeX math as readable Unicode ("Gradient ℓ1 Regularization"),
    for the headline, <title>, feeds and exports."""
    return " ".join("".join(tex_to_text(s.text) if s.is_math else s.text
                            for s in split_math(title)).split())


def _read_group(tex: str, i: int) -> tuple[str, int]:
    """Read one argument at i: a braced group, a command or a single character."""
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex):
        return "", i
    if tex[i] == "{":
        return _convert(tex, i + 1, closing="}")
    if tex[i] == "\\":
        match = _COMMAND.match(tex, i)
        assert match is not None  # a backslash always matches
        return _command_text(tex, match[1], match.end())
    return tex[i], i + 1


def _convert(tex: str, i: int, closing: str | None = None) -> tuple[str, int]:
    out: list[str] = []
    while i < len(tex):
        char = tex[i]
        if closing and char == closing:
            return "".join(out), i + 1
        if char == "{":
            inner, i = _convert(tex, i + 1, closing="}")
            out.append(inner)
        elif char == "}":
            i += 1  # a stray closing brace
        elif char == "\\":
            match = _COMMAND.match(tex, i)
            assert match is not None
            piece, i = _command_text(tex, match[1], match.end())
            out.append(piece)
        elif char == "_":
            piece, i = _read_group(tex, i + 1)
            out.append(piece)
        elif char == "^":
            piece, i = _read_group(tex, i + 1)
            out.append("^" + (piece if len(piece) <= 1 else f"({piece})"))
        elif char == "~":
            out.append(" ")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out), i


def _command_text(tex: str, name: str, i: int) -> tuple[str, int]:
    if name in SYMBOLS:
        return SYMBOLS[name], i
    if name in _FUNCTIONS:
        return f" {name} ", i
    if name in _DROPPED:
        return "", i
    if name == "mathbb":
        arg, i = _read_group(tex, i)
        return "".join(_BLACKBOARD.get(ch, ch) for ch in arg), i
    if name in _FONTS:
        return _read_group(tex, i)
    if name in ("frac", "dfrac", "tfrac"):
        numerator, i = _read_group(tex, i)
        denominator, i = _read_group(tex, i)
        return f"{_wrap(numerator)}/{_wrap(denominator)}", i
    if name == "sqrt":
        if i < len(tex) and tex[i] == "[":  # \sqrt[n]{x}: drop the order
            end = tex.find("]", i)
            i = end + 1 if end >= 0 else len(tex)
        arg, i = _read_group(tex, i)
        return "√" + (arg if len(arg) <= 1 else f"({arg.strip()})"), i
    return name, i


def _wrap(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 1 or text.isalnum() else f"({text})"
