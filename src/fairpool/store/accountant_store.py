"""Keeping the accountant's records across restarts.

``save`` writes every changed and deleted record and the last-update time in one
transaction, so the state on disk is always that of a completed step: a crash in the middle
of a negotiation cycle leaves the state of the cycle before. Each negotiator has its own
state directory, hence its own accounting.

When a state directory is used, the same changes are also appended to ``Accountantnew.log``
in HTCondor's accountant-log format (classadlog.py), for tools that read HTCondor's file;
an HTCondor log found in a new state directory is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from ..accounting.accountant import Accountant, AccountantPolicy
from ..accounting.records import Customer
from .classadlog import AccountantLog, read_accountant_log
from .database import customers, groups, meta, open_database

__all__ = ["AccountantStore"]

_COLUMNS = [c.name for c in customers.columns]
LOG_NAME = "Accountantnew.log"


class AccountantStore:
    """The accountant's state in a directory (or at an SQLAlchemy URL)."""

    def __init__(self, location: str | Path, log_max_size: int = 1_000_000) -> None:
        self.engine: Engine = open_database(location)
        directory = Path(location) if "://" not in str(location) else None
        self.log = AccountantLog(directory / LOG_NAME, log_max_size) if directory else None

    def load(
        self,
        policy: AccountantPolicy | None = None,
        assign_group: Callable[[str], str | None] | None = None,
    ) -> Accountant:
        with self.engine.connect() as conn:
            rows = conn.execute(select(customers)).mappings().all()
            stored = dict(conn.execute(select(meta.c.key, meta.c.value)).all())
        records = [Customer(**row) for row in rows]
        last_update = float(stored.get("last_update", 0.0))
        if not records and self.log is not None and self.log.path.exists():
            last_update, records = read_accountant_log(self.log.path.read_text())
        accountant = Accountant(policy, records, last_update, assign_group)
        if not rows and records:
            accountant.changed.update(r.name for r in records)
            self.save(accountant)
        return accountant

    def save(
        self, accountant: Accountant, group_figures: dict[str, dict[str, Any]] | None = None
    ) -> None:
        """Write what changed since the last save (and a cycle's group figures), atomically."""
        changed = [accountant.customers[n] for n in sorted(accountant.changed)]
        deleted = sorted(accountant.deleted)
        with self.engine.begin() as conn:
            if group_figures is not None:
                conn.execute(delete(groups))
                if group_figures:
                    rows = [{"name": n, **_group_row(f)} for n, f in group_figures.items()]
                    conn.execute(insert(groups), rows)
            if deleted or changed:
                names = deleted + [c.name for c in changed]
                conn.execute(delete(customers).where(customers.c.name.in_(names)))
            if changed:
                conn.execute(insert(customers), [_row(c) for c in changed])
            conn.execute(delete(meta).where(meta.c.key == "last_update"))
            conn.execute(insert(meta).values(key="last_update", value=repr(accountant.last_update)))
        if self.log is not None:
            self.log.append(accountant, changed, deleted)
        accountant.changed.clear()
        accountant.deleted.clear()

    def group_figures(self) -> dict[str, dict[str, Any]]:
        """The group figures of the last cycle saved (empty without groups)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(groups)).mappings().all()
        return {row["name"]: {k: v for k, v in row.items() if k != "name"} for row in rows}


def _group_row(figures: dict[str, Any]) -> dict[str, Any]:
    columns = [c.name for c in groups.columns if c.name != "name"]
    return {c: (int(figures[c]) if c == "dynamic" else figures[c]) for c in columns}


def _row(record: Customer) -> dict[str, object]:
    data = record.as_dict()
    return {column: data[column] for column in _COLUMNS}
