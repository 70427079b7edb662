"""condor_defrag: drain fragmented machines so that whole-machine jobs can start (seed 002).

``Defrag(DefragConfig.from_knobs(knobs)).poll(now, slot_ads, transport)`` runs one cycle;
``Defrag.ad(now)`` is the Defrag ad it publishes. The startd side of draining is
``fairpool.startd.Startd.drain``.
"""

from .config import DEFAULTS, DefragConfig
from .cycle import Defrag, DrainRequest, PollResult, Transport, machine_of
from .rate import Quota, prorate, quota

__all__ = [
    "DEFAULTS",
    "Defrag",
    "DefragConfig",
    "DrainRequest",
    "PollResult",
    "Quota",
    "Transport",
    "machine_of",
    "prorate",
    "quota",
]
