"""Each cycle's group quota figures (schema version 2).

Revision ID: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "groups",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("quota", sa.Float, nullable=False),
        sa.Column("config_quota", sa.Float, nullable=False),
        sa.Column("dynamic", sa.Integer, nullable=False),
        sa.Column("subtree_quota", sa.Float, nullable=False),
        sa.Column("requested", sa.Float, nullable=False),
        sa.Column("surplus", sa.String, nullable=False),
        sa.Column("sort_key", sa.Float, nullable=False),
        sa.Column("allocated", sa.Float, nullable=False),
    )
