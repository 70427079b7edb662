"""Alembic's environment for the state database: fairpool runs it itself (store/schema.py),
on a connection it has opened and locked, inside that connection's transaction, so that
a migration is applied whole or not at all and only one process applies it.

There is no alembic.ini: a new revision is a new file in versions/ whose ``down_revision``
is the head of its branch (``state`` or ``pool_history``), written by hand with Alembic's
operations (op.create_table, op.batch_alter_table for SQLite's table rebuilds), never with
SQL of one dialect; tests/store/test_migrations.py runs it on SQLite and PostgreSQL.
"""

from alembic import context

context.configure(connection=context.config.attributes["connection"])
with context.begin_transaction():
    context.run_migrations()
