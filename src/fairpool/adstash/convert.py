"""Job ads as the JSON documents condor_adstash sends: each ClassAd value converted by
what the attribute is, with a few fields added.

As condor_adstash converts them: times (``QDate``, ``CompletionDate``,
``EnteredCurrentStatus``, ...) as whole epoch seconds, which the index maps as dates
(``epoch_second``); counts as integers and measures as reals; flags as booleans (also
from "true"/"false" text); lists as JSON arrays; expressions that are not values as
their text; UNDEFINED and ERROR left out. Added: ``RecordTime`` (when the job left the
queue: its CompletionDate, else EnteredCurrentStatus), ``ScheddName`` and ``Status``
(JobStatus as a word). A document's id is its ``GlobalJobId`` (schedd#cluster.proc#qdate),
so that sending a job again replaces it instead of adding a second copy. Each value is
the attribute evaluated in the job ad (``RequestDisk = MAX({1024, ...})`` sends its
number); an expression that evaluates to nothing a field can hold is sent as its text,
except in a typed field.
"""

from __future__ import annotations

from typing import Any

from ..classad import ClassAd
from ..classad.nodes import Literal
from ..schedd.queue import STATUS_NAMES

__all__ = ["DATE_ATTRS", "doc_id", "index_mappings", "to_document"]


def _lower(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name.lower() for name in names)


_DATES = (
    "QDate", "CompletionDate", "EnteredCurrentStatus", "JobStartDate",
    "JobCurrentStartDate", "JobCurrentStartExecutingDate", "JobLastStartDate",
    "LastMatchTime", "LastSuspensionTime", "LastVacateTime", "LastHoldTime",
    "LastReleaseTime", "ShadowBday", "JobFinishedHookDone", "LastJobLeaseRenewal",
    "StageInStart", "StageInFinish", "RecordTime",
)  # fmt: skip
DATE_ATTRS = _lower(_DATES)
_INTS = (
    "ClusterId", "ProcId", "JobStatus", "JobUniverse", "ExitCode", "ExitSignal",
    "ExitStatus", "NumJobStarts", "NumShadowStarts", "NumRestarts", "NumJobMatches",
    "RequestCpus", "RequestMemory", "RequestDisk", "RequestGPUs", "ImageSize",
    "MemoryUsage", "ResidentSetSize", "DiskUsage", "JobPrio", "HoldReasonCode",
    "HoldReasonSubCode", "NumCkpts", "TransferInputSizeMB", "MaxHosts", "MinHosts",
    "CpusProvisioned", "MemoryProvisioned", "DiskProvisioned", "GPUsProvisioned",
)  # fmt: skip
INT_ATTRS = _lower(_INTS)
_FLOATS = (
    "RemoteUserCpu", "RemoteSysCpu", "RemoteWallClockTime", "CumulativeSlotTime",
    "CommittedTime", "CommittedSlotTime", "CumulativeSuspensionTime",
    "CommittedSuspensionTime", "LastRemoteWallClockTime", "BytesSent", "BytesRecvd",
    "CpusUsage", "JobDuration",
)  # fmt: skip
FLOAT_ATTRS = _lower(_FLOATS)
_BOOLS = (
    "ExitBySignal", "NiceUser", "OnExitRemove", "OnExitHold", "PeriodicHold",
    "PeriodicRelease", "PeriodicRemove", "TerminationPending", "WantCheckpoint",
    "TransferQueued", "TransferringInput", "TransferringOutput", "LeaveJobInQueue",
)  # fmt: skip
BOOL_ATTRS = _lower(_BOOLS)
_TYPED = DATE_ATTRS | INT_ATTRS | FLOAT_ATTRS | BOOL_ATTRS
_TEXTS = ("Args", "Arguments", "Cmd", "HoldReason", "Environment", "Env")
TEXT_ATTRS = _lower(_TEXTS)
STATUS = STATUS_NAMES


def to_document(ad: ClassAd, schedd: str) -> dict[str, Any]:
    """The document of one job ad: each attribute evaluated in the ad and converted."""
    doc: dict[str, Any] = {}
    for name in ad:
        lname = name.lower()
        value = _value(lname, ad.eval(name))
        if value is None and lname not in _TYPED:
            expr = ad.lookup(name)
            value = None if type(expr.node) is Literal else str(expr)  # an expression's text
        if value is not None:
            doc[name] = value
    completion = doc.get("CompletionDate")
    doc["RecordTime"] = (
        completion if isinstance(completion, int) and completion > 0
        else doc.get("EnteredCurrentStatus", doc.get("QDate", 0))
    )  # fmt: skip
    doc["ScheddName"] = schedd
    if isinstance(doc.get("JobStatus"), int):
        doc["Status"] = STATUS.get(doc["JobStatus"], "Unknown")
    return doc


def doc_id(doc: dict[str, Any]) -> str:
    """The document's id: the job's GlobalJobId, else schedd#cluster.proc#qdate."""
    global_id = doc.get("GlobalJobId")
    if isinstance(global_id, str) and global_id:
        return global_id
    return f"{doc.get('ScheddName')}#{doc.get('ClusterId')}.{doc.get('ProcId')}#{doc.get('QDate')}"


def index_mappings() -> dict[str, Any]:
    """The field types of a new index (other attributes are keywords, as adstash's
    dynamic template maps them)."""
    props: dict[str, Any] = {}
    for names, kind in (
        (_DATES, {"type": "date", "format": "epoch_second"}),
        (_INTS, {"type": "long"}),
        (_FLOATS, {"type": "double"}),
        (_BOOLS, {"type": "boolean"}),
        (_TEXTS, {"type": "text"}),
    ):
        for name in names:
            props[name] = kind
    return {
        "dynamic_templates": [
            {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword"}}}
        ],
        "properties": dict(sorted(props.items())),
    }


def _value(lname: str, value: Any) -> Any:
    """An evaluated value as the attribute's field holds it; None: left out."""
    if lname in DATE_ATTRS or lname in INT_ATTRS:
        return _number(value, int)
    if lname in FLOAT_ATTRS:
        return _number(value, float)
    if lname in BOOL_ATTRS:
        return _flag(value)
    if isinstance(value, list):
        return [item for item in (_value("", v) for v in value) if item is not None]
    if isinstance(value, bool | int | float | str):
        return value
    return None  # UNDEFINED, ERROR, a nested ad (adstash leaves them out)


def _number(raw: Any, kind: type) -> Any:
    if isinstance(raw, bool):
        return kind(raw)
    if isinstance(raw, int | float):
        return kind(raw)
    if isinstance(raw, str):
        try:
            return kind(float(raw))
        except ValueError:
            return None
    return None


def _flag(raw: Any) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int | float):
        return raw != 0
    if isinstance(raw, str) and raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    return None
