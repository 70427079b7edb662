"""condor_defrag in the simulator: the live defrag daemon's poll (fairpool.defrag.Defrag) on
the simulated clock.

It runs when the scenario's configuration puts DEFRAG in DAEMON_LIST, with the same
DEFRAG_* knobs: every DEFRAG_INTERVAL it polls the slot ads of the driven machines (only a
machine with a startd on the heap can drain: ``startd = "always"`` in ``[simulation]``
drives every machine) and carries the drain and cancel requests to their startds directly,
as the live daemon does through their APIs. The Defrag ad of the last poll goes into
summary.json.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from ..classad import ClassAd
from ..config import Config
from ..defrag import Defrag, DefragConfig, DrainRequest
from .startds import Startds

__all__ = ["SimDefrag", "wanted"]


def wanted(knobs: Config) -> bool:
    """Whether the configuration runs the defrag daemon."""
    return "DEFRAG" in {name.upper() for name in knobs.get_list("DAEMON_LIST")}


class SimDefrag:
    """The defrag daemon over the simulator's startds."""

    def __init__(self, knobs: Config, startds: Startds, settle: Callable[[str], None]) -> None:
        self.defrag = Defrag(DefragConfig.from_knobs(knobs))
        self.startds = startds
        self.settle = settle  # what the simulator does after a startd changed
        self.polls = 0

    def polling(self) -> Generator[float, None, None]:
        while True:
            yield float(self.defrag.config.interval)
            self.poll()

    def poll(self) -> None:
        self.polls += 1
        ads = [
            slot.ad
            for node in self.startds.machines.values()
            for slot in node.slots.values()
            if slot.alive
        ]
        self.defrag.poll(self.startds.now(), ads, self)

    # -- the transport ----------------------------------------------------------------
    def drain(self, machine: str, slot: str, request: DrainRequest) -> bool:
        node = self.startds.machines.get(machine)
        if node is None:
            return False
        reply = node.startd.drain(
            self.startds.now(),
            request.how,
            resume=request.resume_on_completion,
            check=request.check,
            start=request.start,
            reason=request.reason,
        )
        self.settle(machine)
        return reply.accepted

    def cancel(self, machine: str) -> None:
        node = self.startds.machines.get(machine)
        if node is not None:
            node.startd.cancel_drain(self.startds.now())
            self.settle(machine)

    def summary(self) -> dict[str, Any]:
        """The Defrag ad's figures at the end of the run."""
        ad: ClassAd = self.defrag.ad(self.startds.now())
        keep = ("DrainSuccesses", "DrainFailures", "AvgDrainingBadput", "AvgDrainingUnclaimed")
        keep += ("WholeMachinesPeak", "MachinesDrainingPeak", "DrainedMachines")
        return {"polls": self.polls, **{name: ad.get(name) for name in keep}}
