"""Keeping the accountant's records across restarts.

``save`` writes every changed and deleted record and the last-update time in one
transaction, so the state on disk is always that of a completed step: a crash in the middle
of a negotiation cycle leaves the state of the cycle before. Each negotiator has its own
state directory, hence its own accounting.

A save may carry a *pending output*: a file the caller has written whole beside its final
name, to be renamed into place once the state is committed (``fairpool negotiate --json``).
The rename is recorded in the same transaction, so if the process dies between the commit
and the rename, the next open of the state finishes it: the state and the output always
end up describing the same cycles.

When a state directory is used, the same changes are also appended to ``Accountantnew.log``
in HTCondor's accountant-log format (classadlog.py), for tools that read HTCondor's file;
an HTCondor log found in a new state directory is imported.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from ..accounting.accountant import Accountant, AccountantPolicy
from ..accounting.records import Customer
from ..errors import StateError
from ..textfiles import read_text
from .classadlog import AccountantLog, read_accountant_log
from .database import DATABASE_NAME, customers, database_errors, groups, meta, open_database

__all__ = ["AccountantStore"]

_COLUMNS = [c.name for c in customers.columns]
_PENDING = "pending_output"  # meta key: [written file, final name] of the last save
LOG_NAME = "Accountantnew.log"


class AccountantStore:
    """The accountant's state in a directory (or at an SQLAlchemy URL)."""

    def __init__(
        self, location: str | Path, log_max_size: int = 1_000_000, *, create: bool = True
    ) -> None:
        """``create=False``: the state must exist already (``StateError`` if not)."""
        self.engine: Engine = open_database(location, create)
        directory = Path(location) if "://" not in str(location) else None
        self.where = str(directory / DATABASE_NAME) if directory else str(location)
        self.log = AccountantLog(directory / LOG_NAME, log_max_size) if directory else None
        self.finish_output()

    def load(
        self,
        policy: AccountantPolicy | None = None,
        assign_group: Callable[[str], str | None] | None = None,
    ) -> Accountant:
        with database_errors(self.where), self.engine.connect() as conn:
            rows = conn.execute(select(customers)).mappings().all()
            stored = dict(conn.execute(select(meta.c.key, meta.c.value)).all())
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
    ) -> None:
        """Write what changed since the last save (and a cycle's group figures), atomically;
        then rename ``output`` = (written file, final name) into place."""
        changed = [accountant.customers[n] for n in sorted(accountant.changed)]
        deleted = sorted(accountant.deleted)
        with database_errors(self.where), self.engine.begin() as conn:
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
            conn.execute(delete(meta).where(meta.c.key.in_(("last_update", _PENDING))))
            conn.execute(insert(meta).values(key="last_update", value=repr(accountant.last_update)))
            if output is not None:
                conn.execute(insert(meta).values(key=_PENDING, value=json.dumps(list(output))))
        if self.log is not None:
            self.log.append(accountant, changed, deleted)
        accountant.changed.clear()
        accountant.deleted.clear()
        if output is not None:
            _rename(*output)

    def finish_output(self) -> None:
        """Rename the output the last save committed, if a crash left it unrenamed."""
        with database_errors(self.where), self.engine.connect() as conn:
            value = conn.execute(select(meta.c.value).where(meta.c.key == _PENDING)).scalar()
        if value is not None:
            _rename(*json.loads(value))

    def group_figures(self) -> dict[str, dict[str, Any]]:
        """The group figures of the last cycle saved (empty without groups)."""
        with database_errors(self.where), self.engine.connect() as conn:
            rows = conn.execute(select(groups)).mappings().all()
        return {row["name"]: {k: v for k, v in row.items() if k != "name"} for row in rows}


def _rename(written: str, final: str) -> None:
    """Put a committed output in place (nothing to do if that was done already)."""
    with contextlib.suppress(FileNotFoundError):
        os.replace(written, final)


def _group_row(figures: dict[str, Any]) -> dict[str, Any]:
    columns = [c.name for c in groups.columns if c.name != "name"]
    return {c: (int(figures[c]) if c == "dynamic" else figures[c]) for c in columns}


def _row(record: Customer) -> dict[str, object]:
    data = record.as_dict()
    return {column: data[column] for column in _COLUMNS}
