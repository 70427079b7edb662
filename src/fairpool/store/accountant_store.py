"""Keeping the accountant's records across restarts.

``save`` writes every changed and deleted record and the last-update time in one
transaction, so the state on disk is always that of a completed step: a crash in the middle
of a negotiation cycle leaves the state of the cycle before. Each accountant's rows carry
its name (``name``: the negotiator's NEGOTIATOR_NAME in a shared database), so negotiators
sharing one database keep their accounting apart, and the negotiators of two central
managers, configured alike, share theirs.

A save may carry a *pending output*: a file the caller has written whole beside its final
name, to be renamed into place once the state is committed (``fairpool negotiate --json``).
The rename is recorded in the same transaction, so if the process dies between the commit
and the rename, the next open of the state finishes it: the state and the output always
end up describing the same cycles.

The same changes are also appended to ``Accountantnew.log`` in HTCondor's accountant-log
format (classadlog.py), for tools that read HTCondor's file: in the state directory, or
where ``log`` says (the negotiator: ACCOUNTANT_DATABASE_FILE, in its SPOOL, wherever the
database is). An HTCondor log found beside an accountant with no records is imported.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, Table, delete, insert, select

from ..accounting.accountant import Accountant, AccountantPolicy
from ..accounting.records import Customer
from ..errors import StateError
from ..textfiles import read_text
from .classadlog import AccountantLog, read_accountant_log
from .database import customers, database_errors, groups, meta, open_database, shown

__all__ = ["AccountantStore"]

_COLUMNS = [c.name for c in customers.columns if c.name != "accountant"]
_FIELDS = [customers.c[name] for name in _COLUMNS]
_PENDING = "pending_output"  # meta key: [written file, final name] of the last save
LOG_NAME = "Accountantnew.log"


class AccountantStore:
    """An accountant's state: in a state directory, at an SQLAlchemy URL, or in the
    database of an engine the caller has opened."""

    def __init__(
        self,
        location: str | Path | Engine,
        log_max_size: int = 1_000_000,
        *,
        create: bool = True,
        name: str = "",
        log: Path | None = None,
    ) -> None:
        """``create=False``: the state must exist already (``StateError`` if not).
        ``log``: the accountant log's path (default: ``Accountantnew.log`` in a state
        directory; none beside a URL or an engine)."""
        if isinstance(location, Engine):
            self.engine = location
        else:
            self.engine = open_database(location, create)
            if log is None and "://" not in str(location):
                log = Path(location) / LOG_NAME
        self.where = shown(self.engine.url)
        self.name = name
        self.log = AccountantLog(log, log_max_size) if log is not None else None
        self.finish_output()

    def load(
        self,
        policy: AccountantPolicy | None = None,
        assign_group: Callable[[str], str | None] | None = None,
    ) -> Accountant:
        with database_errors(self.where), self.engine.connect() as conn:
            rows = conn.execute(select(*_FIELDS).where(self._mine(customers))).mappings().all()
            stored = dict(
                conn.execute(select(meta.c.key, meta.c.value).where(self._mine(meta))).all()
            )
            records = [Customer(**row) for row in rows]
            last_update = float(stored.get("last_update", 0.0))
        if not records and self.log is not None and self.log.path.exists():
            text = read_text(self.log.path, StateError, "the accountant log")
            last_update, records = read_accountant_log(text, str(self.log.path))
        accountant = Accountant(policy, records, last_update, assign_group)
        if not rows and records:
            accountant.changed.update(r.name for r in records)
            self.save(accountant)
        return accountant

    def save(
        self,
        accountant: Accountant,
        group_figures: dict[str, dict[str, Any]] | None = None,
        output: tuple[str, str] | None = None,
        within: Callable[[Connection], None] | None = None,
    ) -> None:
        """Write what changed since the last save (and a cycle's group figures), atomically;
        then rename ``output`` = (written file, final name) into place. ``within`` runs
        first in the same transaction (a high-availability negotiator's fence and match
        records): if it raises, nothing is written."""
        changed = [accountant.customers[n] for n in sorted(accountant.changed)]
        deleted = sorted(accountant.deleted)
        mine = {"accountant": self.name}
        with database_errors(self.where), self.engine.begin() as conn:
            if within is not None:
                within(conn)
            if group_figures is not None:
                conn.execute(delete(groups).where(self._mine(groups)))
                if group_figures:
                    rows = [{**mine, "name": n, **_group_row(f)} for n, f in group_figures.items()]
                    conn.execute(insert(groups), rows)
            if deleted or changed:
                names = deleted + [c.name for c in changed]
                conn.execute(
                    delete(customers).where(self._mine(customers), customers.c.name.in_(names))
                )
            if changed:
                conn.execute(insert(customers), [{**mine, **_row(c)} for c in changed])
            keys = ("last_update", _PENDING)
            conn.execute(delete(meta).where(self._mine(meta), meta.c.key.in_(keys)))
            values = [("last_update", repr(accountant.last_update))]
            if output is not None:
                values.append((_PENDING, json.dumps(list(output))))
            conn.execute(insert(meta), [{**mine, "key": k, "value": v} for k, v in values])
        if self.log is not None:
            self.log.append(accountant, changed, deleted)
        accountant.changed.clear()
        accountant.deleted.clear()
        if output is not None:
            _rename(*output)

    def finish_output(self) -> None:
        """Rename the output the last save committed, if a crash left it unrenamed."""
        with database_errors(self.where), self.engine.connect() as conn:
            query = select(meta.c.value).where(self._mine(meta), meta.c.key == _PENDING)
            value = conn.execute(query).scalar()
        if value is not None:
            _rename(*json.loads(value))

    def group_figures(self) -> dict[str, dict[str, Any]]:
        """The group figures of the last cycle saved (empty without groups)."""
        with database_errors(self.where), self.engine.connect() as conn:
            rows = conn.execute(select(groups).where(self._mine(groups))).mappings().all()
        skip = ("name", "accountant")
        return {row["name"]: {k: v for k, v in row.items() if k not in skip} for row in rows}

    def _mine(self, table: Table) -> ColumnElement[bool]:
        """This accountant's rows of ``table``."""
        return table.c.accountant == self.name


def _rename(written: str, final: str) -> None:
    """Put a committed output in place (nothing to do if that was done already)."""
    with contextlib.suppress(FileNotFoundError):
        os.replace(written, final)


def _group_row(figures: dict[str, Any]) -> dict[str, Any]:
    columns = [c.name for c in groups.columns if c.name not in ("name", "accountant")]
    return {c: (int(figures[c]) if c == "dynamic" else figures[c]) for c in columns}


def _row(record: Customer) -> dict[str, object]:
    data = record.as_dict()
    return {column: data[column] for column in _COLUMNS}
