"""Topics assigned with the analyzer that folds inflections only (transformer is not
transform), and keyphrases that read as noun phrases: papers stored before had theirs made
with Snowball stems and runs of any words. The search index, whose format changed with the
analyzer, is rebuilt by every node on its own.

Revision ID: 0004
"""

from alembic import op
from sqlmodel import Session

from app.enrich import enrich_all

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    # enrich_all reads through this release's models, which name the editions' table as
    # revision 0007 does and the papers' column as 0009 does: under those names for the while.
    op.rename_table("venue", "edition")
    op.alter_column("paper", "venue_slug", new_column_name="edition_slug")
    with Session(bind=op.get_bind()) as session:
        enrich_all(session)
    op.alter_column("paper", "edition_slug", new_column_name="venue_slug")
    op.rename_table("edition", "venue")


def downgrade() -> None:
    """Topics stay as this release assigned them: the older analyzer is gone with its code."""
