"""The table of editions ("ICML 2026") is named "edition", as its model and pages name it; it
was created as "venue", and a series page is /venues/icml. URLs and the papers' `venue_slug`
column are unchanged.

Revision ID: 0007
"""

from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    # SQLite rewrites the papers' foreign key to the renamed table; PostgreSQL's follows it.
    op.rename_table("venue", "edition")
    op.drop_index("ix_venue_year", "edition")
    op.create_index("ix_edition_year", "edition", ["year"])


def downgrade() -> None:
    op.drop_index("ix_edition_year", "edition")
    op.create_index("ix_venue_year", "edition", ["year"])
    op.rename_table("edition", "venue")
