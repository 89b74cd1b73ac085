"""The bounded caches and the single-flight computation every cached result goes through."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.cache import BoundedCache, ComputedOnce


def test_bounded_cache_drops_the_least_recently_used_by_size_and_count():
    cache: BoundedCache[str, bytes] = BoundedCache(max_size=10, max_entries=3, size=len)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    assert cache.get("a") == b"1234"  # now the most recently used
    cache.put("c", b"1234")  # 12 bytes: "b", the least recently used, goes
    assert cache.get("b") is None and cache.get("a") and cache.get("c")
    assert cache.size == 8
    cache.put("d", b"1")
    cache.put("e", b"1")  # four entries: "a" goes
    assert cache.get("a") is None and len(cache) == 3 and cache.size == 6
    cache.put("c", b"12")  # replacing counts the new size only
    assert cache.size == 4
    cache.put("huge", b"x" * 11)  # larger than the whole cache: not kept, nothing dropped
    assert cache.get("huge") is None and len(cache) == 3


def test_concurrent_askers_share_one_computation():
    once: ComputedOnce[str, int] = ComputedOnce(8)
    calls = []
    started = threading.Event()

    def slow() -> int:
        calls.append(1)
        started.set()
        time.sleep(0.3)
        return 42

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: once.get("k", slow), range(8), timeout=10))
    assert answers == [42] * 8 and len(calls) == 1
    assert once.get("k", lambda: 0) == 42


def test_a_failing_computation_is_retried_by_every_waiter_and_never_kept():
    once: ComputedOnce[str, int] = ComputedOnce(8)
    calls = []
    gate = threading.Barrier(4, timeout=5)

    def failing() -> int:
        calls.append(1)
        time.sleep(0.1)  # the other askers are waiting by now
        raise RuntimeError("index gone")

    def ask(_: int) -> object:
        gate.wait()  # all four ask at the same moment
        try:
            return once.get("k", failing)
        except RuntimeError as error:
            return error

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(ask, range(4), timeout=10))  # a hang fails the test
    assert all(isinstance(outcome, RuntimeError) for outcome in outcomes)
    assert len(calls) == 4  # each waiter, woken by a failure, computed in turn
    assert once.get("k", lambda: 7) == 7 and once.get("k", lambda: 8) == 7


def test_nothing_is_kept_with_no_capacity():
    once: ComputedOnce[str, int] = ComputedOnce(0)
    assert once.get("k", lambda: 1) == 1 and once.get("k", lambda: 2) == 2


@pytest.mark.parametrize("capacity", [1, 2])
def test_results_beyond_capacity_are_recomputed(capacity: int):
    once: ComputedOnce[int, int] = ComputedOnce(capacity)
    calls = []
    for key in [1, 2, 3, 1]:
        once.get(key, lambda key=key: calls.append(key) or key)
    assert calls == [1, 2, 3, 1]
