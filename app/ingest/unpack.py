"""An input file's bytes as the parsers read them: gzip inflated, within bounds that a
decompression bomb or an oversized file cannot pass."""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

from app.ingest.listfile import InputError

MAX_INPUT_BYTES = 1 << 30
# Text compresses three to five times (the corpus: 3.5); a gzip that inflates a hundred times
# past its first 16 MB is a bomb, not a catalog. The floor lets small repetitive files pass.
MAX_GZIP_RATIO = 100
RATIO_FLOOR = 16 << 20
INFLATE_CHUNK = 1 << 20
NOT_A_FILE = ("not a regular file or a directory; give a list file, a JSON Lines or CSV "
              "export, or a folder")


def read_file(path: Path) -> bytes:
    """The file's bytes, read through one descriptor: a file removed, or swapped for a
    folder or a FIFO, since the ingest listed it is an InputError, never a crash or a wait
    for a writer; one that grows while it is read is refused, not read without end."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once
    except OSError as error:
        raise InputError(path, 0, f"could not be read: {error.strerror}") from None
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise InputError(path, 0, NOT_A_FILE)
        if found.st_size > MAX_INPUT_BYTES:  # read, it would exhaust memory
            raise InputError(path, 0, f"larger than {MAX_INPUT_BYTES:,} bytes; split it "
                                      "into several files")
        with open(descriptor, "rb", closefd=False) as file:
            data = file.read(found.st_size + 1)
    finally:
        os.close(descriptor)
    if len(data) > found.st_size:
        raise InputError(path, 0, "grew while it was read; ingest it once it is written")
    return data


def read_input(path: Path, data: bytes) -> bytes:
    """The file's content, decompressed when its name ends in `.gz`."""
    if path.suffix.lower() != ".gz":
        return data
    try:
        return _inflate(path, data)
    except zlib.error as error:
        raise InputError(path, 0, f"not a readable gzip file ({error})") from None


def _inflate(path: Path, data: bytes) -> bytes:
    """Decompress gzip members chunk by chunk, stopping as soon as the output passes a bound:
    a bomb costs a few megabytes of memory before it is refused, not the gigabyte it claims."""
    out = bytearray()
    pending = data
    while pending:
        inflater = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
        while pending and not inflater.eof:
            out += inflater.decompress(pending, INFLATE_CHUNK)
            pending = inflater.unconsumed_tail
            if len(out) > MAX_INPUT_BYTES:
                raise InputError(path, 0, f"decompresses to more than "
                                    f"{MAX_INPUT_BYTES:,} bytes")
            if len(out) > RATIO_FLOOR and len(out) > MAX_GZIP_RATIO * len(data):
                raise InputError(path, 0, f"decompresses to more than {MAX_GZIP_RATIO} "
                                    "times its size, which text does not; a decompression "
                                    "bomb is refused")
        if not inflater.eof:
            raise InputError(path, 0, "not a readable gzip file (it ends in the middle)")
        pending = inflater.unused_data.lstrip(b"\x00")  # members may follow, or padding
    return bytes(out)
