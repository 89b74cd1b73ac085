"""The people fields of a row at their bounds: names cleaned, places merged by slug, authors
and affiliations aligned, links and TL;DRs checked, each problem named exactly."""

from __future__ import annotations

import pytest

from app.ingest import people
from app.ingest.people import People, items, origin_rows, read_people, storable
from app.words import clean_name


@pytest.mark.parametrize(("text", "name"), [
    ("  Ada   Lovelace ", "Ada Lovelace"),
    ("; Ada Lovelace,*†", "Ada Lovelace"),
    ("·•Grace Hopper‡ |/", "Grace Hopper"),
    ("Jose\u0301 Garci\u0301a", "José García"),  # NFC
    (",;:", ""),
])
def test_clean_name(text: str, name: str):
    assert clean_name(text) == name


def test_clean_name_cuts_at_its_limit_without_a_stray_end():
    assert clean_name("a" * 250) == "a" * 200
    assert clean_name("a" * 199 + ", b") == "a" * 199
    assert clean_name("abc, def", limit=4) == "abc"
    assert clean_name("abcdef", limit=4) == "abcd"


@pytest.mark.parametrize(("text", "problem"), [
    ("a\x00b", "field contains a NUL character (\\u0000)"),
    ("a\ud800b", "field contains a lone UTF-16 surrogate (\\ud800–\\udfff)"),
])
def test_storable_refuses_what_no_column_holds(text: str, problem: str):
    with pytest.raises(ValueError) as raised:
        storable("field", text)
    assert str(raised.value) == problem


def test_storable_drops_control_characters_only():
    assert storable("f", "a\x1b[31mb\x07c\x08\x7f\x85\x9fd\te\nf\x0c") == "a[31mbcd\te\nf"
    assert storable("f", "ünï\u2028côdé") == "ünï\u2028côdé"


@pytest.mark.parametrize(("value", "found"), [
    (None, []), ("", []), ("a; b;;c", ["a", " b", "", "c"]), (["a", "b;c"], ["a", "b;c"]),
    ([], []),
])
def test_items(value: object, found: list[str]):
    assert items({"f": value}, "f") == found
    assert items({}, "f") == []


@pytest.mark.parametrize("value", [3, ["a", 3], {"a": "b"}, [None]])
def test_items_of_another_shape_are_an_error(value: object):
    with pytest.raises(ValueError) as raised:
        items({"authors": value}, "authors")
    assert str(raised.value) == "authors must be a list of names or text separated by ';'"


def read(**row: object) -> tuple[People, list[str]]:
    problems: list[str] = []
    return read_people(row, problems), problems


def test_places_are_distinct_by_slug_as_first_written():
    found, problems = read(institutions=["ETH Zürich", " ETH  Zurich ", "MIT", ";", "mit"],
                           countries="Switzerland; USA;switzerland")
    assert found.institutions == ("ETH Zürich", "MIT")
    assert found.countries == ("Switzerland", "USA")
    assert problems == []


def test_places_are_bounded():
    names = [f"Institute {n}" for n in range(people.MAX_PLACES + 1)]
    assert people.MAX_PLACES == 100
    assert read(institutions=names)[0].institutions == tuple(names[:100])
    assert read(countries=names[:100])[0].countries == tuple(names[:100])


def test_authors_are_distinct_with_their_first_known_affiliation():
    found, problems = read(authors=["Ada", "Bob", "Ada", " ", "Cy"],
                           affiliations=["", "MIT", "Cambridge", "Nowhere", "ETH"])
    assert found.authors == ("Ada", "Bob", "Cy")
    assert found.affiliations == ("Cambridge", "MIT", "ETH")
    assert problems == []


def test_an_author_keeps_the_affiliation_first_written_for_them():
    found, _ = read(authors=["Ada", "Ada"], affiliations=["MIT", "ETH"])
    assert found.affiliations == ("MIT",)


def test_affiliations_that_are_all_unknown_are_none():
    assert read(authors="Ada;Bob", affiliations=" ; ")[0].affiliations == ()


