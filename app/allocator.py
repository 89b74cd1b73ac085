"""What a server worker asks of glibc's allocator, so that its memory does not grow with the
searches it answers (docs/performance.md).

A search page allocates arrays of a few hundred KB (a float32 per document is 352 KB at L)
and frees them again. glibc's mmap threshold rises past such sizes once one is freed, so
they come from the heap, and what is freed there among the objects that stay (cached pages
and results) stays with the process: at L a worker's private memory went 212 -> 226 MB from
1,750 to 6,600 first-time searches, with 36 MB of its heap free. `malloc_trim` hands the
free pages back (0.5-2 ms a call) when the worker goes idle: 192-196 MB after the load.
Under a load that never pauses the heap fills again within seconds (213-217 MB with a trim
every 2 s). A fixed mmap threshold (128 KB) kept those arrays out of the heap under load
too, but each search then faulted them in afresh: +1-2 ms of system CPU a page.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable

M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2
TRIM_INTERVAL = 2.0  # seconds
TRIM_GAP = 0.5  # seconds


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    # Not glibc (musl, macOS): its allocator decides.
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas() -> None:
    """glibc gives each request thread a malloc arena of its own and keeps what was freed in
    it: two arenas hold less memory at the same throughput (docs/performance.md)."""
    libc = _libc()
    if libc is not None:
        libc.mallopt(M_ARENA_MAX, ARENAS)


class Trimmer:
    """A thread that returns the allocator's free pages to the system when the worker goes
    idle (no request in flight), and every TRIM_INTERVAL seconds under a load that never
    pauses; at most once every TRIM_GAP seconds."""

    def __init__(self) -> None:
        self.trims = 0
        self._in_flight = 0  # changed on the event loop's thread only
        self._idle = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def request_started(self) -> None:
        self._in_flight += 1

    def request_finished(self) -> None:
        self._in_flight -= 1
        if self._in_flight == 0:
            self._idle.set()

    def start(self) -> None:
        libc = _libc()
        if libc is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, args=(libc.malloc_trim,),
                                        name="malloc-trim", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._idle.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self, trim: Callable[[int], int]) -> None:
        while True:
            self._idle.wait(TRIM_INTERVAL)
            self._idle.clear()
            if self._stop.is_set():
                return
            trim(0)
            self.trims += 1
            if self._stop.wait(TRIM_GAP):
                return
