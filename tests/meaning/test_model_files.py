"""The sentence encoder's files checked as a server checks them (app/meaning/model_files.py):
whatever damage the wheel's archive holds is a refusal with what to do, never another error
(a 500 on every description); a sound copy needs no wheel; an empty cache is checked by
reading the archive through."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from app.meaning import model_files
from app.meaning.model_files import ModelCheck, ModelMissing, ModelRefused, cached_file


def _archive(path: Path, how: str) -> Path:
    """A small deflated archive of the model's file names, damaged `how`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as written:
        written.writestr("model.safetensors", b"weights " * 1000)
        written.writestr("tokenizer.json", b"{}")
    data = bytearray(path.read_bytes())
    directory = data.index(b"PK\x01\x02")  # the first entry of the central directory
    if how == "a compression method unknown":
        data[directory + 10] = 0x63
    elif how == "flagged as encrypted":
        data[directory + 8] |= 0x01
    elif how == "cut short":
        data = data[:len(data) // 2]
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["a compression method unknown", "flagged as encrypted",
                                 "cut short"])
def test_a_damaged_archive_is_refused_whatever_its_damage(tmp_path: Path, how: str):
    archive = _archive(tmp_path / "model.zip", how)
    with pytest.raises(ModelRefused, match="damaged"):
        cached_file(tmp_path / "cache", "model.safetensors", archive)
    assert not list((tmp_path / "cache").glob("*"))  # nothing half-written is left


def test_a_sound_copy_needs_no_wheel(tmp_path: Path, model_cache: Path,
                                     monkeypatch: pytest.MonkeyPatch):
    def uninstalled() -> Path:
        raise ModelMissing("the model's wheel is not installed")

    cache = tmp_path / "model"
    shutil.copytree(model_cache, cache)
    monkeypatch.setattr(model_files, "packaged_archive", uninstalled)
    assert ModelCheck(cache).current() is None


def test_an_empty_cache_is_checked_by_reading_the_archive_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh node's cache is empty until a process loads the model: a damaged archive had
    gone unnamed by /healthz."""
    archive = _archive(tmp_path / "model.zip", "cut short")
    monkeypatch.setattr(model_files, "packaged_archive", lambda: archive)
    check = ModelCheck(tmp_path / "model")
    assert check.current(read_archive=False) is None  # a server's first seconds
    assert "damaged" in (check.current() or "")
    assert not (tmp_path / "model").exists()  # read through, nothing written
    good = _archive(tmp_path / "good.zip", "sound")
    good.replace(archive)  # another model, whole: its digest is not the one pinned
    assert "SHA-256" in (check.current() or "")
