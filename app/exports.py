"""Papers out of the catalog: BibTeX, RIS, CSV, JSON and Atom, streamed a batch at a time.
JSON records are the API's paper shape (`paper_json.PaperOut`); CSV has its columns.

Every exporter takes an iterable of (paper, venue) pairs and yields text chunks, so a
50,000-paper venue streams from the database to the client without being held in memory.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, NamedTuple
from urllib.parse import urlencode
from xml.sax.saxutils import escape as xml_escape

from app.ids import slugify
from app.models import Edition, Paper
from app.paper_json import PaperOut
from app.tex import title_text
from app.words import CITATION_KEY_SKIPPED

PaperRows = Iterable[tuple[Paper, Edition]]
CSV_FIELDS = ["id", "venue", "venue_slug", "year", "status", "title", "headline", "authors",
              "topic", "keyphrases", "code_urls", "source_file", "source_line", "page_url",
              "source_url", "url", "abstract"]
_BIBTEX_SPECIAL = re.compile(r"([&%$#_{}])")


def paper_title(paper: Paper) -> str:
    """The title as plain text (its math as Unicode), or the abstract's opening words."""
    return title_text(paper.title) if paper.title else paper.headline.rstrip("…").rstrip()


def bibtex_key(paper: Paper, venue: Edition) -> str:
    """Stable: venue, year, first significant word of the title, four characters of the ID."""
    words = slugify(paper_title(paper)).split("-")  # without accents: "Ça" is "ca"
    word = next((w for w in words if w and w not in CITATION_KEY_SKIPPED), "paper")
    venue_part = re.sub(r"[^a-z0-9]", "", venue.name.lower()) or "venue"
    return f"{venue_part}{venue.year}{word}{paper.id[:4]}"


def _bibtex_value(text: str) -> str:
    text = " ".join(text.replace("\\", " ").split())
    text = _BIBTEX_SPECIAL.sub(r"\\\1", text)
    return text.replace("~", r"\textasciitilde{}").replace("^", r"\textasciicircum{}")


