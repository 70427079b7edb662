"""The accountant's records and its last update time (schema version 1).

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = ("state",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accountant_meta",
        sa.Column("key", sa.String, primary_key=True),
        sa.Column("value", sa.String, nullable=False),
    )
    op.create_table(
        "customers",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("priority", sa.Float, nullable=False),
        sa.Column("factor", sa.Float, nullable=False),
        sa.Column("resources_used", sa.Integer, nullable=False),
        sa.Column("weighted_resources_used", sa.Float, nullable=False),
        sa.Column("hier_weighted_resources_used", sa.Float, nullable=False),
        sa.Column("accumulated_usage", sa.Float, nullable=False),
        sa.Column("weighted_accumulated_usage", sa.Float, nullable=False),
        sa.Column("begin_usage_time", sa.Integer, nullable=False),
        sa.Column("last_usage_time", sa.Integer, nullable=False),
        sa.Column("ceiling", sa.Integer, nullable=False),
        sa.Column("floor", sa.Integer, nullable=False),
    )
