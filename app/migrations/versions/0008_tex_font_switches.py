"""TeX's older font switches read as their text: "{\\it nonparametric neural networks}" shows
as emphasis, not as "{it nonparametric neural networks}" (235 abstracts of the corpus). The
abstracts that write one are normalized again; their words, and so the index, are the same.

Revision ID: 0008
"""

import sqlalchemy as sa
from alembic import op

from app.ingest.normalize import normalize_abstract
from app.tex import title_text

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.text(
        "SELECT id, abstract, title FROM paper WHERE abstract LIKE :switch ESCAPE '!'"),
        {"switch": "%{\\%"}).all()
    for paper_id, abstract, title in rows:
        normalized = normalize_abstract(abstract)
        connection.execute(sa.text(
            "UPDATE paper SET html = :html, plain = :plain, headline = :headline WHERE id = :id"),
            {"html": normalized.html, "plain": normalized.plain, "id": paper_id,
             "headline": title_text(title) or normalized.headline})


def downgrade() -> None:
    """The older code shows these abstracts as this one normalized them."""
