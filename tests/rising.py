"""A generated series whose 2023 edition brings a new phrase ("quantum widgets", in 12 of its
20 papers and in none before), and a series held in 2023 only: what's new has a known answer
(tests/whats_new/test_edition_terms.py, tests/web/test_whats_new.py). With the phrase rise words
that name no concept (a filler word, adverbs and a verb, a two-letter fragment, an acronym
nobody defines) and an acronym that its papers define ("diffusion models (DMs)")."""

from __future__ import annotations

import json
from pathlib import Path

OLD = "We study kernel machines with sparse attention on standard benchmarks."
# Rises in 2023: 12 of its 20 papers write "quantum widgets" (and the titles make it a phrase).
NEW = "Quantum widgets beat kernel machines. We study sparse attention with quantum widgets."
# Also rising with them: words that are prose or pieces ("significantly", "demonstrably",
# "outshines", "xy"), KRR (never defined) and DM (defined: diffusion models).
PROSE = ("It significantly and demonstrably outshines KRR in the xy plane. Diffusion models "
         "(DMs) denoise widgets; DMs scale.")


def record(venue: str, year: int, title: str | None, abstract: str) -> str:
    return json.dumps({"venue": venue, "year": year, "abstract": abstract,
                       **({"title": title} if title else {})})


def corpus(path: Path) -> Path:
    rows = []
    for year in (2020, 2021, 2022):
        rows += [record("Delta", year, f"Kernel machines study {year}-{n}", f"{OLD} Case {n}.")
                 for n in range(20)]
    rows += [record("Delta", 2023, f"Quantum widgets study {n}", f"{NEW} {PROSE} Case {n}.")
             for n in range(12)]
    rows += [record("Delta", 2023, f"Kernel machines study 2023-{n}", f"{OLD} Case {n}.")
             for n in range(6)]
    # The last word of one paper and the first of the next (untitled: the text is the
    # abstract) never make a phrase, nor two words across a full stop that no title joins.
    rows += [record("Delta", 2023, None, "Sparse attention for the quantum"),
             record("Delta", 2023, None, "Widgets of sparse attention. Deep network. "
                    "Network deep learning.")]
    # Another series, in 2023 only: new there, it does not make its words rise in the year.
    rows += [record("Omega", 2023, f"Omega study {n}", f"Omega frobnication of lattices, case {n}.")
             for n in range(30)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def more(path: Path, count: int) -> Path:
    """`count` more papers on quantum widgets for Delta 2023, as an update brings them."""
    path.write_text("\n".join(record("Delta", 2023, f"Quantum widgets again {n}",
                                     f"{NEW} Again {n}.") for n in range(count)) + "\n",
                    encoding="utf-8")
    return path
