"""Identifiers that ingest stores and pages link to: paper IDs and the slugs of venues,
series and authors. Stable across ingests, so permalinks survive."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def identity_text(raw: str) -> str:
    """The form of an abstract that decides its identity: NFC, single spaces."""
    return " ".join(unicodedata.normalize("NFC", raw).split())


def paper_id(edition_slug: str, raw: str, *told_apart_by: str) -> str:
    """The ID of the paper with abstract `raw` in an edition. `told_apart_by` (a title, a
    digest) gives another paper listed with the same abstract an ID of its own; without it,
    the ID is the abstract's, as every paper had before twins were kept apart."""
    said = "".join(f"\n{identity_text(text)}" for text in told_apart_by)
    digest = hashlib.sha256(f"{edition_slug}\n{identity_text(raw)}{said}".encode()).hexdigest()
    return digest[:16]


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NOT_SLUG.sub("-", ascii_text.lower()).strip("-")


def edition_slug(name: str, year: int) -> str:
    return f"{series_slug(name)}-{year}"


# An ingest asks for the same names again and again: an author's on each of their papers,
# an institution's and a country's on thousands, each of them three times.
@lru_cache(maxsize=65_536)
def name_slug(name: str) -> str:
    """The slug of a name of a person, institution or country (a hash where no letter
    transliterates, as in 李明)."""
    return slugify(name) or hashlib.sha256(name.encode()).hexdigest()[:12]


def series_slug(name: str) -> str:
    """A conference across its years: the edition's slug without its year."""
    return slugify(name) or "venue"


PAPER_ID = re.compile(r"[0-9a-f]{16}")
MAX_LISTED = 500  # papers in a reading list, a shared link or a recommendations request
# A list of IDs as an API parameter accepts it (in either case: parse_paper_ids lowercases).
ID_LIST = r"^[0-9a-fA-F]{16}(,[0-9a-fA-F]{16})*$"


def parse_paper_ids(text: str) -> list[str]:
    """The paper IDs of a comma-separated list (a shared reading list), in order, without
    repeats. Raises ValueError naming the first item that is not an ID, or when there are
    more than `MAX_LISTED`."""
    ids: dict[str, None] = {}
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        if not PAPER_ID.fullmatch(item):
            shown = item if len(item) <= 40 else item[:40] + "…"
            raise ValueError(f"“{shown}” is not a paper ID (16 hexadecimal characters).")
        ids[item] = None
    if len(ids) > MAX_LISTED:
        raise ValueError(f"A list holds at most {MAX_LISTED} papers; this one has {len(ids)}.")
    return list(ids)
