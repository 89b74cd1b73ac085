"""The catalog as the first release created it: venues, papers, authors, files, word stats.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "catalogstate",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("value", sa.String(), nullable=False),
    )
    op.create_table(
        "sourcefile",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.Column("paper_count", sa.Integer(), nullable=False),
        sa.Column("ingested_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "venue",
        sa.Column("slug", sa.String(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("year", sa.Integer(), nullable=False),
        sa.Column("paper_count", sa.Integer(), nullable=False),
    )
    op.create_index("ix_venue_year", "venue", ["year"])
    op.create_table(
        "wordstat",
        sa.Column("word", sa.String(), primary_key=True),
        sa.Column("df", sa.Integer(), nullable=False),
    )
    op.create_table(
        "paper",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("venue_slug", sa.String(), sa.ForeignKey("venue.slug"), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.String(), nullable=False) for name in (
            "abstract", "plain", "html", "headline", "title", "authors", "url", "keywords",
            "code_urls", "topic", "topic_scores", "keyphrases", "source_file")),
        sa.Column("source_line", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_paper_source_file", "paper", ["source_file"])
    op.create_index("ix_paper_venue_ordinal", "paper", ["venue_slug", "ordinal"], unique=True)
    op.create_index("ix_paper_topic", "paper", ["topic"])
    op.create_index("ix_paper_venue_topic", "paper", ["venue_slug", "topic", "ordinal"])
    op.create_table(
        "paperauthor",
        sa.Column("paper_id", sa.String(), sa.ForeignKey("paper.id"), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("slug", sa.String(), nullable=False),
    )
    op.create_index("ix_paperauthor_slug", "paperauthor", ["slug"])


def downgrade() -> None:
    for table in ("paperauthor", "paper", "wordstat", "venue", "sourcefile", "catalogstate"):
        op.drop_table(table)
