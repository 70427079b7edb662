"""Many daemons, one database: each row names the daemon it belongs to.

The job queue and history belong to a schedd, the accountant's records to an accountant
(its negotiator's), the persistent ads to a collector, so that several schedds and
negotiators can share one PostgreSQL database. Existing rows get the empty name, which
is that of a daemon in its own database (daemons/context.py: Context.owner).

Revision ID: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# table -> (owner column, the primary key's columns after it, times widened to 64 bits:
# PostgreSQL's INTEGER ends in 2038, and a lease may be set to end after it)
_TIMES = [
    "begin_usage_time",
    "last_usage_time",
    "ceiling_lease_expiration",
    "floor_lease_expiration",
    "factor_lease_expiration",
]
_KEYED = {
    "accountant_meta": ("accountant", ["key"], []),
    "customers": ("accountant", ["name"], _TIMES),
    "groups": ("accountant", ["name"], []),
    "job_clusters": ("schedd", ["cluster"], []),
    "jobs": ("schedd", ["cluster", "proc"], []),
    "collector_ads": ("collector", ["kind", "name", "schedd"], []),
}


def upgrade() -> None:
    for table, (owner, key, times) in _KEYED.items():
        current = sa.Table(table, sa.MetaData(), autoload_with=op.get_bind())
        current.primary_key.name = f"{table}_pkey"  # SQLite's has no name: one to drop it by
        # SQLite cannot change a primary key in place: batch mode copies the table there
        with op.batch_alter_table(table, copy_from=current) as batch:
            batch.add_column(_owner(owner))
            batch.drop_constraint(f"{table}_pkey", type_="primary")
            batch.create_primary_key(f"{table}_pkey", [owner, *key])
            for column in times:
                batch.alter_column(column, type_=sa.BigInteger, existing_nullable=False)
    with op.batch_alter_table("job_history") as batch:
        batch.alter_column("completed", type_=sa.BigInteger, existing_nullable=False)
    op.add_column("job_history", _owner("schedd"))
    op.create_index("ix_job_history_schedd_id", "job_history", ["schedd", "id"])


def _owner(name: str) -> sa.Column:
    return sa.Column(name, sa.String, nullable=False, server_default="")
