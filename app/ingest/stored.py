"""What an ingest changes in the papers stored before it: rows replaced or removed, and each
edition's ordinals and count once its papers are known."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, text, update
from sqlmodel import Session, col, select

from app.db import batched
from app.models import Edition, Paper, PaperAuthor, PaperOrigin


def delete_papers(session: Session, ids: list[str]) -> None:
    """Delete the papers with their authors and origins."""
    for batch in batched(ids, 500):
        for table in (PaperAuthor, PaperOrigin):
            session.execute(delete(table).where(col(table.paper_id).in_(batch)))
        session.execute(delete(Paper).where(col(Paper.id).in_(batch)))


def replace_papers(session: Session, ids: list[str]) -> dict[str, datetime]:
    """Delete the stored rows that new ones replace; when each was first ingested."""
    first_added: dict[str, datetime] = {}
    for batch in batched(ids, 500):
        first_added.update(session.exec(select(Paper.id, Paper.added_at)
                                        .where(col(Paper.id).in_(batch))).all())
    delete_papers(session, ids)
    return first_added


def renumber_venue(session: Session, slug: str) -> None:
    """Give the venue's papers ordinals 0..n-1 in file and line order; drop it when empty."""
    session.execute(text("UPDATE paper SET ordinal = -1 - ordinal WHERE edition_slug = :slug "
                         "AND ordinal >= 0"), {"slug": slug})
    session.execute(text(
        "UPDATE paper SET ordinal = ranked.n FROM ("
        "  SELECT id, row_number() OVER (ORDER BY source_file, source_line) - 1 AS n"
        "  FROM paper WHERE edition_slug = :slug) AS ranked "
        "WHERE paper.id = ranked.id"
    ), {"slug": slug})
    count = session.exec(select(func.count()).select_from(Paper)
                         .where(Paper.edition_slug == slug)).one()
    if count:
        session.execute(update(Edition).where(Edition.slug == slug).values(paper_count=count))
    else:
        session.execute(delete(Edition).where(Edition.slug == slug))


def papers_per_venue(session: Session) -> dict[str, int]:
    venues = session.exec(select(Edition).order_by(Edition.year.desc(), Edition.name)).all()  # type: ignore[attr-defined]
    return {venue.label: venue.paper_count for venue in venues}
