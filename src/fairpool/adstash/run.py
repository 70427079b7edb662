"""One adstash run: each schedd's history from its checkpoint on, converted, sent in
batches oldest first, the checkpoint moved after each batch the target took.

The jobs are read through the schedd's API (``/history`` with ``EnteredCurrentStatus >=``
the checkpoint's time) and sent in the order they left the queue, so the checkpoint is
always a point in that order: what is before it went, what is after it did not. A batch
the target did not take in full stops the run (the error says how many documents wait);
the next run starts from the same place.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..classad.jsonads import ad_from_json
from ..errors import FairpoolError
from .checkpoint import Checkpoint
from .convert import doc_id, to_document
from .targets import Target

__all__ = ["Report", "index_name", "stash"]


@dataclass
class Report:
    """What a run sent, per schedd."""

    sent: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.sent.values())


def index_name(prefix: str, doc: dict[str, Any]) -> str:
    """The dated index of a document: ``PREFIX-YYYY.MM.DD`` of its RecordTime (UTC)."""
    when = doc.get("RecordTime")
    day = time.strftime("%Y.%m.%d", time.gmtime(when if isinstance(when, int) else 0))
    return f"{prefix}-{day}"


def stash(
    schedds: dict[str, Any],
    target: Target,
    checkpoint: Checkpoint,
    *,
    prefix: str = "htcondor",
    batch: int = 250,
) -> Report:
    """Send what each schedd's history holds past the checkpoint (``schedds``: name ->
    an API client with ``get``)."""
    report = Report()
    for name, api in sorted(schedds.items()):
        mark = checkpoint.mark(name)
        found = api.get("/history", constraint=f"EnteredCurrentStatus >= {mark.time}")["ads"]
        docs = []
        for obj in found:
            doc = to_document(ad_from_json(obj, f"a history ad of {name}"), name)
            when = doc.get("EnteredCurrentStatus", doc["RecordTime"])
            key = doc_id(doc)
            if mark.fresh(when, key):
                docs.append((when, key, doc))
        docs.sort(key=lambda entry: (entry[0], entry[1]))
        report.sent[name] = 0
        for start in range(0, len(docs), batch):
            part = docs[start : start + batch]
            sent = target.send([(index_name(prefix, doc), key, doc) for _, key, doc in part])
            for when, key, _ in part[:sent]:
                mark.advance(when, key)
            checkpoint.save()
            report.sent[name] += sent
            if sent < len(part):
                waiting = len(docs) - start - sent
                raise FairpoolError(
                    f"schedd {name}: {waiting} documents could not be sent (the target kept"
                    f" refusing them); the next run sends them from the checkpoint"
                )
    return report
