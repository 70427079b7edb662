"""Two central managers sharing one PostgreSQL database, for the failover tests
(tests/daemons/test_failover.py) and the take-over benchmark (benchmarks/failover.py).

Each central manager is a process with COLLECTOR, NEGOTIATOR and HAD, its collector one
of the two entries of everyone's COLLECTOR_HOST, the two of them in HAD_LIST; an
execute-and-submit host reports to both. The database's match records are read back
as plain rows, and checked for the two promises of high availability: two negotiators
were never active at once, and no claim was handed out twice.

    with FailoverPool(tmp_path, postgres_url) as pool:
        pool.start_cms()                  # cm1 (primary) active, cm2 standing by
        pool.start_execute(NUM_CPUS=4)
        pool.cycles()                     # every recorded cycle, oldest first
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fairpool.store.database import negotiation_cycles, negotiation_matches, open_database
from hosts import Hosts
from livepool import LivePool

__all__ = ["Cycle", "FailoverPool", "claims_matched_twice", "overlaps"]

INTERVAL = 2  # NEGOTIATOR_INTERVAL
TIMEOUT = 0.08  # HAD_CONNECTION_TIMEOUT: a stabilization period of 12 * 2 * 0.08 = 1.92 s


@dataclass
class Cycle:
    id: int
    holder: str
    term: int
    started: float
    committed: float
    finished: float | None
    claims: list[str] = field(default_factory=list)

    @property
    def end(self) -> float:
        """When its matches were all sent, or (not sent, or the sender died) its commit."""
        return self.finished if self.finished is not None else self.committed


class FailoverPool:
    def __init__(self, root: Path, database: str, **common: object) -> None:
        self.hosts = Hosts(root, collectors=2, NEGOTIATOR_INTERVAL=INTERVAL, **common)
        self.entries = [f"127.0.0.1:{port}" for port in self.hosts.ports]
        self.database = database
        self.engine = open_database(database)
        self.cm: list[LivePool] = []

    def __enter__(self) -> FailoverPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.hosts.__exit__(*exc)
        self.engine.dispose()

    @property
    def stabilization(self) -> float:
        return 12 * len(self.entries) * TIMEOUT

    def central_manager(self, number: int, database: str | None = None, **knobs: object):
        """Central manager ``number`` (0 or 1), not started."""
        extra = {"COLLECTOR_ARGS": f"-p {self.hosts.ports[number]}"} if number else {}
        return self.hosts.host(
            f"cm{number + 1}",
            "COLLECTOR, NEGOTIATOR, HAD",
            DATABASE_URL=database or self.database,
            HAD_LIST=", ".join(self.entries),
            HAD_CONNECTION_TIMEOUT=TIMEOUT,
            NEGOTIATOR_CYCLES_KEPT=10_000,
            **extra,
            **knobs,
        )

    def start_cms(self, *databases: str | None, **knobs: object) -> None:
        """Both central managers, the first one active before the second starts."""
        self.cm = [
            self.central_manager(n, db, **knobs) for n, db in enumerate(databases or (None, None))
        ]
        self.hosts.start(self.cm[0])
        self.wait_active(0, 20)
        self.hosts.start(self.cm[1])

    def start_execute(self, **knobs: object) -> LivePool:
        """One host running a startd and a schedd; each job a claim of its own
        (CLAIM_WORKLIFE = 0), so every job start is a match."""
        host = self.hosts.host(
            "sub1", "STARTD, SCHEDD", STARTD_NAME="exec1", CLAIM_WORKLIFE=0, **knobs
        )
        self.hosts.start(host)
        for number in (0, 1):
            host.wait(
                lambda n=number: self.hosts.ads("Machine", n) and self.hosts.ads("Scheduler", n),
                30,
                f"the host's ads in collector {number}",
            )
        return host

    # -- the central managers' own word ----------------------------------------------------
    def had(self, number: int) -> dict[str, Any] | None:
        """Central manager ``number``'s HAD status (None when it does not answer)."""
        try:
            return self.cm[number].get("/master/status")["had"]
        except Exception:
            return None

    def active(self, number: int) -> bool:
        status = self.had(number)
        return bool(status and status["active"])

    def standing_by(self, number: int) -> dict[str, Any] | None:
        """Central manager ``number``'s HAD status if it answers that it stands by."""
        status = self.had(number)
        return status if status is not None and not status["active"] else None

    def wait_active(self, number: int, seconds: float) -> float:
        """Wait for central manager ``number`` to be active; when it was seen so."""
        LivePool.wait(lambda: self.active(number), seconds, f"cm{number + 1} to be active")
        return time.time()

    # -- the database's records ------------------------------------------------------------
    def cycles(self) -> list[Cycle]:
        """Every recorded cycle with its matches' claim digests, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(negotiation_cycles).order_by(negotiation_cycles.c.id))
            cycles = {row.id: Cycle(*row[:1], *row[2:]) for row in rows}
            for cycle, claim in conn.execute(
                select(negotiation_matches.c.cycle, negotiation_matches.c.claim)
            ):
                cycles[cycle].claims.append(claim)
        return list(cycles.values())

    def first_cycle_of(self, number: int, after: float = 0.0) -> Cycle | None:
        """The first recorded cycle of central manager ``number`` begun after ``after``."""
        mine = [c for c in self.cycles() if c.holder == self.entries[number]]
        return next((c for c in mine if c.started > after), None)


def overlaps(cycles: list[Cycle]) -> list[tuple[Cycle, Cycle]]:
    """Pairs of cycles of different holders whose spans (start to end) overlap."""
    ordered = sorted(cycles, key=lambda c: c.started)
    found = []
    for number, first in enumerate(ordered):
        for later in ordered[number + 1 :]:
            if later.started >= first.end:
                break
            if later.holder != first.holder:
                found.append((first, later))
    return found


def claims_matched_twice(cycles: list[Cycle]) -> list[str]:
    """Claims (ClaimId digests) handed out twice. A slot's ClaimId is good for one claim
    (the startd makes a new one at each claim), so matching it again is right only when
    the earlier match was not used. In these runs every match that reaches the schedd is
    used (each job a claim of its own, CLAIM_WORKLIFE = 0, and the schedd counts only
    the idle jobs no match is starting), so a claim may appear again only after a cycle
    whose matches were not all sent (``finished`` NULL: its negotiator died, or its
    lease ran out, before it sent them)."""
    seen: dict[str, Cycle] = {}
    twice = []
    for cycle in sorted(cycles, key=lambda c: c.started):
        if len(set(cycle.claims)) != len(cycle.claims):
            twice.append(f"cycle {cycle.id} matched one claim twice")
        for claim in cycle.claims:
            earlier = seen.get(claim)
            if earlier is not None and earlier.finished is not None:
                twice.append(f"{claim} in cycles {earlier.id} ({earlier.holder}) and {cycle.id}")
            seen[claim] = cycle
    return twice
