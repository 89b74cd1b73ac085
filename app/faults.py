"""Faults: the environment's described in one line (`describe`), and pause points for crash
tests. With CATALOG_PAUSE_AT set to a point's name, the process writes that name to the file
CATALOG_PAUSE_FILE names and waits there to be killed, so a test kills it at a known moment
instead of after a guessed delay. Unset, as everywhere but in tests, a pause point is one
environment lookup."""

from __future__ import annotations

import errno
import os
import re
import time
from pathlib import Path

# Free space below which a write that stopped short is taken for a full disk.
NEARLY_FULL_BYTES = 1 << 20
SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


def pause_point(name: str) -> None:
    if os.environ.get("CATALOG_PAUSE_AT") != name:
        return
    Path(os.environ["CATALOG_PAUSE_FILE"]).write_text(name)
    time.sleep(3600)


def _nearly_full(where: Path) -> bool:
    try:
        stat = os.statvfs(where)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < NEARLY_FULL_BYTES


def describe(error: BaseException, where: Path) -> str | None:
    """One line naming an environment fault (the disk, permissions, a lock held elsewhere, a
    damaged database) and the data dir it struck, or None for anything else (a bug: its
    traceback is the report)."""
    if isinstance(error, OSError):
        # numpy's short writes carry no errno ("252000 requested and 193504 written"); by
        # the time they are reported, what was written may have been removed again.
        if error.errno == errno.ENOSPC or error.errno is None and (
                SHORT_WRITE.search(str(error)) or _nearly_full(where)):
            return f"no space left on the device of {where}"
        if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return f"{where} is not writable ({error.strerror}: {error.filename or where})"
        if error.errno == errno.EDQUOT:
            return f"the disk quota of {where} is used up"
    text = str(getattr(error, "orig", None) or error)
    if "database is locked" in text:
        return f"the catalog database in {where} is locked by another process"
    if "readonly database" in text or "read-only" in text:
        return f"the catalog database in {where} is read-only"
    if "unable to open database file" in text:  # SQLite's words for a new one it cannot make
        return (f"{where} is not writable" if not os.access(where, os.W_OK)
                else f"the catalog database in {where} cannot be opened")
    if "disk is full" in text or "No space left" in text:
        return f"no space left on the device of {where}"
    return None
