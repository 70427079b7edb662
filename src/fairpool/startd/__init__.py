"""The execute node's policy: HTCondor's condor_startd state machine as pure code.

``Startd(policy, machine_ad, inputs)`` holds one machine's slots; the caller passes time
in through its event methods (``match``, ``request_claim``, ``activate``,
``starter_exit``, ``vacate``, ``release``, ``drain``, ``cancel_drain``,
``benchmarks_done``) and ``advance(t)``, and reads ``changes`` (every transition, with
its number and the expression that drove it), ``actions`` and the slot ads. The
transitions themselves are one table (``transitions.py``). ``partition.py`` carves
dynamic slots for the negotiator's dry runs too.
"""

from .events import Action, Change, Reply
from .expressions import PolicyError
from .inputs import MachineInputs
from .policy import Knobs, MappingKnobs, StartdPolicy
from .profile import MODERN, PROFILES, SEED, Profile
from .startd import Startd
from .states import ACTIVITIES, Activity, State
from .timeline import Timeline, TimelineError, parse_timeline
from .transitions import TRANSITIONS, Transition

__all__ = [
    "ACTIVITIES",
    "MODERN",
    "PROFILES",
    "SEED",
    "TRANSITIONS",
    "Action",
    "Activity",
    "Change",
    "Knobs",
    "MachineInputs",
    "MappingKnobs",
    "PolicyError",
    "Profile",
    "Reply",
    "Startd",
    "StartdPolicy",
    "State",
    "Timeline",
    "TimelineError",
    "Transition",
    "parse_timeline",
]
