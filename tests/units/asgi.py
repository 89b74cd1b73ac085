"""Running a coroutine from a test, whatever the thread already runs."""

from __future__ import annotations

from asyncio import run
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, from a fresh event loop in a thread of its own: in the whole
    suite, the browser tests' Playwright keeps a loop running in the main thread, where
    `asyncio.run` refuses to start another."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(run, coroutine).result()
