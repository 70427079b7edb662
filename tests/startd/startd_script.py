"""Scripts of timed events for a one-machine startd, and the jobs of startd.md §14."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fairpool.classad import ClassAd
from fairpool.startd.inputs import MachineInputs
from fairpool.startd.knobs import SEED_POLICY
from fairpool.startd.policy import StartdPolicy
from fairpool.startd.profile import MODERN, SEED, Profile
from fairpool.startd.startd import Startd

J_STD = '[Owner="alice"; JobUniverse=1; ImageSize=20000]'
J_SMALL = '[Owner="alice"; JobUniverse=1; ImageSize=10000]'
J_VAN = '[Owner="bob"; JobUniverse=5; ImageSize=20000]'
J_NOIMG = '[Owner="alice"; JobUniverse=1]'

# coltrane's testing policy (startd.md §10.4a): each $(X) expands to the default's text.
COLTRANE = {
    "START": f'({SEED_POLICY["START"]}) || Owner == "coltrane"',
    "SUSPEND": f'({SEED_POLICY["SUSPEND"]}) && Owner != "coltrane"',
    "PREEMPT": f'({SEED_POLICY["PREEMPT"]}) && Owner != "coltrane"',
}


def job(text: str) -> ClassAd:
    return ClassAd(text)


def vanilla(owner: str) -> ClassAd:
    return ClassAd(f'[Owner="{owner}"; JobUniverse=5; ImageSize=20000]')


def startd(
    knobs: Mapping[str, str] | None = None,
    inputs: MachineInputs | None = None,
    profile: Profile = SEED,
    machine: ClassAd | Sequence[ClassAd] | None = None,
) -> Startd:
    policy = StartdPolicy.from_knobs(knobs or {}, profile)
    return Startd(policy, machine, inputs or MachineInputs())


def run(
    script: Sequence[tuple],
    end: int,
    knobs: Mapping[str, str] | None = None,
    inputs: MachineInputs | None = None,
    profile: Profile = SEED,
) -> tuple[Startd, list[tuple[int, str]]]:
    """Run ``(t, method, *args)`` steps, then time up to ``end``; the changes as
    ``(t, "State/Activity")``, and the startd for further checks."""
    s = startd(knobs, inputs, profile)
    for t, method, *args in script:
        getattr(s, method)(t, *args)
    s.advance(end)
    return s, changes(s)


def changes(s: Startd, slot: str | None = None) -> list[tuple[int, str]]:
    return [
        (c.t, f"{c.target[0]}/{c.target[1]}") for c in s.changes if slot is None or c.slot == slot
    ]


__all__ = ["COLTRANE", "MODERN", "SEED"]
