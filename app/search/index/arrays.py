"""Posting lists as arrays beside the index, written when the index is, memory-mapped by
every worker.

Whoosh keeps a term's postings in pickled, compressed blocks; a search that meets a word
for the first time unpickled them in Python (at L, a first-time search's main cost under
load, profiled). Written as plain arrays when a segment is (a bulk build has them sorted
already; an incremental update's segment is decoded from Whoosh's blocks), they are a slice
of a memory-mapped file for every search after, shared by the workers through the page cache.

Layout, per segment and field: `arrays/<segment>.<field>/` with `terms.txt` (the terms, one
a line, in the order of their postings), `starts.npy` (where each term's postings begin; one
more entry than terms), `ids.npy` (segment document numbers, uint32), `weights.npy` (term
frequencies as Whoosh weighs them), `bounds.npy` (where each posting's positions begin, uint32;
one more entry than postings) and `positions.npy`. Deleted documents stay in the arrays, as
in Whoosh's own postings: readers filter them.

Weights and positions are written as float32 and int32, then narrowed to float16 and uint16
where every value stays the same (`narrowed`): a weight is a term's frequency times its
field's boost (1 or 1.5), exact in float16 up to 1,024; a position (a word's place, shifted
past its stop-word count) fits uint16 up to the 16,383rd word of a paper. At L both always
fit: the text field's two files are 39 MB smaller, and a worker that has answered
descriptions (many words, their positions for proximity) holds ~34 MB fewer of their pages.
Readers take either width.

`term_postings` is the one source of a term's postings for matching, scoring and positions:
a slice of these arrays, or where a segment has none, decoded from Whoosh's blocks; either
way one shape, postings.TermPostings.
"""

from __future__ import annotations

import mmap
import os
import shutil
import threading
import uuid
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from whoosh.reading import IndexReader, SegmentReader

from app.cache import BoundedCache
from app.search.index.held_files import mapped_array
from app.search.index.postings import (
    NO_POSTINGS,
    FieldPostings,
    MergedRuns,
    TermPostings,
    as_numpy,
)
from app.search.index.whoosh.reading import decode_positions, decode_postings, open_index

ARRAYS_DIR = "arrays"
FIELDS = ("headline", "text")  # the fields words are searched in
WINDOW = 8 << 20  # bytes of a mapped array a reader of the whole array holds (`windows`)
TERM_STRIDE = 64  # a `TermTable` holds every 64th term, and reads the terms between


def write_arrays(directory: Path) -> None:
    """Write the arrays of every segment of the index that lacks them; drop those of
    segments the index no longer has (merged away)."""
    ix = open_index(directory)
    try:
        with ix.reader() as reader:
            leaves = [leaf for leaf, _ in reader.leaf_readers()]
            wanted = set()
            for leaf in leaves:
                if not isinstance(leaf, SegmentReader):
                    continue
                for fieldname in FIELDS:
                    name = f"{leaf.segment().segment_id()}.{fieldname}"
                    wanted.add(name)
                    if not (directory / ARRAYS_DIR / name).exists():
                        _write_field(leaf, fieldname, directory / ARRAYS_DIR / name)
    finally:
        ix.close()
    for old in (directory / ARRAYS_DIR).glob("*"):
        if old.name not in wanted and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)


def _write_field(reader: SegmentReader, fieldname: str, target: Path) -> None:
    """Decode the segment's postings of the field from Whoosh's blocks and save them."""
    terms: list[bytes] = []
    # Grown in place, a term at a time: a list of each term's arrays joined at the end took
    # twice the memory of the field (645 against 291 MB for L's text, measured).
    starts, bounds = array("q", [0]), array("q", [0])
    ids, weights, positions = array("I"), array("f"), array("i")
    if fieldname in reader.schema:
        for term in reader.lexicon(fieldname):
            found = decode_positions(reader, fieldname, term)
            assert found.bounds is not None and found.positions is not None
            terms.append(term)
            bounds.frombytes((found.bounds[1:] + len(positions)).tobytes())
            for kept, part in ((ids, found.ids), (weights, found.weights),
                               (positions, found.positions)):
                kept.frombytes(part.tobytes())
            starts.append(len(ids))
    postings = FieldPostings(terms, as_numpy(starts, np.int64), as_numpy(ids, np.uint32),
                             as_numpy(weights, np.float32), as_numpy(bounds, np.int64),
                             as_numpy(positions, np.int32))
    saved = ArraysWriter(target, terms, len(postings.ids), len(postings.positions))
    saved.add(postings)
    saved.close()


def arrays_writer(directory: Path, segment: str, fieldname: str,
                  merged: MergedRuns) -> ArraysWriter | None:
    """Where a segment being written puts a field's arrays (a bulk build has its postings
    sorted), if they are kept."""
    if fieldname not in FIELDS:
        return None
    return ArraysWriter(directory / ARRAYS_DIR / f"{segment}.{fieldname}", merged.terms,
                        merged.postings, merged.positions)


