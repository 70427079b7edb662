"""The HTCondorView server's samples of the pool (KEEP_POOL_HISTORY), as a collector
has kept them in POOL_HISTORY_DIR since before migrations.

Revision ID: h0001
"""

import sqlalchemy as sa
from alembic import op

revision = "h0001"
down_revision = None
branch_labels = ("pool_history",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resource_samples",
        sa.Column("time", sa.Float, nullable=False),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("state", sa.String, nullable=False),
        sa.Column("activity", sa.String, nullable=False),
    )
    op.create_index("ix_resource_samples_time", "resource_samples", ["time"])
    op.create_table(
        "submitter_samples",
        sa.Column("time", sa.Float, nullable=False),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("running", sa.Integer, nullable=False),
        sa.Column("idle", sa.Integer, nullable=False),
    )
    op.create_index("ix_submitter_samples_time", "submitter_samples", ["time"])
