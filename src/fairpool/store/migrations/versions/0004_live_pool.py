"""The live pool: the schedd's job queue and history, the startd's starters (schema
version 4).

Revision ID: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "job_clusters",
        sa.Column("cluster", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("ad", sa.String, nullable=False),
    )
    op.create_table(
        "jobs",
        sa.Column("cluster", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("proc", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("ad", sa.String, nullable=False),
    )
    op.create_table(
        "job_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("cluster", sa.Integer, nullable=False),
        sa.Column("proc", sa.Integer, nullable=False),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("completed", sa.Integer, nullable=False),
        sa.Column("ad", sa.String, nullable=False),
    )
    op.create_table(
        "starters",
        sa.Column("slot", sa.String, primary_key=True),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("create_time", sa.Float, nullable=False),
        sa.Column("job", sa.String, nullable=False),
    )
