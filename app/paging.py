"""One page of a longer list: which page, of how many, and where it starts."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    number: int  # 1-based
    total: int  # items in the whole list
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))

    @property
    def first(self) -> int:
        """The 1-based position of the page's first item in the whole list."""
        return (self.number - 1) * self.per_page + 1

    @property
    def past_the_end(self) -> bool:
        """Past the last page; an empty list has one page, empty."""
        return self.number > self.pages


class PastTheEnd(LookupError):
    """A page asked for past the last of its list: the web answers it 404, so that a crawler
    walking page numbers stops where the list does (it walked on, "Page 10000 of 384")."""


def within_pages(listing: Page[T], unit: str = "page") -> Page[T]:
    """The page, or PastTheEnd when it is past the list's last (a download's `unit` is a
    part)."""
    if listing.past_the_end:
        pages = f"{listing.pages:,} {unit}{'' if listing.pages == 1 else 's'}"
        raise PastTheEnd(f"{unit.capitalize()} {listing.number:,} is past the end: this list "
                         f"has {pages}.")
    return listing
