"""Reading an input's bytes: gzip members inflated, and the bounds that refuse a bomb or an
oversized file while it inflates, at their exact edges."""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

import pytest

from app.ingest import unpack
from app.ingest.listfile import InputError

GZ = Path("list.jsonl.gz")


def test_plain_files_pass_unchanged_and_gz_is_recognized_in_any_case():
    data = gzip.compress(b"abc")
    assert unpack.read_input(Path("list.txt"), data) is data
    assert unpack.read_input(Path("LIST.TXT.GZ"), data) == b"abc"


def refused(data: bytes) -> str:
    """The message of the error reading `data` raises, checked to name the whole file."""
    with pytest.raises(InputError) as raised:
        unpack.read_input(GZ, data)
    assert (raised.value.path, raised.value.line) == (str(GZ), 0)
    return raised.value.message


def test_members_and_padding_between_them_all_inflate():
    data = gzip.compress(b"one\n") + b"\x00" * 5 + gzip.compress(b"two\n") + b"\x00\x00"
    assert unpack.read_input(GZ, data) == b"one\ntwo\n"


@pytest.mark.parametrize("after", [b"X", b"\x00X", b"\x1f"])
def test_bytes_after_the_members_that_are_not_padding_are_an_error(after: bytes):
    assert refused(gzip.compress(b"one\n") + after).startswith("not a readable gzip file")


def test_a_zlib_stream_is_not_a_gzip_file():
    assert refused(zlib.compress(b"one\n")).startswith("not a readable gzip file")


def test_an_empty_gzip_member_inflates_to_nothing():
    assert unpack.read_input(GZ, gzip.compress(b"")) == b""


@pytest.mark.parametrize(("data", "message"), [
    (gzip.compress(b"x" * 5000)[:-9], "not a readable gzip file (it ends in the middle)"),
    (b"not gzip at all", "not a readable gzip file (Error -3 while decompressing data: "
                         "incorrect header check)"),
], ids=["truncated", "not-gzip"])
def test_unreadable_gzip_is_an_error_naming_the_file(data: bytes, message: str):
    assert refused(data) == message


def test_the_size_bound_is_exact(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(unpack, "MAX_INPUT_BYTES", 1000)
    monkeypatch.setattr(unpack, "INFLATE_CHUNK", 64)
    text = os.urandom(500).hex().encode()  # 1,000 bytes that do not compress far
    assert unpack.read_input(GZ, gzip.compress(text)) == text
    assert refused(gzip.compress(text + b"!")) == "decompresses to more than 1,000 bytes"


def test_the_size_bound_counts_every_member(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(unpack, "MAX_INPUT_BYTES", 1000)
    half = os.urandom(300).hex().encode()
    with pytest.raises(InputError, match="more than 1,000 bytes"):
        unpack.read_input(GZ, gzip.compress(half) + gzip.compress(half))


def test_the_ratio_bound_is_exact_past_its_floor(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(unpack, "RATIO_FLOOR", 10_000)
    monkeypatch.setattr(unpack, "INFLATE_CHUNK", 1 << 30)  # one step: the whole output at once
    data = gzip.compress(b"\x00" * 10_000)
    assert len(unpack.read_input(GZ, data)) == 10_000  # at the floor, any ratio passes
    bomb = gzip.compress(b"\x00" * 10_001)
    assert refused(bomb) == ("decompresses to more than 100 times its size, which text does "
                             "not; a decompression bomb is refused")
    monkeypatch.setattr(unpack, "MAX_GZIP_RATIO", 10_001 // len(bomb))
    with pytest.raises(InputError):
        unpack.read_input(GZ, bomb)
    monkeypatch.setattr(unpack, "MAX_GZIP_RATIO", 10_001 // len(bomb) + 1)
    assert len(unpack.read_input(GZ, bomb)) == 10_001


def test_a_file_inflating_exactly_the_ratio_passes(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(unpack, "RATIO_FLOOR", 0)
    size, data = next((n, d) for n in range(10_000, 20_000)
                      if n % len(d := gzip.compress(b"\x00" * n, mtime=0)) == 0)
    monkeypatch.setattr(unpack, "MAX_GZIP_RATIO", size // len(data))
    monkeypatch.setattr(unpack, "INFLATE_CHUNK", 1 << 30)
    assert len(unpack.read_input(GZ, data)) == size


def test_a_bomb_stops_after_a_chunk_past_the_floor(monkeypatch: pytest.MonkeyPatch):
    """The real bounds: 17 MB of zeros (0.1 % of its size compressed) is refused, having
    inflated no more than the floor and one chunk."""
    steps: list[int] = []

    class Counting(bytearray):
        def __iadd__(self, other: bytes) -> Counting:
            steps.append(len(other))
            return super().__iadd__(other)

    monkeypatch.setattr(unpack, "bytearray", Counting, raising=False)
    with pytest.raises(InputError, match="decompression bomb"):
        unpack.read_input(GZ, gzip.compress(b"\x00" * (17 << 20)))
    assert sum(steps) <= unpack.RATIO_FLOOR + unpack.INFLATE_CHUNK
    assert max(steps) <= unpack.INFLATE_CHUNK


def test_the_documented_bounds():
    """docs and error messages quote these: 1 GiB, 100 times past 16 MiB, 1 MiB steps."""
    assert (unpack.MAX_INPUT_BYTES, unpack.MAX_GZIP_RATIO, unpack.RATIO_FLOOR,
            unpack.INFLATE_CHUNK) == (1 << 30, 100, 16 << 20, 1 << 20)
