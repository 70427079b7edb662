"""Each sample names the collector that took it, so that the view collectors of several
central managers can keep their samples in one shared database (the samples are read
by collector and time).

Revision ID: h0002
"""

import sqlalchemy as sa
from alembic import op

revision = "h0002"
down_revision = "h0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("resource_samples", "submitter_samples"):
        op.add_column(table, sa.Column("collector", sa.String, nullable=False, server_default=""))
        op.drop_index(f"ix_{table}_time", table)
        op.create_index(f"ix_{table}_collector_time", table, ["collector", "time"])
