"""A lane of request threads of its own for work that answers in a millisecond.

Routes run in a few request threads (`CATALOG_THREADS`). Six slow searches (a year range
minus a word: about a second each at 88,000 papers) held all of them, and /healthz and
cached pages queued behind: 1.3 s for a health check. Health checks and the page cache's
version lookup run here instead, where no search can take their thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from anyio import CapacityLimiter, to_thread

T = TypeVar("T")

QUICK_THREADS = 2


class QuickLane:
    """Runs short blocking work in threads that slow requests never hold."""

    def __init__(self, threads: int = QUICK_THREADS) -> None:
        self.threads = threads
        self._limiter: CapacityLimiter | None = None

    async def run(self, work: Callable[[], T]) -> T:
        if self._limiter is None:  # made in the event loop, as anyio asks
            self._limiter = CapacityLimiter(self.threads)
        return await to_thread.run_sync(work, limiter=self._limiter)
