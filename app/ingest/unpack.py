"""An input file's bytes as the parsers read them: gzip inflated, within bounds that a
decompression bomb or an oversized file cannot pass."""

from __future__ import annotations

import zlib
from pathlib import Path

from app.ingest.listfile import InputError

MAX_INPUT_BYTES = 1 << 30
# Text compresses three to five times (the corpus: 3.5); a gzip that inflates a hundred times
# past its first 16 MB is a bomb, not a catalog. The floor lets small repetitive files pass.
MAX_GZIP_RATIO = 100
RATIO_FLOOR = 16 << 20
INFLATE_CHUNK = 1 << 20


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