def test_affiliations_are_cut_at_their_own_bound():
    found, _ = read(authors=["Ada"], affiliations=["x" * 400])
    assert found.affiliations == ("x" * 300,)
    assert people.MAX_AFFILIATION_CHARS == 300


def test_misaligned_affiliations_are_left_out_and_named():
    found, problems = read(authors=["Ada", "Bob"], affiliations=["MIT"])
    assert (found.authors, found.affiliations) == (("Ada", "Bob"), ())
    assert problems == ["affiliations: 1 for 2 authors, so which is whose is unknown; "
                        "they are left out"]


def test_malformed_affiliations_leave_the_authors():
    found, problems = read(authors=["Ada"], affiliations=[1])
    assert found.authors == ("Ada",) and found.affiliations == ()
    assert problems == ["affiliations must be a list of names or text separated by ';'"]


def test_malformed_authors_leave_the_rest():
    found, problems = read(authors=7, countries=["France"], tldr="Short.")
    assert found == People(countries=("France",), tldr="Short.")
    assert problems == ["authors must be a list of names or text separated by ';'"]


def test_authors_are_bounded():
    names = [f"Author {n}" for n in range(people.MAX_AUTHORS + 1)]
    found, _ = read(authors=names, affiliations=[f"Lab {n}" for n in range(201)])
    assert people.MAX_AUTHORS == 200
    assert found.authors == tuple(names[:200]) and len(found.affiliations) == 200


@pytest.mark.parametrize(("code", "kept"), [
    ("https://github.com/a/b", "https://github.com/a/b"),
    ("  http://x.org/c  ", "http://x.org/c"),
    ("https://x.org/" + "a" * 1986, "https://x.org/" + "a" * 1986),  # 2,000 characters
    ("", ""),
    (None, ""),
])
def test_a_code_link(code: object, kept: str):
    found, problems = read(code=code)
    assert (found.code, problems) == (kept, [])


@pytest.mark.parametrize("code", [
    "https://x.org/" + "a" * 1987, "javascript:alert(1)", "https://x javascript:alert(1)",
    "https://a.org/x\u00a0y", 42, ["https://a.org"], "ftp://a.org/x"])
def test_a_code_link_that_is_not_one_http_address_is_named(code: object):
    found, problems = read(code=code)
    assert found.code == ""
    assert problems == [f"code {str(code)[:60]!r} is not an http(s) address of at most 2,000 "
                        "characters"]


def test_a_tldr_is_one_line_of_text_within_its_bound():
    assert read(tldr="  One\n  line. ")[0].tldr == "One line."
    assert read(tldr="x" * 1001)[0].tldr == "x" * 1000
    assert read(tldr=None) == (People(), [])
    found, problems = read(tldr=["a"])
    assert found.tldr == "" and problems == ["tldr must be text, found list"]
    assert read(tldr="a\x00")[1] == ["tldr contains a NUL character (\\u0000)"]


def test_every_field_read_together():
    found, problems = read(authors="Ada;Bob", affiliations="MIT;", institutions="MIT",
                           countries=["USA"], code="https://g.com/x", tldr="Fast.")
    assert found == People(("Ada", "Bob"), ("MIT", ""), ("MIT",), ("USA",),
                           "https://g.com/x", "Fast.")
    assert problems == []


def test_origin_rows():
    rows = list(origin_rows("p1", "icml-2026", People(institutions=("ETH Zürich",),
                                                      countries=("Switzerland", "USA"))))
    assert rows == [
        {"paper_id": "p1", "kind": "institution", "slug": "eth-zurich", "name": "ETH Zürich",
         "edition_slug": "icml-2026"},
        {"paper_id": "p1", "kind": "country", "slug": "switzerland", "name": "Switzerland",
         "edition_slug": "icml-2026"},
        {"paper_id": "p1", "kind": "country", "slug": "usa", "name": "USA",
         "edition_slug": "icml-2026"}]


def test_an_item_no_column_holds_is_named_by_its_field():
    with pytest.raises(ValueError, match=r"^institutions contains a NUL"):
        items({"institutions": ["a", "b\x00"]}, "institutions")
    assert read(code="https://a.org/\x00")[1] == ["code contains a NUL character (\\u0000)"]
