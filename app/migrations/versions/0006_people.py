"""People and places from JSON Lines and CSV: each author's affiliation, the paper's
institutions and countries (also as rows for their pages and facets), its TL;DR, and a digest
of what the row says besides the abstract, so that a re-ingested row with other people or
links replaces the stored paper.

Papers stored before hold none of this. List files carry none: their papers get the digest
of an empty row. JSON Lines and CSV files are marked changed, so the next `catalog ingest` of
the same files reads them again and fills in their papers (same IDs, same first-ingested
dates).

Revision ID: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
COLUMNS = ("affiliations", "institutions", "countries", "tldr", "source_digest")
# The change digest (app/ingest/identity.source_digest) of a row with nothing but its abstract,
# as this revision stored it: copied, so that later changes of the app leave it as it was.
EMPTY_ROW_DIGEST = "af26c4ea436ce551"
# List files' suffixes, looking through .gz (as app/ingest/load.input_format reads them then)
LIST_FILE_SUFFIXES = (".txt", ".txt.gz")


def upgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        for name in COLUMNS:
            batch.add_column(sa.Column(name, sa.String(), nullable=False, server_default=""))
    op.create_table(
        "paperorigin",
        sa.Column("paper_id", sa.String(), sa.ForeignKey("paper.id"), primary_key=True),
        sa.Column("kind", sa.String(), primary_key=True),
        sa.Column("slug", sa.String(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("venue_slug", sa.String(), nullable=False),
    )
    op.create_index("ix_paperorigin_kind_slug", "paperorigin", ["kind", "slug"])
    op.create_index("ix_paperorigin_kind_venue", "paperorigin",
                    ["kind", "venue_slug", "slug", "paper_id"])
    connection = op.get_bind()
    files = connection.execute(sa.text("SELECT name FROM sourcefile")).scalars().all()
    listed = [name for name in files if name.lower().endswith(LIST_FILE_SUFFIXES)]
    tabular = [name for name in files if name not in listed]
    empty = EMPTY_ROW_DIGEST
    for name in listed:
        connection.execute(sa.text("UPDATE paper SET source_digest = :digest "
                                   "WHERE source_file = :name"), {"digest": empty, "name": name})
    for name in tabular:
        connection.execute(sa.text("UPDATE sourcefile SET sha256 = '' WHERE name = :name"),
                           {"name": name})


def downgrade() -> None:
    op.drop_index("ix_paperorigin_kind_venue", "paperorigin")
    op.drop_index("ix_paperorigin_kind_slug", "paperorigin")
    op.drop_table("paperorigin")
    for name in COLUMNS:  # in place (SQLite 3.35+): a batch copy would break paper's references
        op.drop_column("paper", name)
