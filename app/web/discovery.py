"""How browsers, crawlers and programs find the catalog: an OpenSearch description (add the
catalog as a search engine), robots.txt, a sitemap of every browsable page, and the JSON
API's explorer (/docs).

A sitemap file holds at most 50,000 URLs (sitemaps.org); beyond that /sitemap.xml is an index
of one file for the site's own pages, one per conference series and one each for the
authors', institutions' and countries' pages, a file itself split into parts when it alone
is larger.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Annotated
from xml.sax.saxutils import escape

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, PlainTextResponse, Response, StreamingResponse
from sqlmodel import Session

from app import catalog, people, series
from app.topics import load_taxonomy
from app.web.assets import STATIC_DIR, SWAGGER_UI_URL, SWAGGER_UI_VERSION
from app.web.deps import SessionDep, sitemap_chunk
from app.web.render import render
from app.web.urls import paper_path, profile_path, topic_path, venue_path

router = APIRouter(tags=["discovery"])


@router.get("/docs", include_in_schema=False)
def api_docs(request: Request) -> Response:
    """Swagger UI over /openapi.json, in the site's layout."""
    return render(request, "api_docs.html", swagger_ui=SWAGGER_UI_URL,
                  swagger_version=SWAGGER_UI_VERSION)
SITEMAP_URLS = 50_000
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
SHORT_NAME = "ML Papers"  # at most 16 characters, as OpenSearch 1.1 requires

PageUrl = tuple[str, datetime | None]  # a path and when its content last changed


@router.get("/opensearch.xml", name="opensearch")
def opensearch(request: Request) -> Response:
    base = str(request.base_url)
    body = (
        f'{XML_HEAD}<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">\n'
        f"  <ShortName>{SHORT_NAME}</ShortName>\n"
        "  <Description>Search the abstracts of machine-learning conference papers"
        "</Description>\n"
        "  <InputEncoding>UTF-8</InputEncoding>\n"
        '  <Url type="text/html" method="get" '
        f'template="{escape(base)}search?q={{searchTerms}}"/>\n'
        '  <Url type="application/x-suggestions+json" method="get" '
        f'template="{escape(base)}api/suggest?q={{searchTerms}}&amp;format=opensearch"/>\n'
        '  <Url type="application/opensearchdescription+xml" rel="self" '
        f'template="{escape(base)}opensearch.xml"/>\n'
        "</OpenSearchDescription>\n")
    return Response(body, media_type="application/opensearchdescription+xml")


@router.get("/robots.txt", name="robots", response_class=PlainTextResponse)
def robots(request: Request) -> str:
    # Searches, trends and saved lists are endless combinations of query strings; the pages
    # worth indexing are all in the sitemap.
    return ("User-agent: *\n"
            "Disallow: /api/\nDisallow: /search\nDisallow: /trends\nDisallow: /saved\n"
            "Disallow: /*?format=\n"
            f"Sitemap: {request.base_url}sitemap.xml\n")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The icon that pages name in <link rel="icon">, for the clients that ask here."""
    return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml",
                        headers={"cache-control": "public, max-age=86400"})


def _site_pages() -> list[PageUrl]:
    fixed = ["/", "/venues", "/topics", "/help/search", "/authors", "/institutions", "/countries"]
    return [(path, None) for path in fixed] + [
        (topic_path(topic.slug), None) for topic in load_taxonomy().topics]


def _series_pages(session: Session, found: series.Series) -> list[PageUrl]:
    pages: list[PageUrl] = [(venue_path(found.slug), None)]
    pages += [(venue_path(edition.slug), None) for edition in found.editions]
    papers = catalog.papers_added(session, [edition.slug for edition in found.editions])
    return pages + [(paper_path(pid), added) for pid, added in papers]


# The people pages' sitemap files, by the profile kind they list.
PEOPLE_FILES = {"_authors": "author", "_institutions": "institution", "_countries": "country"}


def _people_pages(session: Session, kind: people.Kind) -> list[PageUrl]:
    return [(profile_path(kind, slug), None) for slug in people.all_slugs(session, kind)]


def _urlset(base: str, pages: Iterable[PageUrl]) -> Iterator[str]:
    yield f'{XML_HEAD}<urlset xmlns="{SITEMAP_NS}">\n'
    lines = []
    for path, changed in pages:
        lastmod = f"<lastmod>{changed:%Y-%m-%d}</lastmod>" if changed else ""
        lines.append(f"<url><loc>{escape(base + path)}</loc>{lastmod}</url>\n")
        if len(lines) == 1000:  # a message per URL costs more than the URL through gzip
            yield "".join(lines)
            lines = []
    yield "".join(lines) + "</urlset>\n"


def _xml(body: Iterator[str]) -> StreamingResponse:
    return StreamingResponse(body, media_type="application/xml")


@router.get("/sitemap.xml", name="sitemap")
def sitemap(request: Request, session: SessionDep) -> StreamingResponse:
    base = str(request.base_url).rstrip("/")
    all_series = series.list_series(session)
    pages = _site_pages()
    sizes = {name: people.count_slugs(session, kind) for name, kind in PEOPLE_FILES.items()}
    total = len(pages) + sum(1 + len(s.editions) + s.papers for s in all_series) + sum(
        sizes.values())
    if total <= SITEMAP_URLS:
        return _xml(_urlset(base, pages + [page for found in all_series
                                           for page in _series_pages(session, found)]
                            + [page for kind in PEOPLE_FILES.values()
                               for page in _people_pages(session, kind)]))
    sizes.update({found.slug: 1 + len(found.editions) + found.papers for found in all_series})
    files = [f"{base}/sitemaps/_site.xml"]
    for name, size in sizes.items():
        files += [f"{base}/sitemaps/{name}.xml" + (f"?part={part}" if part > 1 else "")
                  for part in range(1, -(-size // SITEMAP_URLS) + 1)]
    return _xml(iter([f'{XML_HEAD}<sitemapindex xmlns="{SITEMAP_NS}">\n',
                      *(f"<sitemap><loc>{escape(url)}</loc></sitemap>\n" for url in files),
                      "</sitemapindex>\n"]))


def _file_parts(session: Session, name: str) -> list[list[PageUrl]] | None:
    """The parts of one sitemap file by its name; None for a series the catalog lacks."""
    if name == "_site":  # never a series: slugs are letters, digits and dashes
        pages = _site_pages()
    elif name in PEOPLE_FILES:
        pages = _people_pages(session, PEOPLE_FILES[name])
    elif found := series.get_series(session, name):
        pages = _series_pages(session, found)
    else:
        return None
    return [pages[start : start + SITEMAP_URLS] for start in range(0, len(pages), SITEMAP_URLS)]


SitemapChunkDep = Annotated[list[PageUrl], Depends(sitemap_chunk(_file_parts))]


@router.get("/sitemaps/{name}.xml", name="sitemap_part")
def sitemap_part(request: Request, chunk: SitemapChunkDep) -> StreamingResponse:
    """The site's own pages (`_site`), the people pages (`_authors`, `_institutions`,
    `_countries`), or a series' pages (its editions and papers), in parts (`part`)."""
    return _xml(_urlset(str(request.base_url).rstrip("/"), chunk))
