"""The collector's persistent ad log (COLLECTOR_PERSISTENT_AD_LOG): absent and offline ads.

HTCondor keeps them in a ClassAd log file so that a collector that crashes or restarts
still knows the machines that ought to be in the pool. Here they are rows of one table,
written in a transaction each time an ad turns absent or offline, comes back or expires,
so a kill -9 at any moment loses none. The knob, when set, names an SQLite file of their
own; unset, they go into the pool's database (HTCondor keeps them only in memory then:
docs/compat.md), under the collector's name where several collectors share it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from .database import collector_ads, database_errors, open_database, shown, sqlite_url

__all__ = ["PersistentAd", "PersistentAds"]


@dataclass(frozen=True)
class PersistentAd:
    kind: str  # the ad type, lower case
    name: str
    schedd: str
    obj: dict[str, Any]  # the JSON ad
    expires: float  # epoch seconds; inf: never


class PersistentAds:
    """Absent and offline ads on disk."""

    def __init__(self, engine: Engine, collector: str = "") -> None:
        self.engine = engine
        self.where = shown(engine.url)
        self.collector = collector

    @classmethod
    def at(cls, path: str | None, pool_engine: Engine, collector: str = "") -> PersistentAds:
        """The log the knob names (its own SQLite file, this collector's alone), else
        the pool's database (``collector``: this collector's name there)."""
        if not path:
            return cls(pool_engine, collector)
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        return cls(open_database(sqlite_url(file)))

    def load(self) -> list[PersistentAd]:
        with database_errors(self.where), self.engine.connect() as conn:
            mine = collector_ads.c.collector == self.collector
            rows = conn.execute(select(collector_ads).where(mine)).all()
        return [
            PersistentAd(
                row.kind,
                row.name,
                row.schedd,
                json.loads(row.ad),
                float("inf") if row.expires is None else row.expires,
            )
            for row in rows
        ]

    def save(self, ad: PersistentAd) -> None:
        expires = None if ad.expires == float("inf") else ad.expires
        with database_errors(self.where), self.engine.begin() as conn:
            conn.execute(self._key(delete(collector_ads), ad.kind, ad.name, ad.schedd))
            conn.execute(
                insert(collector_ads).values(
                    collector=self.collector,
                    kind=ad.kind,
                    name=ad.name,
                    schedd=ad.schedd,
                    ad=json.dumps(ad.obj),
                    expires=expires,
                )
            )

    def remove(self, kind: str, name: str, schedd: str) -> None:
        with database_errors(self.where), self.engine.begin() as conn:
            conn.execute(self._key(delete(collector_ads), kind, name, schedd))

    def close(self, pool_engine: Engine) -> None:
        if self.engine is not pool_engine:
            self.engine.dispose()

    def _key(self, statement: Any, kind: str, name: str, schedd: str) -> Any:
        c = collector_ads.c
        return statement.where(
            c.collector == self.collector, c.kind == kind, c.name == name, c.schedd == schedd
        )
