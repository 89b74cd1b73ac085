"""Topics assigned with the analyzer that folds inflections only (transformer is not
transform): papers stored before it had theirs assigned through Snowball stems. The search
index, whose format changed with the analyzer, is rebuilt by every node on its own.

Revision ID: 0004
"""

from alembic import op
from sqlmodel import Session

from app.enrich import reassign_topics

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with Session(bind=op.get_bind()) as session:
        reassign_topics(session)


def downgrade() -> None:
    """Topics stay as this release assigned them: the older analyzer is gone with its code."""
