"""The files an index generation holds beside Whoosh's (generation.held()): lines written
atomically, counts as "key<TAB>papers" lines, read back, and directories of arrays that a
server maps rather than reads, so that every worker shares their pages."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path

import numpy as np


def write_counts(path: Path, counts: Counter[str]) -> None:
    """Write (atomically) "key<TAB>papers" lines, sorted, without keys no paper uses."""
    write_lines(path, (f"{key}\t{n}\n" for key, n in sorted(counts.items()) if n > 0))


def counts_in(path: Path) -> Counter[str]:
    """The counts `write_counts` wrote (none when there is no such file)."""
    counts: Counter[str] = Counter()
    with suppress(FileNotFoundError), open(path, encoding="utf-8") as lines:
        for line in lines:
            key, _, n = line.rstrip("\n").rpartition("\t")
            counts[key] = int(n)
    return counts


def write_lines(path: Path, lines: Iterable[str]) -> None:
    """Write a file of an index generation atomically: readers see the old or the new one."""
    tmp = path.with_name(f"{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.writelines(lines)
    os.replace(tmp, path)


def write_array_directory(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write each array as `name.npy` in a directory that replaces `path` whole: a server
    that mapped the old files keeps reading them, one that opens `path` finds all new ones."""
    tmp, old = (path.with_name(f".{path.name}.{part}") for part in ("tmp", "old"))
    for left in (tmp, old):  # by a write that stopped half-way
        shutil.rmtree(left, ignore_errors=True)
    tmp.mkdir()
    for name, array in arrays.items():
        np.save(tmp / f"{name}.npy", array)
    with suppress(FileNotFoundError):
        os.replace(path, old)
    os.replace(tmp, path)
    shutil.rmtree(old, ignore_errors=True)


def mapped_array(path: Path) -> np.ndarray:
    """The file's array, memory-mapped read-only, as a plain array: each read or slice of
    numpy's memmap runs Python code (4 % of a worker's time under load, profiled; a paper ID's
    lookup bisects one, ~17 reads), a plain array's does not."""
    return np.asarray(np.load(path, mmap_mode="r"))


def mapped_arrays(path: Path, derived: Callable[[], dict[str, np.ndarray]] | None = None
                  ) -> dict[str, np.ndarray]:
    """The arrays `write_array_directory` wrote, by name, as `mapped_array` maps them. Where a
    generation was written before them (served while the keeper rebuilds it), `derived`
    computes them in memory, when given; else there are none."""
    if derived is not None and not path.is_dir():
        return derived()
    return {file.stem: mapped_array(file) for file in sorted(path.glob("*.npy"))}
