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
