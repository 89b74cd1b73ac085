"""Keys sorted for prefix lookups, each with how many papers use it: the vocabulary's words and
hyphenated compounds (vocabulary.py), the completions' phrases and author names
(completions.py).

An index generation writes each table once, as arrays (`PrefixTable.arrays`,
held_files.write_array_directory), and every server worker maps them (`PrefixTable.mapped`),
so that the workers share their pages: read from text files into Python lists and dicts, the
vocabulary and the completions were ~25 MB of each worker's private memory at L.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

_LAST = "\U0010ffff"  # sorts after every character a key continues a prefix with


class SortedKeys:
    """Sorted keys as one UTF-8 text and where each begins (one more than keys); a sequence
    of strings, as bisect and Whoosh's list corrector read it."""

    def __init__(self, text: np.ndarray, starts: np.ndarray) -> None:
        self.text, self.starts = text, starts  # uint8, int64
        # Read through memoryviews: half the time of numpy's indexing (a search page reads
        # about 400 keys, most of them bisecting).
        self._text, self._starts = memoryview(text), memoryview(starts).cast("B").cast("q")
        self._count = len(starts) - 1

    @classmethod
    def of(cls, keys: list[str]) -> SortedKeys:
        encoded = [key.encode() for key in keys]
        starts = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)),
                  out=starts[1:])
        return cls(np.frombuffer(b"".join(encoded), dtype=np.uint8), starts)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> str:
        if not 0 <= i < self._count:
            raise IndexError(i)
        return str(self._text[self._starts[i]:self._starts[i + 1]], "utf-8")


@dataclass(frozen=True, eq=False)
class PrefixTable(Mapping[str, int]):
    """Papers per key, keys in order (a mapping, and prefix lookups)."""

    entries: SortedKeys
    counts: np.ndarray  # aligned with the keys

    @classmethod
    def of(cls, counts: Mapping[str, int]) -> PrefixTable:
        keys = sorted(counts)
        return cls(SortedKeys.of(keys),
                   np.fromiter((counts[key] for key in keys), dtype=np.int64, count=len(keys)))

    def arrays(self, name: str) -> dict[str, np.ndarray]:
        """The table's arrays under `name`: what `mapped` reads back."""
        return {f"{name}.text": self.entries.text, f"{name}.starts": self.entries.starts,
                f"{name}.counts": self.counts}

    @classmethod
    def mapped(cls, arrays: dict[str, np.ndarray], name: str) -> PrefixTable:
        """The table `arrays` wrote under `name`, from held_files.mapped_arrays."""
        text, starts, counts = (arrays[f"{name}.{part}"] for part in ("text", "starts", "counts"))
        return cls(SortedKeys(text, starts), counts)

    def __getitem__(self, key: str) -> int:
        at = bisect_left(self.entries, key)
        if at < len(self.entries) and self.entries[at] == key:
            return int(self.counts[at])
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (self.entries[i] for i in range(len(self.entries)))

    def items(self) -> Iterator[tuple[str, int]]:  # type: ignore[override]
        """Each key and its count, in order: a Mapping's items look each key up again (a
        bisect each), 1.6 s for what's new's first use of the vocabulary at 13k papers."""
        return zip(self, self.counts.tolist(), strict=True)

    def __len__(self) -> int:
        return len(self.entries)

    def completions(self, prefix: str, limit: int) -> list[str]:
        """The `limit` most used keys starting with `prefix` (ties alphabetically: in the
        keys' order)."""
        start = bisect_left(self.entries, prefix)
        end = bisect_left(self.entries, prefix + _LAST, start)
        best = np.argsort(-self.counts[start:end], kind="stable")[:max(limit, 0)]
        return [self.entries[start + int(i)] for i in best]
