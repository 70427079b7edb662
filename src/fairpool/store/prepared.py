"""Statements compiled once per database dialect and run on the driver's own cursor.

The schedd's group commit runs a few statements at each job's start and end. SQLAlchemy's
execution of a statement (the compiled cache's lookup, an execution context, a result)
costs tens of microseconds around the driver's ``executemany``, more than SQLite's own
work on a row. A ``Prepared`` statement is compiled once per dialect into the driver's
SQL and parameter order, and run with the driver's cursor inside the connection's
transaction (the driver keeps the statement prepared by its text). It suits plain
writes whose columns need no type conversion (integers, floats, text), such as the job
queue's rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.sql import ClauseElement

__all__ = ["Prepared"]


class Prepared:
    """A statement with bound parameters, ready for the driver of any dialect."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[tuple[str, str, str], tuple[str, tuple[str, ...] | None]] = {}

    def run(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Execute once per row (each a mapping of parameter name to value), in
        ``conn``'s transaction."""
        if not rows:
            return
        sql, order = self._for(conn)
        params: Sequence[Any] = rows if order is None else [[r[n] for n in order] for r in rows]
        cursor = conn.connection.cursor()
        try:
            cursor.executemany(sql, params)
        finally:
            cursor.close()

    def _for(self, conn: Connection) -> tuple[str, tuple[str, ...] | None]:
        """The driver's SQL and, for a positional paramstyle, the parameters' order."""
        dialect = conn.dialect
        key = (dialect.name, dialect.driver, dialect.paramstyle)
        found = self._compiled.get(key)
        if found is None:
            compiled = self.statement.compile(dialect=dialect)
            order = tuple(compiled.positiontup or ()) if compiled.positional else None
            found = self._compiled[key] = (str(compiled), order)
        return found
