"""The collector's update statistics, as HTCondor's collector keeps them: how many
updates came, how many could be checked, and how many were lost.

Every daemon numbers the updates of each of its ads (``UpdateSequenceNumber``: 0 at the
first, one more at each; collectors.py). A collector that gets number 7 of an ad after
number 4 lost two. With ``COLLECTOR_DAEMON_STATS`` (True by default) each ad it keeps
carries its own counts (HTCondor's "attributes added by the collector"):

* ``UpdatesTotal``: the updates of the ad received, plus those lost;
* ``UpdatesSequenced``: those the collector could check (not the first it got, nor one
  whose number did not go up: the daemon restarted and counts from 0 again);
* ``UpdatesLost``: those that never arrived;
* ``LastHeardFrom``: when the last one arrived.

The collector's own ad sums them over every ad (``UpdatesTotal``: updates received;
``UpdatesSequenced``, ``UpdatesLost``, ``UpdatesInitial``: ads seen for the first time;
``UpdatesLostMax``: the most lost at once; ``UpdatesLostRatio``: lost over received and
lost) and by class of ad as HTCondor names them (``UpdatesTotal_Start`` for slot ads,
``_Schedd``, ``_Submittor``, ``_Master``, ``_Negotiator``...). That is how an
administrator sees that no update was lost.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AdUpdates", "UpdateStats"]

# the classes of ads HTCondor counts apart, by MyType (others go by their MyType)
_CLASSES = {
    "machine": "Start",
    "scheduler": "Schedd",
    "submitter": "Submittor",
    "daemonmaster": "Master",
}


@dataclass
class AdUpdates:
    """The updates of one ad a collector has had."""

    sequence: int | None = None  # the last UpdateSequenceNumber received
    total: int = 0
    sequenced: int = 0
    lost: int = 0

    def attributes(self, now: float) -> dict[str, int]:
        return {
            "UpdatesTotal": self.total,
            "UpdatesSequenced": self.sequenced,
            "UpdatesLost": self.lost,
            "LastHeardFrom": int(now),
        }


@dataclass
class _Counts:
    total: int = 0
    sequenced: int = 0
    lost: int = 0
    initial: int = 0
    lost_max: int = 0


class UpdateStats:
    """The counts over every ad, and by class of ad."""

    def __init__(self) -> None:
        self.all = _Counts()
        self.classes: dict[str, _Counts] = {}

    def count(self, kind: str, before: AdUpdates | None, sequence: object) -> AdUpdates:
        """One update of an ad of type ``kind`` (lower case), whose earlier updates are
        ``before`` (None: the first this collector sees); the ad's counts after it."""
        name = _CLASSES.get(kind) or kind.capitalize()
        counts = self.classes.get(name)
        if counts is None:
            counts = self.classes[name] = _Counts()
        number = sequence if type(sequence) is int else None
        now = AdUpdates(number, 1)
        if before is not None:
            now.total, now.sequenced, now.lost = before.total + 1, before.sequenced, before.lost
        last = before.sequence if before is not None else None
        lost = None
        if last is not None and number is not None and number > last:
            lost = number - last - 1
            now.sequenced += 1
            now.lost += lost
            now.total += lost
        for tally in (self.all, counts):
            tally.total += 1
            tally.initial += before is None
            if lost is not None:
                tally.sequenced += 1
                tally.lost += lost
                tally.lost_max = max(tally.lost_max, lost)
        return now

    def attributes(self) -> dict[str, int | float]:
        """The collector ad's statistics."""
        found: dict[str, int | float] = _named(self.all, "")
        lost, total = self.all.lost, self.all.total + self.all.lost
        found["UpdatesLostMax"] = self.all.lost_max
        found["UpdatesLostRatio"] = lost / total if total else 0.0
        for name, counts in sorted(self.classes.items()):
            found.update(_named(counts, f"_{name}"))
        return found


def _named(counts: _Counts, suffix: str) -> dict[str, int | float]:
    return {
        f"UpdatesTotal{suffix}": counts.total,
        f"UpdatesSequenced{suffix}": counts.sequenced,
        f"UpdatesLost{suffix}": counts.lost,
        f"UpdatesInitial{suffix}": counts.initial,
    }
