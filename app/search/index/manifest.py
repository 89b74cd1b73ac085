"""Every file of an index generation with its size and CRC-32 (the `manifest`), written when
the generation is published and checked by every process that opens or updates it, as Lucene
checks a segment's checksum when it opens it: a damaged file (a truncated posting file or
array, a garbled map) is never read. What is found is written in the generation
(`damaged`: the problem, then every damaged file's name), so every process on the node sees it
at the cost of one stat, and the index is rebuilt from the database, or, where every damaged
file is one that is made again on its own (generation.damaged_parts), served without them
until they are.

A file's checksum is computed once per process for each version of it (inode, size, time):
a successor generation shares most files with its predecessor as hard links, so checking it,
or checking the live one again every few seconds, reads only what changed (all of it, 555 MB
at L, takes about 0.3 s).
"""

from __future__ import annotations

import threading
import zlib
from pathlib import Path

from app.search.index.held_files import write_lines

MANIFEST_FILE = "manifest"
DAMAGED_FILE = "damaged"  # what was found wrong, in a generation no process may serve
_CHUNK = 1 << 20

_verified: set[tuple[int, int, int, int, int]] = set()  # (device, inode, size, mtime, crc)
_verified_lock = threading.Lock()


def _crc(path: Path) -> int:
    crc = 0
    with open(path, "rb") as data:
        while chunk := data.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def _listed(directory: Path) -> dict[str, tuple[int, int, int]]:
    """The manifest's files: name → (size, CRC-32, inode when written); none when there is
    no manifest (a generation written before them)."""
    listed = {}
    try:
        lines = (directory / MANIFEST_FILE).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    for line in lines:
        crc, size, inode, name = line.split("\t", 3)
        listed[name] = (int(size), int(crc, 16), int(inode))
    return listed


def write_manifest(directory: Path, previous: Path | None) -> None:
    """List every file of the generation in `directory`, reusing the checksums of the files
    it shares with `previous` (hard links: the same inode and size)."""
    known = _listed(previous) if previous is not None else {}
    lines = []
    for path in sorted(directory.rglob("*")):
        name = path.relative_to(directory).as_posix()
        if not path.is_file() or name in (MANIFEST_FILE, DAMAGED_FILE) or name.endswith("LOCK"):
            continue  # Whoosh's lock: not part of what is served
        stat = path.stat()
        size, crc, inode = known.get(name, (-1, 0, -1))
        if (inode, size) != (stat.st_ino, stat.st_size):
            crc = _crc(path)
        lines.append(f"{crc:08x}\t{stat.st_size}\t{stat.st_ino}\t{name}\n")
    write_lines(directory / MANIFEST_FILE, lines)


def damage_of(directory: Path) -> str | None:
    """What a process found wrong with the generation, if any (one stat when nothing)."""
    try:
        found = (directory / DAMAGED_FILE).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    return found[0].strip() if found and found[0].strip() else "damaged"


def _marked(directory: Path) -> dict[str, str]:
    """The files `verify` found damaged, each with what was wrong (none where the generation
    could not be opened)."""
    try:
        lines = (directory / DAMAGED_FILE).read_text(encoding="utf-8").splitlines()[1:]
    except FileNotFoundError:
        return {}
    return dict(line.partition("\t")[::2] for line in lines)


def damaged_files(directory: Path) -> list[str]:
    return list(_marked(directory))


def mark_damaged(directory: Path, problem: str, files: dict[str, str] | None = None) -> str:
    """Write what was found wrong: the problem, then each damaged file and its own."""
    write_lines(directory / DAMAGED_FILE, [problem + "\n", *(
        f"{name}\t{why}\n" for name, why in (files or {}).items())])
    return problem


def verify(directory: Path) -> str | None:
    """Check every file the generation's manifest lists (sizes, then checksums of what this
    process has not checked yet); what is wrong, if anything, is marked in the generation,
    with every damaged file: whether they can be made again alone depends on all of them.
    Marked so, its other files are checked again each time (their checksums are known: a
    few stats), so that damage found later is not carried into the successor that makes the
    first again."""
    found, marked = damage_of(directory), _marked(directory)
    if found is not None and not marked:
        return found  # it could not be opened: rebuilt whatever else is wrong
    new = {name: problem for name, (size, crc, _) in _listed(directory).items()
           if name not in marked and (problem := _problem(directory, name, size, crc)) is not None}
    if not new:
        return found
    problems = {**marked, **new}
    first = next(iter(problems.values()))
    more = f" (and {len(problems) - 1} more of its files)" if len(problems) > 1 else ""
    return mark_damaged(directory, first + more, problems)


def _problem(directory: Path, name: str, size: int, crc: int) -> str | None:
    """What is wrong with one file of the generation, if anything."""
    path = directory / name
    try:
        stat = path.stat()
    except FileNotFoundError:
        return f"{name} is missing from the index generation {directory.name}"
    if stat.st_size != size:
        return (f"{name} of the index generation {directory.name} is {stat.st_size:,} bytes, "
                f"not {size:,}")
    version = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, crc)
    with _verified_lock:
        known = version in _verified
    if not known:
        if _crc(path) != crc:
            return f"{name} of the index generation {directory.name} does not match its checksum"
        with _verified_lock:
            _verified.add(version)
    return None
