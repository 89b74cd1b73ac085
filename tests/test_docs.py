"""The docs describe the code as it is (issue 41): every module they name exists, and none
tells its story by session or round. The one history page, docs/performance-history.md, may
name modules that are gone, sessions and rounds."""

from __future__ import annotations

import re
from pathlib import Path

from app.config import PROJECT_ROOT

HISTORY = PROJECT_ROOT / "docs" / "performance-history.md"
_MODULE = re.compile(r"\b([\w/]*\w+\.py)\b")
_ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
_SESSION_OR_ROUND = re.compile(
    rf"\b(?:sessions?|rounds?)\s+\d+|\b(?:{_ORDINALS})\s+(?:sessions?|rounds?)\b", re.IGNORECASE)


def _sources() -> list[str]:
    return [str(path.relative_to(PROJECT_ROOT)) for folder in ("app", "bench", "tests")
            for path in (PROJECT_ROOT / folder).rglob("*.py")]


def _named_but_missing(text: str, sources: list[str]) -> set[str]:
    """The module paths (search/pipeline.py) or names (pipeline.py) in `text` that no source
    file ends with."""
    return {name for name in _MODULE.findall(text)
            if not any(source == name or source.endswith("/" + name) for source in sources)}


def _docs() -> list[Path]:
    return [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").rglob("*.md"))]


def _sessions_and_rounds(text: str) -> list[str]:
    """What `text` says of a session or round by number ("session 13", "round 3", "sixth round")."""
    return [match.group(0) for match in _SESSION_OR_ROUND.finditer(text)]


def test_every_module_the_docs_name_exists():
    sources = _sources()
    docs = _docs()
    missing = {str(doc.relative_to(PROJECT_ROOT)): found for doc in docs if doc != HISTORY
               for found in [_named_but_missing(doc.read_text(encoding="utf-8"), sources)]
               if found}
    assert missing == {}


def test_a_module_that_is_gone_is_found():
    sources = ["app/search/pipeline.py", "bench/run.py"]
    text = "`search/pipeline.py` and `run.py` stay; `search/codec.py` and facets.py are gone."
    assert _named_but_missing(text, sources) == {"search/codec.py", "facets.py"}


def test_only_the_history_page_names_sessions_and_rounds():
    named = {str(doc.relative_to(PROJECT_ROOT)): found for doc in _docs() if doc != HISTORY
             for found in [_sessions_and_rounds(doc.read_text(encoding="utf-8"))] if found}
    assert named == {}


def test_a_session_or_round_is_found():
    text = ("Measured in Session 13 and in sessions 13 and 14; issue 43 round 3; the Sixth round. "
            "The keeper picks it up in the next round; this round's numbers; a session cookie.")
    assert _sessions_and_rounds(text) == ["Session 13", "sessions 13", "round 3", "Sixth round"]