def bibtex_entry(paper: Paper, venue: Edition, url: str) -> str:
    fields = [("title", "{" + _bibtex_value(paper_title(paper)) + "}")]
    if paper.author_list:
        fields.append(("author", " and ".join(_bibtex_value(a) for a in paper.author_list)))
    fields += [
        ("booktitle", _bibtex_value(f"{venue.name} {venue.year}")),
        ("year", str(venue.year)),
        ("abstract", _bibtex_value(paper.plain)),
        ("url", paper.url or url),
    ]
    if paper.status:
        fields.append(("note", _bibtex_value(paper.status)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@inproceedings{{{bibtex_key(paper, venue)},\n{body}\n}}\n"


def coins(paper: Paper, venue: Edition) -> str:
    """The paper as a COinS OpenURL (the `title` of a `span.Z3988`): how reference managers
    find every paper of a list page and offer to import them together."""
    fields = [("ctx_ver", "Z39.88-2004"), ("rft_val_fmt", "info:ofi/fmt:kev:mtx:book"),
              ("rft.genre", "proceeding"), ("rft.atitle", paper_title(paper)),
              ("rft.btitle", venue.label), ("rft.date", str(venue.year))]
    fields += [("rft.au", author) for author in paper.author_list]
    if paper.url:
        fields.append(("rft_id", paper.url))
    return urlencode(fields)


UrlFor = Callable[[Paper], str]


# A spreadsheet runs a cell that starts so as a formula (OWASP, "CSV injection"): such cells
# are written with a leading apostrophe, which spreadsheets show as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _inert(value: object) -> object:
    return f"'{value}" if isinstance(value, str) and value.startswith(_FORMULA_STARTS) else value


def stream_csv(rows: PaperRows, url_for: UrlFor) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for count, (paper, venue) in enumerate(rows, start=1):
        record = PaperOut.of(paper, venue, url_for(paper)).model_dump(include=set(CSV_FIELDS))
        for name in ("keyphrases", "authors"):
            record[name] = "; ".join(record[name])
        record["code_urls"] = " ".join(record["code_urls"])
        writer.writerow({name: _inert(value) for name, value in record.items()})
        if count % 200 == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def stream_json(rows: PaperRows, url_for: UrlFor) -> Iterator[str]:
    yield "["
    for count, (paper, venue) in enumerate(rows):
        prefix = ",\n" if count else "\n"
        yield prefix + PaperOut.of(paper, venue, url_for(paper)).model_dump_json()
    yield "\n]\n"


def stream_bibtex(rows: PaperRows, url_for: UrlFor) -> Iterator[str]:
    for paper, venue in rows:
        yield bibtex_entry(paper, venue, url_for(paper)) + "\n"


def ris_record(paper: Paper, venue: Edition, url: str) -> str:
    """One RIS record (the tagged format reference managers import): a conference paper."""
    def tag(name: str, value: str) -> str:
        value = " ".join(value.split())  # a record's lines are its tags: no line breaks inside
        return f"{name}  - {value}\r\n" if value else ""

    lines = [tag("TY", "CPAPER"), tag("TI", paper_title(paper))]
    lines += [tag("AU", author) for author in paper.author_list]
    lines += [tag("T2", venue.label), tag("PY", str(venue.year)), tag("AB", paper.plain),
              tag("UR", paper.url or url), tag("ID", paper.id), tag("N1", paper.status)]
    lines += [tag("KW", phrase) for phrase in paper.keyword_list or paper.keyphrase_list]
    return "".join(lines) + "ER  - \r\n"


def stream_ris(rows: PaperRows, url_for: UrlFor) -> Iterator[str]:
    for paper, venue in rows:
        yield ris_record(paper, venue, url_for(paper)) + "\r\n"


_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    """Text safe inside an XML element or a double-quoted attribute."""
    return xml_escape(_XML_INVALID.sub("", text), {'"': "&quot;"})


def _atom_time(added: datetime) -> str:
    if added.tzinfo:  # naive from SQLite, which stores UTC
        added = added.astimezone(UTC)
    return added.strftime("%Y-%m-%dT%H:%M:%SZ")


def stream_atom(rows: PaperRows, url_for: UrlFor, feed: Feed) -> Iterator[str]:
    """An Atom 1.0 feed; entries are identified by their permalink, so readers dedupe. The
    feed was last updated when its newest entry was added (the epoch when it has none), not
    when it was asked for: the same catalog gives the same feed."""
    entries = list(rows)  # a feed holds at most a few dozen papers
    updated = max((_atom_time(paper.added_at) for paper, _ in entries),
                  default="1970-01-01T00:00:00Z")
    yield ('<?xml version="1.0" encoding="utf-8"?>\n'
           '<feed xmlns="http://www.w3.org/2005/Atom">\n'
           f"  <title>{_xml(feed.title)}</title>\n"
           f"  <id>{_xml(feed.self_url)}</id>\n"
           f'  <link rel="self" href="{_xml(feed.self_url)}"/>\n'
           f'  <link rel="alternate" type="text/html" href="{_xml(feed.page_url)}"/>\n'
           f"  <updated>{updated}</updated>\n"
           "  <author><name>ML Paper Catalog</name></author>\n")
    for paper, venue in entries:
        url = url_for(paper)
        yield ("  <entry>\n"
               f"    <title>{_xml(paper_title(paper))}</title>\n"
               f"    <id>{_xml(url)}</id>\n"
               f'    <link href="{_xml(url)}"/>\n'
               f"    <updated>{_atom_time(paper.added_at)}</updated>\n"
               f'    <category term="{_xml(venue.slug)}" label="{_xml(venue.label)}"/>\n'
               f"    <summary>{_xml(paper.plain)}</summary>\n"
               "  </entry>\n")
    yield "</feed>\n"


class Feed(NamedTuple):
    """What a list says of itself: its title, its own address and its page's (a feed's
    header; the other formats are the rows alone)."""

    title: str
    self_url: str
    page_url: str


@dataclass(frozen=True)
class Writer:
    """A download format: its media type, and how it writes a list of papers."""

    media_type: str
    write: Callable[[PaperRows, UrlFor, Feed], Iterator[str]]


def _rows_only(stream: Callable[[PaperRows, UrlFor], Iterator[str]]
               ) -> Callable[[PaperRows, UrlFor, Feed], Iterator[str]]:
    return lambda rows, url_for, _: stream(rows, url_for)


ListFormat = Literal["csv", "json", "bib", "ris", "atom"]  # a list of papers
CitationFormat = Literal["bib", "ris"]  # one paper


# Every download format, in one table: the lists' downloads, the reading list's and one
# paper's citation (BibTeX, RIS) take their media type and writer from it.
WRITERS = {
    "csv": Writer("text/csv; charset=utf-8", _rows_only(stream_csv)),
    "json": Writer("application/json", _rows_only(stream_json)),
    "bib": Writer("application/x-bibtex; charset=utf-8", _rows_only(stream_bibtex)),
    "ris": Writer("application/x-research-info-systems; charset=utf-8", _rows_only(stream_ris)),
    "atom": Writer("application/atom+xml; charset=utf-8", stream_atom),
}
