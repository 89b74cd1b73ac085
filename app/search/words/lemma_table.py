"""LemmInflect's lemma tables as one sorted text file, `lemmas.tsv`, read through a memory map.

Every process on the machine shares the file's pages. Loaded by LemmInflect, the tables were
30 MB of each server worker's private memory, and of the ingest's two processes
(docs/performance.md). A line is a lowercase word, then one field per part of speech:
"data<TAB>NOUN:data,datum". The file is written from LemmInflect itself, which stays the
source: `tests/search/test_lemma_table.py` checks every word against it.

    python -m app.search.words.lemma_table    # writes lemmas.tsv again, after a LemmInflect upgrade
"""

from __future__ import annotations

import mmap
from functools import lru_cache
from pathlib import Path

import lemminflect

LEMMAS_FILE = Path(__file__).with_name("lemmas.tsv")
Lemmas = dict[str, tuple[str, ...]]


@lru_cache(maxsize=16_384)
def lemmas(word: str) -> Lemmas:
    """A word's lemmas by part of speech, as LemmInflect's `getAllLemmas` gives them for the
    lowercase word ({} when the tables do not know it). Not to be modified: it is cached."""
    line = _line_of(word.lower().encode())
    return {} if line is None else _parsed(line.decode())


def _parsed(line: str) -> Lemmas:
    return {part: tuple(written.split(",")) for part, _, written in
            (field.partition(":") for field in line.rstrip("\n").split("\t")[1:])}


def changed_starts(length: int) -> set[tuple[str, str]]:
    """(a word's first `length` letters, a lemma's) for each word of the tables and each of
    its lemmas that starts otherwise ("was" → ("wa", "be"))."""
    pairs = set()
    for line in _table()[:].decode().splitlines():
        word, *fields = line.split("\t")
        pairs.update((word[:length], lemma[:length]) for field in fields
                     for lemma in field.partition(":")[2].split(",")
                     if lemma[:length] != word[:length])
    return pairs


@lru_cache(maxsize=1)
def _table() -> mmap.mmap:
    with open(LEMMAS_FILE, "rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


def _line_of(key: bytes) -> bytes | None:
    """The line of `key`, by bisection over the sorted lines: each step reads the line around
    its midpoint."""
    table = _table()
    low, high = 0, len(table)
    while low < high:
        start = table.rfind(b"\n", 0, (low + high) // 2) + 1
        end = table.find(b"\n", start)
        found = table[start:table.find(b"\t", start, end)]
        if found == key:
            return table[start:end]
        if found < key:
            low = end + 1
        else:
            high = start
    return None


def table_lines() -> list[str]:
    """The file's lines, from LemmInflect's tables: every word they hold, sorted."""
    lemmatizer = lemminflect.Lemmatizer()
    words = sorted({word.lower() for word in
                    (*lemmatizer._getLemmaDict(), *lemmatizer._getOverridesDict())})
    lines = []
    for word in words:
        entry = lemminflect.getAllLemmas(word)
        if not entry:  # a proper noun's key ("Aachen"): a lowercase word never finds it
            continue
        line = "\t".join([word, *(f"{part}:{','.join(written)}"
                                  for part, written in entry.items())]) + "\n"
        if line.count("\n") > 1 or line.split("\t")[0] != word or _parsed(line) != entry:
            raise ValueError(f"LemmInflect's entry cannot be written as a line: {line!r}")
        lines.append(line)
    return lines


if __name__ == "__main__":
    LEMMAS_FILE.write_text("".join(table_lines()), encoding="utf-8")
