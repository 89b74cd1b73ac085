"""What features derive when an index generation is written, each entry in its feature's
folder: what's new's counts per edition (whats_new/term_counts.py) and the map's layout
(map/layout.py). They register with the generation (search/index/registry.register), so
that the search layer imports no feature.

Every process that builds or opens an index calls `register_parts` first: the CLI
(app/cli.py), the app (`main.create_app`), the tests (tests/conftest.py) and the benchmarks
(bench/__init__.py); a spawned child is handed its parent's entries (registry.WithParts).
"""

from __future__ import annotations

from app.map.layout import MAP_PART
from app.search.index.registry import register
from app.whats_new.term_counts import TERMS_PART


def register_parts() -> None:
    register(TERMS_PART, MAP_PART)
