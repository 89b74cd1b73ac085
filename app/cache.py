"""Bounded, thread-safe caches: the most recently used values up to a total size, and values
computed once even when many requests ask for them at the same moment."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """The most recently used values while their sizes (`size`, 1 each by default) add up to
    at most `max_size` and there are at most `max_entries`."""

    def __init__(self, max_size: int, max_entries: int | None = None,
                 size: Callable[[V], int] = lambda _: 1) -> None:
        self.max_size = max_size
        self.max_entries = max_entries
        self._size_of = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    @property
    def size(self) -> int:
        return self._size

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._size = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep the value, dropping the least recently used ones beyond the bounds; a value
        larger than the whole cache is not kept."""
        size = self._size_of(value)
        if size > self.max_size:
            return
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self._size -= self._size_of(old)
            self._values[key] = value
            self._size += size
            while self._size > self.max_size or (
                    self.max_entries is not None and len(self._values) > self.max_entries):
                _, dropped = self._values.popitem(last=False)
                self._size -= self._size_of(dropped)


class ComputedOnce(Generic[K, V]):
    """The most recently used computed values (`capacity` of them, or of their total `size`),
    each computed once even when many requests ask for it at the same moment: the others wait
    for the first one's result, and when that computation fails, one of them computes it in
    turn (nothing failed is kept).

    Without the wait, 16 clients opening the same new paper page each computed the same
    related papers, and the page stopped answering.
    """

    def __init__(self, capacity: int, size: Callable[[V], int] = lambda _: 1) -> None:
        self._values: BoundedCache[K, V] = BoundedCache(capacity, size=size)
        self._pending: dict[K, threading.Event] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every value kept (one being computed is kept when it ends)."""
        self._values.clear()

    def get(self, key: K, compute: Callable[[], V]) -> V:
        while True:
            with self._lock:
                value = self._values.get(key)
                if value is not None:
                    return value
                pending = self._pending.get(key)
                if pending is None:
                    pending = self._pending[key] = threading.Event()
                    break
            pending.wait()
        try:
            value = compute()
            self._values.put(key, value)
            return value
        finally:
            with self._lock:
                del self._pending[key]
            pending.set()
