"""The docs describe the code as it is (issue 41): every module they name exists. The one
history page, docs/performance-history.md, may name modules that are gone."""

from __future__ import annotations

import re

from app.config import PROJECT_ROOT

HISTORY = PROJECT_ROOT / "docs" / "performance-history.md"
_MODULE = re.compile(r"\b([\w/]*\w+\.py)\b")


def _sources() -> list[str]:
    return [str(path.relative_to(PROJECT_ROOT)) for folder in ("app", "bench", "tests")
            for path in (PROJECT_ROOT / folder).rglob("*.py")]


def _named_but_missing(text: str, sources: list[str]) -> set[str]:
    """The module paths (search/pipeline.py) or names (pipeline.py) in `text` that no source
    file ends with."""
    return {name for name in _MODULE.findall(text)
            if not any(source == name or source.endswith("/" + name) for source in sources)}


def test_every_module_the_docs_name_exists():
    sources = _sources()
    docs = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").rglob("*.md"))]
    missing = {str(doc.relative_to(PROJECT_ROOT)): found for doc in docs if doc != HISTORY
               for found in [_named_but_missing(doc.read_text(encoding="utf-8"), sources)]
               if found}
    assert missing == {}


def test_a_module_that_is_gone_is_found():
    sources = ["app/search/pipeline.py", "bench/run.py"]
    text = "`search/pipeline.py` and `run.py` stay; `search/codec.py` and facets.py are gone."
    assert _named_but_missing(text, sources) == {"search/codec.py", "facets.py"}