class ArraysWriter:
    """A field's arrays written a range of terms at a time, in np.save's bytes, and put in
    place whole when closed."""

    _DTYPES = {"starts": np.int64, "ids": np.uint32, "weights": np.float32,
               "bounds": np.uint32, "positions": np.int32}
    _NARROW = {"weights": np.float16, "positions": np.uint16}

    def __init__(self, target: Path, terms: list[bytes], postings: int, positions: int) -> None:
        self.target = target
        self.tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}")
        self.tmp.mkdir(parents=True)
        (self.tmp / "terms.txt").write_bytes(b"\n".join(terms))
        lengths = {"starts": len(terms) + 1, "ids": postings, "weights": postings,
                   "bounds": postings + 1, "positions": positions}
        self.files = {}
        for name, dtype in self._DTYPES.items():
            out = self.files[name] = (self.tmp / f"{name}.npy").open("wb")
            np.lib.format.write_array_header_1_0(out, {
                "descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                "fortran_order": False, "shape": (lengths[name],)})
        self.postings = self.positions = 0  # written so far
        self._write("starts", np.zeros(1))
        self._write("bounds", np.zeros(1))

    def _write(self, name: str, values: np.ndarray) -> None:
        values.astype(self._DTYPES[name], copy=False).tofile(self.files[name])

    def add(self, postings: FieldPostings) -> None:
        """The next terms' postings (starts and bounds from 0)."""
        assert postings.bounds is not None and postings.positions is not None
        self._write("starts", postings.starts[1:] + self.postings)
        self._write("ids", postings.ids)
        self._write("weights", postings.weights)
        self._write("bounds", postings.bounds[1:] + self.positions)
        self._write("positions", postings.positions)
        self.postings += len(postings.ids)
        self.positions += len(postings.positions)

    def close(self) -> None:
        for out in self.files.values():
            out.close()
        for name, dtype in self._NARROW.items():
            narrowed(self.tmp / f"{name}.npy", dtype)
        os.replace(self.tmp, self.target)


NARROW_BLOCK = 1 << 20  # values checked and written at a time


def narrowed(path: Path, dtype: type[np.generic]) -> bool:
    """Rewrite the saved array in `dtype` if each of its values is the same in it; else leave
    it. A block at a time: the build's peak memory does not grow with it."""
    wide = np.load(path, mmap_mode="r")
    narrow = path.with_name(f".narrow.{path.name}")
    with narrow.open("wb") as out:
        np.lib.format.write_array_header_1_0(out, {
            "descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
            "fortran_order": False, "shape": wide.shape})
        same = True
        for start in range(0, len(wide), NARROW_BLOCK):
            block = np.asarray(wide[start:start + NARROW_BLOCK])
            kept = block.astype(dtype)
            same = np.array_equal(kept, block)
            if not same:
                break
            kept.tofile(out)
    if same:
        os.replace(narrow, path)
    else:
        narrow.unlink()
    return same


def windows(array: np.ndarray) -> Iterator[tuple[int, int]]:
    """The array's ranges of `WINDOW` bytes, in order; where it is memory-mapped, each range's
    pages leave the process's memory once the caller is done with it (`drop_pages`)."""
    if _mapping(array) is None:
        yield 0, len(array)
        return
    step = max(WINDOW // array.itemsize, 1)
    for begin in range(0, len(array), step):
        end = min(begin + step, len(array))
        yield begin, end
        drop_pages(array, begin, end)


def drop_pages(array: np.ndarray, begin: int, end: int) -> None:
    """Let the pages of array[begin:end] go from the process's memory where the array is a
    read-only mapping (they stay in the page cache; a later read maps them again), for a
    caller reading it in order: the page shared with the next range stays. Else a build step
    reading a field's arrays end to end held all of them at its peak, each page read mapping
    its neighbours too (fault-around)."""
    mapping = _mapping(array)
    if mapping is None:
        return
    offset = array.ctypes.data - np.frombuffer(mapping, dtype=np.uint8).ctypes.data
    low, high = (offset + at * array.itemsize for at in (begin, end))
    low -= low % mmap.PAGESIZE
    high = len(mapping) if end == len(array) else high - high % mmap.PAGESIZE
    if high > low:
        mapping.madvise(mmap.MADV_DONTNEED, low, high - low)


def _mapping(array: np.ndarray) -> mmap.mmap | None:
    # (A writable mapping may hold changes of its own: dropped, they would be lost.)
    if array.flags.writeable or not array.flags.c_contiguous:
        return None
    mapping = array.base
    while mapping is not None and not isinstance(mapping, mmap.mmap):
        mapping = getattr(mapping, "base", None)
    return mapping


class TermTable:
    """A field's terms (`terms.txt`, sorted by their UTF-8 bytes as Whoosh sorts them),
    memory-mapped: a term's number is found by bisecting every `stride`th term, held, then
    the terms from there to the next one held, read from the file. A dict of L's terms was
    16 MB of each worker's private memory; this holds 0.3 MB, and a lookup takes a few
    microseconds (a search page looks up about 60)."""

    def __init__(self, path: Path, stride: int = TERM_STRIDE) -> None:
        self.stride = stride
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            self.words = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        ends = np.append(np.flatnonzero(np.frombuffer(self.words, np.uint8) == ord("\n")),
                         size)
        self.count = len(ends) if size else 0
        starts = np.concatenate(([0], ends[:-1] + 1))[:self.count]
        self.strides = [int(start) for start in starts[::stride]]  # where each held term is
        self.firsts = [self.words[start:end] for start, end in zip(
            starts[::stride], ends[::stride], strict=False)]

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        """The terms, in their order."""
        if self.count:
            yield from (term.decode("utf-8") for term in self.words[:].split(b"\n"))

    def get(self, text: str) -> int | None:
        """The term's number, None when the field has no such term."""
        key = text.encode("utf-8")
        block = bisect_right(self.firsts, key) - 1
        if block < 0:
            return None
        end = self.strides[block + 1] - 1 if block + 1 < len(self.strides) else None
        terms = self.words[self.strides[block]:end].split(b"\n")
        at = bisect_left(terms, key)
        return block * self.stride + at if at < len(terms) and terms[at] == key else None


class FieldArrays:
    """One segment's postings of one field, memory-mapped."""

    def __init__(self, path: Path) -> None:
        self.terms = TermTable(path / "terms.txt")
        self.starts = mapped_array(path / "starts.npy")
        self.ids = mapped_array(path / "ids.npy")
        self.weights = mapped_array(path / "weights.npy")
        self.bounds = mapped_array(path / "bounds.npy")
        self.positions = mapped_array(path / "positions.npy")

    def term(self, text: str) -> TermPostings:
        """The term's postings, as slices of the mapped arrays (none when it is absent)."""
        i = self.terms.get(text)
        if i is None:
            return NO_POSTINGS
        start, end = int(self.starts[i]), int(self.starts[i + 1])
        return TermPostings(self.ids[start:end], self.weights[start:end],
                            self.bounds[start:end + 1], self.positions)


_opened: dict[tuple[str, str, str], FieldArrays | None] = {}
_lock = threading.Lock()


def field_arrays(reader: IndexReader, fieldname: str) -> FieldArrays | None:
    """The segment's arrays of the field, or None when the index has none for it (an index
    written before them, or a segment being written)."""
    if not isinstance(reader, SegmentReader) or fieldname not in FIELDS:
        return None
    folder = getattr(reader.storage(), "folder", None)
    if folder is None:
        return None
    segment = reader.segment().segment_id()
    key = (folder, segment, fieldname)
    with _lock:
        if key in _opened:
            return _opened[key]
    path = Path(folder) / ARRAYS_DIR / f"{segment}.{fieldname}"
    try:
        found: FieldArrays | None = FieldArrays(path)
    except OSError:
        found = None
    with _lock:
        if len(_opened) > 256:
            _opened.clear()
        _opened[key] = found
    return found


# Where a segment has no arrays (one an update is writing, or an index written before them),
# decoded postings of whole terms, most recently used kept: decoding unpickles a value per
# posting, and common words come back in many queries. 8 M entries are about 40 MB.
_decoded: BoundedCache[tuple[str, str, object, bool], TermPostings] = BoundedCache(
    8_000_000, size=lambda found: 1 + len(found) + (
        0 if found.positions is None else len(found.positions)))


def term_postings(reader: IndexReader, fieldname: str, word: object,
                  positions: bool = False) -> TermPostings:
    """The term's postings in one segment: a slice of the index's arrays, else decoded from
    Whoosh's blocks (with their positions when asked) and kept. They still hold the
    segment's deleted documents (`deleted_docs`)."""
    arrays = field_arrays(reader, fieldname)
    if arrays is not None and isinstance(word, str):
        return arrays.term(word)
    segment = reader.segment() if isinstance(reader, SegmentReader) else None
    key = None if segment is None else (segment.segment_id(), fieldname, word, positions)
    found = _decoded.get(key) if key is not None else None
    if found is None:
        found = (decode_positions if positions else decode_postings)(reader, fieldname, word)
        if key is not None:
            _decoded.put(key, found)
    return found


def deleted_docs(reader: IndexReader) -> np.ndarray:
    """The segment's deleted document numbers (sorted, int64), which its postings still
    hold."""
    deleted = getattr(reader, "deleted_docs_set", None) or ()
    return np.sort(np.fromiter(deleted, dtype=np.int64, count=len(deleted)))
