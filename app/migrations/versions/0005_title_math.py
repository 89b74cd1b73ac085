"""Headlines of titles with TeX math as plain text: "Gradient ℓ1 Regularization", not
"Gradient $\\ell_1$ Regularization", in lists' <title>, feeds, exports and the JSON API (pages
show the math as MathML). The 171 such titles of the corpus were stored verbatim.

Revision ID: 0005
"""

import sqlalchemy as sa
from alembic import op

from app.tex import title_text

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.text(
        "SELECT id, title FROM paper WHERE title LIKE '%$%' OR title LIKE '%\\(%'")).all()
    for paper_id, title in rows:
        connection.execute(sa.text("UPDATE paper SET headline = :headline WHERE id = :id"),
                           {"headline": title_text(title), "id": paper_id})


def downgrade() -> None:
    """Plain headlines read as well under the older code."""
