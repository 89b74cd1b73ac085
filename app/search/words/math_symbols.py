"""Math as abstracts write it (Unicode letters, Greek) read as it is typed into a search box."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from whoosh.analysis import Filter, Token

_GREEK_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi",
    "χ": "chi", "ψ": "psi", "ω": "omega",
}
_GREEK = re.compile("[" + "".join(_GREEK_NAMES) + "]")


class MathSymbolFilter(Filter):
    """Readable math matches typed math: ℓ1 → l1, 𝒪 → o, ℝ → r, α → alpha."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for token in tokens:
            text = token.text
            if not text.isascii():
                text = unicodedata.normalize("NFKC", text).lower()
                text = _GREEK.sub(lambda m: _GREEK_NAMES[m[0]], text)
                token.text = text
            yield token
