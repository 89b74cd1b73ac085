"""A paper's status at its venue (Oral, Spotlight, Poster, ...), from JSON Lines and CSV;
an index that lists a topic's papers in venue order without sorting them (topic pages).

Revision ID: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.add_column(sa.Column("status", sa.String(), nullable=False, server_default=""))
    op.create_index("ix_paper_topic_venue", "paper", ["topic", "venue_slug", "ordinal"])


def downgrade() -> None:
    op.drop_index("ix_paper_topic_venue", "paper")
    with op.batch_alter_table("paper") as batch:
        batch.drop_column("status")
