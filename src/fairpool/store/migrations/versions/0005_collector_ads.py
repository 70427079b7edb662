"""The collector's absent and offline ads (schema version 5).

Revision ID: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "collector_ads",
        sa.Column("kind", sa.String, primary_key=True),
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("schedd", sa.String, primary_key=True),
        sa.Column("ad", sa.String, nullable=False),
        sa.Column("expires", sa.Float, nullable=True),
    )
