"""The negotiator: fair-share matchmaking of idle jobs to slots, one cycle at a time."""

from .cycle import PoolSnapshot, run_cycle, significant_of
from .params import DEFAULTS, NegotiatorParams
from .results import CycleResult, CycleStats, Match, Rejection, SubmitterSummary

__all__ = [
    "DEFAULTS",
    "CycleResult",
    "CycleStats",
    "Match",
    "NegotiatorParams",
    "PoolSnapshot",
    "Rejection",
    "SubmitterSummary",
    "run_cycle",
    "significant_of",
]
