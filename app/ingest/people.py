"""Who wrote a paper and where they work, as the JSON Lines and CSV inputs give it: authors
with their affiliations (aligned, one per author), the paper's institutions and countries, a
code link and a TL;DR.

Names are normalized (Unicode NFC, whitespace collapsed, stray separators at either end
dropped) and never merged beyond that: one normalized name is one author, and two spellings
of one person stay two authors, since nothing in the inputs tells people apart. A name
repeated on one paper is one author (the ICRA and IROS lists repeat every author list, with
its affiliations).

A malformed field is a problem of that field alone: the row loads without it, and the problem
is reported with the row's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from app.ids import name_slug
from app.words import clean_name, drop_invisible, is_safe_url

MAX_AUTHORS = 200  # of one paper: a 500-author consortium paper keeps its first 200
MAX_AFFILIATION_CHARS = 300  # one author's affiliation as written
MAX_PLACES = 100  # institutions, or countries, of one paper
MAX_TLDR_CHARS = 1_000
MAX_URL_CHARS = 2_000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class People:
    authors: tuple[str, ...] = ()
    affiliations: tuple[str, ...] = ()  # one per author ("" where unknown), or none at all
    institutions: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    code: str = ""  # one repository or project URL
    tldr: str = ""


def storable(name: str, text: str) -> str:
    """The text without control characters; ValueError for what no database column holds."""
    # JSON escapes can spell what no database text column holds (PostgreSQL refuses NUL;
    # neither database can encode a lone surrogate): the field is reported, not stored.
    if "\x00" in text:
        raise ValueError(f"{name} contains a NUL character (\\u0000)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} contains a lone UTF-16 surrogate (\\ud800–\\udfff)") from None
    # Terminal escapes, bells and backspaces mean nothing in a title or a name, and would
    # reach pages, CSV and JSON as they are.
    return _CONTROL.sub("", text)


def items(row: dict[str, Any], name: str) -> list[str]:
    """The field's items as written: a JSON list of text, or text separated by ';'."""
    value = row.get(name)
    if value is None or value == "":
        return []
    if isinstance(value, str):
        found = value.split(";")
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        found = value
    else:
        raise ValueError(f"{name} must be a list of names or text separated by ';'")
    return [storable(name, item) for item in found]


def _places(row: dict[str, Any], name: str) -> tuple[str, ...]:
    """Distinct institutions or countries: two names of one slug ("ETH Zürich" and "ETH
    Zurich") are one, as written first."""
    slugs: dict[str, str] = {}
    for item in items(row, name):
        cleaned = clean_name(item)
        if cleaned:
            slugs.setdefault(name_slug(cleaned), cleaned)
    return tuple(slugs.values())[:MAX_PLACES]


def _authors(row: dict[str, Any], problems: list[str]) -> tuple[tuple[str, ...],
                                                                 tuple[str, ...]]:
    """The distinct authors in order, and their affiliations aligned with them."""
    written = [clean_name(item) for item in items(row, "authors")]
    affiliations: list[str] = []
    try:
        affiliations = [clean_name(item, MAX_AFFILIATION_CHARS)
                        for item in items(row, "affiliations")]
    except ValueError as error:
        problems.append(str(error))
    if affiliations and len(affiliations) != len(written):
        problems.append(f"affiliations: {len(affiliations)} for {len(written)} authors, so "
                        "which is whose is unknown; they are left out")
        affiliations = []
    where: dict[str, str] = {}
    for k, author in enumerate(written):
        if author and not where.get(author):  # a repeated name: its first known affiliation
            where[author] = affiliations[k] if affiliations else ""
    authors = tuple(where)[:MAX_AUTHORS]
    aligned = tuple(where[author] for author in authors)
    return authors, aligned if any(aligned) else ()


def read_url(row: dict[str, Any], name: str) -> str:
    """The row's address in `name` ("" when it has none): every link a row gives (`url`,
    `code`) passes this one rule; ValueError naming the field otherwise."""
    value = row.get(name)
    if value is None or value == "":
        return ""
    url = str(value).strip() if isinstance(value, str) else ""
    # One address: code links are kept space-separated, so a space would smuggle in another
    # ("https://x javascript:alert(1)").
    if not is_safe_url(url) or len(url) > MAX_URL_CHARS or any(c.isspace() for c in url):
        raise ValueError(f"{name} {str(value)[:60]!r} is not an http(s) address of at most "
                         f"{MAX_URL_CHARS:,} characters")
    return storable(name, url)


def _tldr(row: dict[str, Any]) -> str:
    value = row.get("tldr")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"tldr must be text, found {type(value).__name__}")
    return drop_invisible(storable("tldr", " ".join(value.split())))[:MAX_TLDR_CHARS]


def read_people(row: dict[str, Any], problems: list[str]) -> People:
    """The row's people and links; each malformed field is left out and described in
    `problems`."""
    found: dict[str, Any] = {}
    readers: dict[str, Callable[[], Any]] = {
        "institutions": lambda: _places(row, "institutions"),
        "countries": lambda: _places(row, "countries"),
        "code": lambda: read_url(row, "code"),
        "tldr": lambda: _tldr(row),
    }
    for name, read in readers.items():
        try:
            found[name] = read()
        except ValueError as error:
            problems.append(str(error))
    try:
        found["authors"], found["affiliations"] = _authors(row, problems)
    except ValueError as error:
        problems.append(str(error))
    return People(**found)


def origin_rows(paper_id: str, edition_slug: str,
                people: People) -> Iterator[dict[str, object]]:
    """The paper's institutions and countries as PaperOrigin rows."""
    for kind, names in (("institution", people.institutions), ("country", people.countries)):
        for name in names:
            yield {"paper_id": paper_id, "kind": kind, "slug": name_slug(name), "name": name,
                   "edition_slug": edition_slug}

