"""HTCondor's accountant log (``Accountantnew.log``): reading it and writing it.

A ClassAd transaction log, one record per line (spec negotiator.md §1.9):
``107 <seq> CreationTimestamp <t>`` opens a compacted file, ``101 <key> * *`` creates an
ad, ``102 <key>`` destroys one, ``103 <key> <attr> <value>`` sets an attribute, and
``105``/``106`` bracket a transaction. Keys are ``Accountant.`` and ``Customer.<name>``.
Reading applies only complete transactions, as HTCondor's replay does. When the file grows
past its maximum size it is rewritten (compacted) to the current state; like HTCondor, the
maximum then grows to twice the compacted size if that is larger (in memory only).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path

from ..accounting.accountant import Accountant
from ..accounting.records import ATTRIBUTE_NAMES, Customer
from ..errors import StateError

__all__ = ["AccountantLog", "read_accountant_log"]

_FIELD_OF = {attr.lower(): name for name, attr in ATTRIBUTE_NAMES.items()}
_INT_FIELDS = {"resources_used", "begin_usage_time", "last_usage_time", "ceiling", "floor"}
_META_KEY = "Accountant."
LOG_NAME = "Accountantnew.log"
_CUSTOMER = "Customer."


class AccountantLog:
    """Appends the accountant's committed changes in HTCondor's log format."""

    def __init__(self, path: Path, max_size: int = 1_000_000) -> None:
        self.path = path
        self.max_size = max_size
        self.configured_max = max_size
        self._known: set[str] | None = None
        self._sequence = 0

    def append(
        self, accountant: Accountant, changed: Iterable[Customer], deleted: Iterable[str]
    ) -> None:
        if not self.path.exists():
            self.compact(accountant)
            return
        known = self._keys()
        lines = ["105 "]
        for name in deleted:
            if _CUSTOMER + name in known:
                lines.append(f"102 {_CUSTOMER}{name}")
                known.discard(_CUSTOMER + name)
        for record in changed:
            lines.extend(_customer_lines(record, new=_CUSTOMER + record.name not in known))
            known.add(_CUSTOMER + record.name)
        lines.append(f"103 {_META_KEY} LastUpdateTime {int(accountant.last_update)}")
        lines.append("106 ")
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if self.path.stat().st_size > self.max_size:
            self.compact(accountant)

    def compact(self, accountant: Accountant) -> None:
        """Rewrite the file as the current state only, atomically."""
        self._sequence += 1
        lines = [
            f"107 {self._sequence} CreationTimestamp {int(accountant.last_update)}",
            f"101 {_META_KEY} * *",
            f"103 {_META_KEY} LastUpdateTime {int(accountant.last_update)}",
        ]
        for name in sorted(accountant.customers):
            lines.extend(_customer_lines(accountant.customers[name], new=True))
        temporary = self.path.with_name(self.path.name + ".tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)
        self._known = {_CUSTOMER + name for name in accountant.customers} | {_META_KEY}
        size = self.path.stat().st_size
        if size * 2 > self.max_size:
            self.max_size = size * 2

    def _keys(self) -> set[str]:
        if self._known is None:
            self._known = set()
            for line in self.path.read_text(encoding="utf-8").splitlines():
                op, _, rest = line.partition(" ")
                key = rest.split(" ", 1)[0]
                if op == "101":
                    self._known.add(key)
                elif op == "102":
                    self._known.discard(key)
                elif op == "107" and key.isdigit():
                    self._sequence = max(self._sequence, int(key))
        return self._known


def _customer_lines(record: Customer, new: bool) -> list[str]:
    key = _CUSTOMER + record.name
    lines = [f"101 {key} * *"] if new else []
    data = record.as_dict()
    for field, attr in ATTRIBUTE_NAMES.items():
        value = data[field]
        text = str(int(value)) if field in _INT_FIELDS else f"{float(value):f}"
        lines.append(f"103 {key} {attr} {text}")
    return lines


def read_accountant_log(text: str, source: str = LOG_NAME) -> tuple[float, list[Customer]]:
    """(last update time, customer records) from an HTCondor accountant log; a value that
    is not a number where one is expected is a ``StateError`` naming the line."""
    ads: dict[str, dict[str, str]] = {}
    pending: list[tuple[str, str, str, str]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        op, _, rest = line.partition(" ")
        parts = rest.split(" ", 2)
        if op == "103" and len(parts) > 2:
            _check_number(parts[1], parts[2], source, number)
        if op == "105":
            pending = []
        elif op == "106":
            for item in pending or ():
                _apply(ads, *item)
            pending = None
        elif op in ("101", "102", "103") and parts and parts[0]:
            item = (
                op,
                parts[0],
                parts[1] if len(parts) > 1 else "",
                parts[2] if len(parts) > 2 else "",
            )
            if pending is None:
                _apply(ads, *item)
            else:
                pending.append(item)
    last_update = float(ads.get(_META_KEY, {}).get("lastupdatetime", "0") or 0)
    records = [
        _customer(key[len(_CUSTOMER) :], attrs)
        for key, attrs in ads.items()
        if key.startswith(_CUSTOMER)
    ]
    return last_update, records


def _check_number(attr: str, value: str, source: str, line: int) -> None:
    if attr.lower() not in _FIELD_OF and attr.lower() != "lastupdatetime":
        return
    try:
        number = float(value.strip().strip('"') or 0)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or abs(number) >= 2**63:
        raise StateError(f"{attr}: expected a number, not {value.strip()[:40]!r}", source, line)


def _apply(ads: dict[str, dict[str, str]], op: str, key: str, attr: str, value: str) -> None:
    if op == "101":
        ads.setdefault(key, {})
    elif op == "102":
        ads.pop(key, None)
    else:
        ads.setdefault(key, {})[attr.lower()] = value.strip()


def _customer(name: str, attrs: dict[str, str]) -> Customer:
    record = Customer(name)
    for attr, value in attrs.items():
        field = _FIELD_OF.get(attr)
        if field is None:
            continue
        number = float(value.strip('"') or 0)
        setattr(record, field, int(number) if field in _INT_FIELDS else number)
    return record
