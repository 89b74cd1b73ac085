"""The papers' sentence vectors (app/meaning): a table of one row per encoded paper, its
digest of the model and text encoded, and the vector. Empty after the upgrade: the encoding
job fills it in the background.

Revision ID: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    op.create_table("paper_vector",
                    sa.Column("paper_id", sa.String(), primary_key=True),
                    sa.Column("digest", sa.String(), nullable=False),
                    sa.Column("vector", sa.LargeBinary(), nullable=False))


def downgrade() -> None:
    op.drop_table("paper_vector")
