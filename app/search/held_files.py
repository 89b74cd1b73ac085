"""The small text files an index generation holds beside Whoosh's (generation.HELD): lines
written atomically, and counts as "key<TAB>papers" lines, read back."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path


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
