"""A paper's status at its venue (Oral, Spotlight, Poster, ...), from JSON Lines and CSV.

Revision ID: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.add_column(sa.Column("status", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.drop_column("status")
