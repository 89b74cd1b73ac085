"""A change log per catalog version and an identity per catalog, for servers on many nodes.

Every node keeps its own search index and catches up from `catalogchange`. Versions before
this revision were not logged, so an index older than the current version must be rebuilt:
`full_rebuild_version` says so. `catalog_id` tells a node's index which database it reflects.

Revision ID: 0002
"""

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

state = sa.table("catalogstate", sa.column("key", sa.String()), sa.column("value", sa.String()))


def upgrade() -> None:
    op.create_table(
        "catalogchange",
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("paper_id", sa.String(), primary_key=True),
    )
    current = op.get_bind().execute(
        sa.select(state.c.value).where(state.c.key == "catalog_version")).scalar()
    op.bulk_insert(state, [{"key": "catalog_id", "value": uuid.uuid4().hex},
                           {"key": "full_rebuild_version", "value": current or "0"}])


def downgrade() -> None:
    op.drop_table("catalogchange")
    op.execute(state.delete().where(state.c.key.in_(["catalog_id", "full_rebuild_version"])))
