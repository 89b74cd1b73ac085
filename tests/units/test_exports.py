"""Every export format, byte for byte, from papers built in memory: the escapes a reference
manager or spreadsheet depends on are pinned exactly (make mutants runs these)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest

from app import exports
from app.models import Edition, Paper

VENUE = Edition(slug="neurips-2024", name="NeurIPS", year=2024)
URL = "http://cat/p/0123456789abcdef"


def paper(**changes: object) -> Paper:
    fields: dict[str, object] = dict(
        id="0123456789abcdef", edition_slug="neurips-2024", ordinal=0, abstract="x",
        plain="We show 50% of $x_1$ & {y} ~ z^2 \\input{x} cost.", html="",
        headline="The headline…", title="On the $\\alpha$-Divergence of #Things",
        authors="Ada Lovelace\nAlan_Turing", url="https://example.org/p",
        keywords="k one\nk two", status="Oral", keyphrases="kp one\nkp two",
        code_urls="https://github.com/a/b\nhttps://a.io/c", source_file="f.jsonl", source_line=3,
        added_at=datetime(2024, 5, 6, 7, 8, 9))
    fields.update(changes)
    return Paper(**fields)


def url_for(p: Paper) -> str:
    return "http://cat/p/" + p.id


def test_bibtex_escapes_every_special_character_and_drops_backslashes():
    assert exports.bibtex_entry(paper(), VENUE, URL) == (
        "@inproceedings{neurips2024divergence0123,\n"
        "  title = {{On the α-Divergence of \\#Things}},\n"
        "  author = {Ada Lovelace and Alan\\_Turing},\n"
        "  booktitle = {NeurIPS 2024},\n"
        "  year = {2024},\n"
        "  abstract = {We show 50\\% of \\$x\\_1\\$ \\& \\{y\\} \\textasciitilde{} "
        "z\\textasciicircum{}2 input\\{x\\} cost.},\n"
        "  url = {https://example.org/p},\n"
        "  note = {Oral}\n"
        "}\n")


def test_bibtex_without_authors_status_or_url_of_its_own():
    entry = exports.bibtex_entry(paper(authors="", status="", url=""), VENUE, URL)
    assert "author =" not in entry and "note =" not in entry
    assert f"  url = {{{URL}}}\n}}\n" in entry


@pytest.mark.parametrize(("title", "venue_name", "key"), [
    ("The Art of a Thing", "ICML", "icml2024art0123"),
    ("On the of", "ICML", "icml2024paper0123"),  # only stop words
    ("Ça Marche", "ICML", "icml2024ca0123"),  # NFKD keeps the letter without its accent
    ("How We Do It", "中文", "venue2024do0123"),
    ("A An The On Of In For To And This How Zebra", "ICML", "icml2024zebra0123"),
])
def test_bibtex_key(title: str, venue_name: str, key: str):
    venue = Edition(slug="x-2024", name=venue_name, year=2024)
    assert exports.bibtex_key(paper(title=title), venue) == key


def test_title_falls_back_to_the_headline_without_its_ellipsis():
    assert exports.paper_title(paper(title="")) == "The headline"
    assert exports.paper_title(paper(title="", headline="Opening words …")) == "Opening words"
    assert exports.paper_title(paper(title="", headline="Whole sentence.")) == "Whole sentence."
    assert exports.paper_title(paper(title="", headline="Kernels of X…")) == "Kernels of X"


def test_ris_record_tags_in_order_with_keywords():
    assert exports.ris_record(paper(), VENUE, URL) == (
        "TY  - CPAPER\r\nTI  - On the α-Divergence of #Things\r\nAU  - Ada Lovelace\r\n"
        "AU  - Alan_Turing\r\nT2  - NeurIPS 2024\r\nPY  - 2024\r\n"
        "AB  - We show 50% of $x_1$ & {y} ~ z^2 \\input{x} cost.\r\n"
        "UR  - https://example.org/p\r\nID  - 0123456789abcdef\r\nN1  - Oral\r\n"
        "KW  - k one\r\nKW  - k two\r\nER  - \r\n")


def test_ris_record_falls_back_and_leaves_empty_tags_out():
    record = exports.ris_record(
        paper(keywords="", status="", url="", plain="Two\nlines  here."), VENUE, URL)
    assert record == (
        "TY  - CPAPER\r\nTI  - On the α-Divergence of #Things\r\nAU  - Ada Lovelace\r\n"
        "AU  - Alan_Turing\r\nT2  - NeurIPS 2024\r\nPY  - 2024\r\nAB  - Two lines here.\r\n"
        f"UR  - {URL}\r\nID  - 0123456789abcdef\r\nKW  - kp one\r\nKW  - kp two\r\n"
        "ER  - \r\n")  # no N1 for a paper without a status
    assert list(exports.stream_ris([(paper(url=""), VENUE)] * 2, url_for)) == [
        exports.ris_record(paper(url=""), VENUE, URL) + "\r\n"] * 2


def test_coins_is_an_openurl_of_the_paper():
    assert exports.coins(paper(), VENUE) == (
        "ctx_ver=Z39.88-2004&rft_val_fmt=info%3Aofi%2Ffmt%3Akev%3Amtx%3Abook"
        "&rft.genre=proceeding&rft.atitle=On+the+%CE%B1-Divergence+of+%23Things"
        "&rft.btitle=NeurIPS+2024&rft.date=2024&rft.au=Ada+Lovelace&rft.au=Alan_Turing"
        "&rft_id=https%3A%2F%2Fexample.org%2Fp")
    assert "rft_id" not in exports.coins(paper(url=""), VENUE)


def test_csv_row_and_header():
    assert "".join(exports.stream_csv([(paper(), VENUE)], url_for)) == (
        "id,venue,venue_slug,year,status,title,headline,authors,topic,keyphrases,code_urls,"
        "source_file,source_line,page_url,source_url,url,abstract\r\n"
        "0123456789abcdef,NeurIPS 2024,neurips-2024,2024,Oral,"
        "On the $\\alpha$-Divergence of #Things,The headline…,Ada Lovelace; Alan_Turing,"
        "other,kp one; kp two,https://github.com/a/b https://a.io/c,f.jsonl,3,"
        # page_url is the catalog's page, source_url the source's; url (= page_url) is kept
        # for one release.
        "http://cat/p/0123456789abcdef,https://example.org/p,http://cat/p/0123456789abcdef,"
        "x\r\n")


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cells_that_a_spreadsheet_would_run_are_text(start: str):
    text = "".join(exports.stream_csv([(paper(title=start + "SUM(A1)"), VENUE)], url_for))
    assert f"'{start}SUM(A1)" in text
    assert "'On" not in "".join(exports.stream_csv([(paper(), VENUE)], url_for))


def test_csv_streams_every_two_hundred_rows():
    chunks = list(exports.stream_csv([(paper(), VENUE)] * 401, url_for))
    rows = [chunk.count("\r\n") for chunk in chunks]
    assert rows == [201, 200, 1]  # the header travels with the first rows
    header, row = "".join(exports.stream_csv([(paper(), VENUE)], url_for)).split("\r\n")[:2]
    assert "".join(chunks) == header + "\r\n" + (row + "\r\n") * 401


@pytest.mark.parametrize("count", [0, 1, 3])
def test_json_is_one_array(count: int):
    text = "".join(exports.stream_json([(paper(), VENUE)] * count, url_for))
    records = json.loads(text)
    assert len(records) == count and text.startswith("[") and text.endswith("\n]\n")
    assert all(r["id"] == "0123456789abcdef" and r["url"] == URL for r in records)
    assert text.count(",\n{") == max(0, count - 1)


def test_bibtex_stream_separates_entries():
    assert "".join(exports.stream_bibtex([(paper(url=""), VENUE)] * 2, url_for)) == (
        exports.bibtex_entry(paper(url=""), VENUE, URL) + "\n") * 2


def test_atom_feed_escapes_and_dates():
    feed = "".join(exports.stream_atom(
        [(paper(plain="Bad\x00\x0b\ufffe chars & more"), VENUE)], url_for,
        exports.Feed("T<&>", "http://cat/a?x=1&y=2", "http://cat/a")))
    assert feed == (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">\n'
        "  <title>T&lt;&amp;&gt;</title>\n"
        "  <id>http://cat/a?x=1&amp;y=2</id>\n"
        '  <link rel="self" href="http://cat/a?x=1&amp;y=2"/>\n'
        '  <link rel="alternate" type="text/html" href="http://cat/a"/>\n'
        "  <updated>2024-05-06T07:08:09Z</updated>\n"  # its newest entry's
        "  <author><name>ML Paper Catalog</name></author>\n"
        "  <entry>\n"
        "    <title>On the α-Divergence of #Things</title>\n"
        f"    <id>{URL}</id>\n"
        f'    <link href="{URL}"/>\n'
        "    <updated>2024-05-06T07:08:09Z</updated>\n"
        '    <category term="neurips-2024" label="NeurIPS 2024"/>\n'
        "    <summary>Bad chars &amp; more</summary>\n"
        "  </entry>\n"
        "</feed>\n")


def test_atom_dates_are_utc_wherever_the_server_is(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        tokyo = timezone(timedelta(hours=9))
        feed = "".join(exports.stream_atom(
            [(paper(added_at=datetime(2024, 5, 6, 7, 8, 9, tzinfo=tokyo)), VENUE)],
            url_for, exports.Feed("t", 'http://x/"q"', "http://x")))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert 'href="http://x/&quot;q&quot;"' in feed
    assert feed.count("<updated>2024-05-05T22:08:09Z</updated>") == 2  # the feed's, the entry's


def test_an_empty_feed_is_dated_the_same_every_time():
    feed = "".join(exports.stream_atom([], url_for, exports.Feed("t", "http://x/a", "http://x")))
    assert "<updated>1970-01-01T00:00:00Z</updated>" in feed and "<entry>" not in feed


def test_one_table_names_each_formats_media_type_and_writer():
    assert set(exports.WRITERS) == {"csv", "json", "bib", "ris", "atom"}
    assert exports.WRITERS["bib"].media_type.startswith("application/x-bibtex")
    rows = [(paper(url=""), VENUE)]
    feed = exports.Feed("t", "http://x/a", "http://x")
    assert "".join(exports.WRITERS["bib"].write(rows, url_for, feed)) == "".join(
        exports.stream_bibtex(rows, url_for))
