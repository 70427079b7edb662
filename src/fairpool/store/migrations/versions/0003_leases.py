"""condor_userprio -duration: leased ceilings, floors and factors (schema version 3).

Revision ID: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_COLUMNS = (
    ("ceiling_lease_expiration", sa.Integer, "0"),
    ("ceiling_pre_lease_value", sa.Integer, "-1"),
    ("floor_lease_expiration", sa.Integer, "0"),
    ("floor_pre_lease_value", sa.Integer, "0"),
    ("factor_lease_expiration", sa.Integer, "0"),
    ("factor_pre_lease_value", sa.Float, "0"),
)


def upgrade() -> None:
    for name, kind, default in _COLUMNS:
        op.add_column("customers", sa.Column(name, kind, nullable=False, server_default=default))
