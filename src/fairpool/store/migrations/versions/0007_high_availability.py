"""High availability of the central manager: each HA group's lease, each member's last
contact, and the matches of each committed negotiation cycle (store/leadership.py,
store/match_records.py).

Revision ID: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "had_leases",
        sa.Column("accountant", sa.String, primary_key=True),
        sa.Column("holder", sa.String, nullable=False, server_default=""),
        sa.Column("term", sa.Integer, nullable=False, server_default="0"),
        sa.Column("expires", sa.Float, nullable=False, server_default="0"),
    )
    op.create_table(
        "had_members",
        sa.Column("accountant", sa.String, primary_key=True),
        sa.Column("member", sa.String, primary_key=True),
        sa.Column("seen", sa.Float, nullable=False),
    )
    op.create_table(
        "negotiation_cycles",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("accountant", sa.String, nullable=False),
        sa.Column("holder", sa.String, nullable=False),
        sa.Column("term", sa.Integer, nullable=False),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("committed", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
    )
    op.create_index(
        "ix_negotiation_cycles_accountant_id", "negotiation_cycles", ["accountant", "id"]
    )
    op.create_table(
        "negotiation_matches",
        sa.Column("cycle", sa.Integer, nullable=False),
        sa.Column("slot", sa.String, nullable=False),
        sa.Column("claim", sa.String, nullable=False),
        sa.Column("job", sa.String, nullable=False),
        sa.Column("schedd", sa.String, nullable=False),
        sa.Column("submitter", sa.String, nullable=False),
    )
    op.create_index("ix_negotiation_matches_cycle", "negotiation_matches", ["cycle"])
