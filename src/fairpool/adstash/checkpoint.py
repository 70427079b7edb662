"""Where adstash stopped, per schedd, so that nothing is sent twice or lost across runs.

A schedd's history is read from the checkpoint's time on (``EnteredCurrentStatus``, the
time a job left the queue): ``time`` is the newest such time of the jobs sent, ``ids``
the documents sent with exactly that time (a job that leaves in the same second as the
last one sent is still read, and is sent unless its id is there). The checkpoint moves
only past documents the target took, after each batch, and is written atomically (a
new file renamed over the old): a crash loses at most the batch in flight, which the
next run sends again under the same ids.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FairpoolError

__all__ = ["Checkpoint", "Mark"]


@dataclass
class Mark:
    """How far one schedd's history was sent."""

    time: int = 0
    ids: set[str] = field(default_factory=set)

    def fresh(self, when: int, doc_id: str) -> bool:
        """Whether a job that left at ``when`` is still to be sent."""
        return when > self.time or (when == self.time and doc_id not in self.ids)

    def advance(self, when: int, doc_id: str) -> None:
        if when > self.time:
            self.time, self.ids = when, {doc_id}
        elif when == self.time:
            self.ids.add(doc_id)


class Checkpoint:
    """The marks of every schedd, in a JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.marks: dict[str, Mark] = {}
        if path.exists():
            self.marks = _read(path)

    def mark(self, schedd: str) -> Mark:
        return self.marks.setdefault(schedd, Mark())

    def save(self) -> None:
        data = {
            "schedds": {
                name: {"time": mark.time, "ids": sorted(mark.ids)}
                for name, mark in sorted(self.marks.items())
            }
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = self.path.with_name(self.path.name + ".new")
        with open(new, "w") as handle:
            json.dump(data, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(new, self.path)


def _read(path: Path) -> dict[str, Mark]:
    try:
        data: Any = json.loads(path.read_text())
        return {
            str(name): Mark(int(entry["time"]), {str(i) for i in entry["ids"]})
            for name, entry in data["schedds"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise FairpoolError(f"{path}: not an adstash checkpoint ({err})") from None
