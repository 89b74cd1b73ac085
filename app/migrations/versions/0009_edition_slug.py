"""The papers' edition is named as its table is: the columns `paper.venue_slug` and
`paperorigin.venue_slug` become `edition_slug`, and the indexes and constraints that said
"venue" say "edition". Rows, URLs and the API's field names are unchanged.

Revision ID: 0009
"""

from alembic import op

revision = "0009"
down_revision = "0008"

TABLES = ("paper", "paperorigin")  # the tables with the column
# Each index over the column: its older name, its name, its table, its columns (as they are
# named after the upgrade), whether it is unique.
INDEXES = (
    ("ix_paper_venue_ordinal", "ix_paper_edition_ordinal", "paper",
     ["edition_slug", "ordinal"], True),
    ("ix_paper_venue_topic", "ix_paper_edition_topic", "paper",
     ["edition_slug", "topic", "ordinal"], False),
    ("ix_paper_topic_venue", "ix_paper_topic_edition", "paper",
     ["topic", "edition_slug", "ordinal"], False),
    ("ix_paperorigin_kind_venue", "ix_paperorigin_kind_edition", "paperorigin",
     ["kind", "edition_slug", "slug", "paper_id"], False),
)
# PostgreSQL's names for the edition's key and the papers' foreign key (SQLite's are unnamed):
# the table, the older name, the name. Renaming a primary key renames its index too.
CONSTRAINTS = (("edition", "venue_pkey", "edition_pkey"),
               ("paper", "paper_venue_slug_fkey", "paper_edition_slug_fkey"))


def upgrade() -> None:
    _rename("venue_slug", "edition_slug", forward=True)


def downgrade() -> None:
    _rename("edition_slug", "venue_slug", forward=False)


def _rename(column: str, new_column: str, forward: bool) -> None:
    """The column renamed in place (SQLite since 3.25 and PostgreSQL rewrite the indexes and
    the foreign key that read it), then the indexes and constraints."""
    for table in TABLES:
        op.alter_column(table, column, new_column_name=new_column)
    postgresql = op.get_bind().dialect.name == "postgresql"
    for old, new, table, columns, unique in INDEXES:
        before, after = (old, new) if forward else (new, old)
        if postgresql:
            op.execute(f"ALTER INDEX {before} RENAME TO {after}")
        else:  # SQLite cannot rename an index: it is made again under its new name
            op.drop_index(before, table)
            op.create_index(after, table, [new_column if name == "edition_slug" else name
                                           for name in columns], unique=unique)
    for table, old, new in CONSTRAINTS if postgresql else ():
        before, after = (old, new) if forward else (new, old)
        op.execute(f"ALTER TABLE {table} RENAME CONSTRAINT {before} TO {after}")
