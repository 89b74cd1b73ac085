"""The lemma table read through a memory map gives what LemmInflect's own tables give."""

import subprocess
import sys

import lemminflect
import pytest

from app.search.words.lemma_table import LEMMAS_FILE, lemmas, table_lines


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return table_lines()


def test_the_file_is_what_lemminflect_gives_today(lines: list[str]) -> None:
    assert LEMMAS_FILE.read_text(encoding="utf-8") == "".join(lines)


def test_every_word_finds_lemminflects_lemmas(lines: list[str]) -> None:
    words = [line.split("\t", 1)[0] for line in lines]
    assert len(words) > 60_000
    differing = [word for word in words if lemmas(word) != lemminflect.getAllLemmas(word)]
    assert differing == []


def test_words_the_tables_lack_have_no_lemmas(lines: list[str]) -> None:
    first, last = (line.split("\t", 1)[0] for line in (lines[0], lines[-1]))
    for word in ("", "zzzzzzzzzzzzzzzzzz", "finetuned",
                 "ran\tverb", "aachen", first + "a", last + "z"):
        assert lemmas(word) == lemminflect.getAllLemmas(word) == {}, word
    assert lemmas("Ran") == {"VERB": ("run",)}  # looked up in lowercase


def test_analysis_leaves_lemminflects_tables_unloaded() -> None:
    # Loaded, the tables were 30 MB of every process that analyzes text.
    script = ("import lemminflect\nfrom app.search.words.analysis import analyze\n"
              "print(analyze('Networks were trained and ran'))\n"
              "print(hasattr(lemminflect.Lemmatizer(), 'lemma_dict'))")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    assert run.stdout.split("\n")[:2] == ["('network', 'be', 'train', 'run')", "False"]
