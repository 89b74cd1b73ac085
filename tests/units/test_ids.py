"""Identifiers pinned exactly: a changed paper ID or slug breaks every permalink."""

from __future__ import annotations

import pytest

from app import ids


def test_identity_text_is_nfc_with_single_spaces():
    assert ids.identity_text(" A \t b\n\n c ") == "A b c"
    assert ids.identity_text("e\u0301") == "\u00e9"  # NFC composes


def test_paper_id_hashes_the_venue_and_the_identity_text():
    # sha256("icml-2026\\nA b")[:16]: changing it orphans every permalink
    assert ids.paper_id("icml-2026", "  A \n b ") == "0452d7f4b06fd2ef"
    assert ids.paper_id("icml-2026", "A b") != ids.paper_id("iclr-2026", "A b")


@pytest.mark.parametrize(("text", "slug"), [
    ("ICML", "icml"),
    ("  Learning -- Theory!! ", "learning-theory"),
    ("Ça Marche", "ca-marche"),  # accents dropped, not the letters
    ("ﬁne", "fine"),  # NFKD splits ligatures
    ("李明", ""),
    ("a_b.c", "a-b-c"),
    ("A9 z0", "a9-z0"),
])
def test_slugify(text: str, slug: str):
    assert ids.slugify(text) == slug


def test_venue_and_series_slugs():
    assert ids.edition_slug("NeurIPS", 2026) == "neurips-2026"
    assert ids.series_slug("Conférence IA") == "conference-ia"
    assert ids.series_slug("会议") == "venue"
    assert ids.edition_slug("会议", 2024) == "venue-2024"


def test_name_slug_hashes_names_without_latin_letters():
    assert ids.name_slug("Sergey Levine") == "sergey-levine"
    assert ids.name_slug("李明") == "aa227102842b"  # sha256 of its UTF-8, 12 digits


A, B = "0123456789abcdef", "fedcba9876543210"


def test_paper_ids_in_order_without_repeats_or_blanks():
    assert ids.parse_paper_ids(f" {B.upper()} ,, {A},{B},") == [B, A]
    assert ids.parse_paper_ids("") == []


@pytest.mark.parametrize(("item", "shown"), [
    ("x" * 40, "x" * 40),
    ("x" * 41, "x" * 40 + "…"),
    (A + "0", A + "0"),
    (A[:15], A[:15]),
    ("0123456789abcdeg", "0123456789abcdeg"),
])
def test_a_bad_id_is_named(item: str, shown: str):
    with pytest.raises(ValueError) as raised:
        ids.parse_paper_ids(f"{A},{item}")
    assert str(raised.value) == f"“{shown}” is not a paper ID (16 hexadecimal characters)."


def test_a_list_holds_at_most_five_hundred():
    listed = [f"{n:016x}" for n in range(ids.MAX_LISTED)]
    assert ids.MAX_LISTED == 500
    assert ids.parse_paper_ids(",".join(listed + listed[:3])) == listed
    with pytest.raises(ValueError) as raised:
        ids.parse_paper_ids(",".join([*listed, f"{501:016x}"]))
    assert str(raised.value) == "A list holds at most 500 papers; this one has 501."
