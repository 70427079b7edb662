"""The startd's record of the jobs its starter runs leaves the database: the starter
process writes it in files of its own under SPOOL (starter/records.py), at every job
start, without the database's write lock that the schedd's commits hold.

A pool upgraded after a crash, with jobs still running, loses the rows of those jobs:
stop a pool with ``fairpool pool stop`` (which kills its jobs) before upgrading.

Revision ID: 0008
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("starters")
