"""The schedd's queue-management exchange (QMGMT_WRITE_CMD), behind the wheel's
``Schedd.submit`` and ``Schedd.edit``.

After the authentication-method exchange the client makes calls, one message each: a
call number and its arguments. Observed (spec/cedar.md and this listener's own log):

| call | arguments | answer |
|---|---|---|
| 10036 | an int | an empty ad |
| 10002 new cluster | | the cluster's number |
| 10003 new proc | cluster | the proc's number |
| 10027 set attribute | cluster, proc, value, name, a flag byte | none |
| 10032 set attribute by constraint | constraint, value, name, a flag byte | 0, or -1 and an errno |
| 10007 commit | | 0, or -1 and an errno |
| 10028 close | | none |

A submission is gathered until the commit (no more jobs than MAX_JOBS_PER_SUBMISSION,
no more than 64 attributes a job on average) and then queued whole by the schedd core's
``submit``, the call ``fairpool submit`` makes over HTTP: numbered, owned by the user FS
proved, written in one transaction. Attributes of proc -1 are the cluster's; a proc's
own attributes are what differs from them. An edit is the core's ``edit``.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.jsonads import ad_to_json
from ..classad.parser import parse_old_value
from ..daemons.errors import Forbidden
from ..daemons.identity import Caller
from ..daemons.schedd import Schedd
from ..errors import ClassAdSyntaxError, FairpoolError
from .server import Exchange
from .wire import Reader, WireError, Writer

__all__ = ["queue_management"]

CAPABILITIES = 10036
NEW_CLUSTER = 10002
NEW_PROC = 10003
SET_ATTRIBUTE = 10027
SET_ATTRIBUTE_BY_CONSTRAINT = 10032
COMMIT = 10007
CLOSE = 10028
ATTRIBUTES_PER_JOB = 64  # on average, at most, in one submission (the wheel sends ~30)


@dataclass
class _Submission:
    """Clusters and procs made on one connection and not yet committed."""

    clusters: dict[int, ClassAd] = field(default_factory=dict)
    procs: dict[int, dict[int, ClassAd]] = field(default_factory=dict)
    jobs: int = 0
    attributes: int = 0
    failure: str | None = None

    def ad(self, cluster: int, proc: int) -> ClassAd | None:
        if proc < 0:
            return self.clusters.get(cluster)
        return self.procs.get(cluster, {}).get(proc)


async def queue_management(schedd: Schedd, exchange: Exchange) -> None:
    """Serve calls until the client closes the transaction."""
    caller = await exchange.authenticate()
    pending = _Submission()
    while True:
        message = await exchange.receive()
        call = message.int("a queue-management call")
        if call == CLOSE:
            return
        if call == SET_ATTRIBUTE:
            _set_attribute(schedd, caller, pending, message)
            continue
        answer = _answer(schedd, caller, pending, call, message)
        await exchange.send(answer)
        if call == COMMIT:
            pending = _Submission()


def _answer(
    schedd: Schedd, caller: Caller, pending: _Submission, call: int, message: Reader
) -> Writer:
    if call == CAPABILITIES:
        message.int("the capabilities' flags")
        return Writer().ad(ClassAd())
    try:
        if call == NEW_CLUSTER:
            number = schedd.next_cluster + len(pending.clusters)
            pending.clusters[number] = ClassAd()
            pending.procs[number] = {}
            return Writer().int(number)
        if call == NEW_PROC:
            cluster = message.int("the cluster")
            procs = pending.procs.get(cluster)
            if procs is None or pending.jobs >= schedd.max_per_submission:
                return _failed(errno.EINVAL)
            procs[len(procs)] = ClassAd()
            pending.jobs += 1
            return Writer().int(len(procs) - 1)
        if call == SET_ATTRIBUTE_BY_CONSTRAINT:
            constraint = _expr(message.string("the constraint"))
            value, name = message.string("the value"), message.string("the name")
            names, _ = schedd.select(None, None, constraint)
            return Writer().int(schedd.edit(caller, names, name, value))
        if call == COMMIT:
            return _commit(schedd, caller, pending)
    except Forbidden as err:
        schedd.log.info("queue-management call %d refused: %s", call, err)
        return _failed(errno.EACCES)
    except FairpoolError as err:
        schedd.log.info("queue-management call %d refused: %s", call, err)
        return _failed(errno.EINVAL)
    raise WireError(f"queue-management call {call} is not served here")


def _set_attribute(schedd: Schedd, caller: Caller, pending: _Submission, message: Reader) -> None:
    cluster, proc = message.int("the cluster"), message.int("the proc")
    value, name = message.string("the value"), message.string("the name")
    ad = pending.ad(cluster, proc)
    pending.attributes += ad is not None
    if pending.attributes > ATTRIBUTES_PER_JOB * max(pending.jobs, 1) + 1000:
        pending.failure = pending.failure or "too many attributes for the jobs submitted"
        return
    try:
        if ad is not None:
            ad.insert_node(name, parse_old_value(value))
        else:
            schedd.require(f"{cluster}.{proc}")
            schedd.edit(caller, [f"{cluster}.{proc}"], name, value)
    except (ClassAdSyntaxError, FairpoolError) as err:
        pending.failure = pending.failure or f"{name} of {cluster}.{proc}: {err}"


def _commit(schedd: Schedd, caller: Caller, pending: _Submission) -> Writer:
    if pending.failure is not None:
        schedd.log.info("submission refused: %s", pending.failure)
        return _failed(errno.EINVAL, pending.failure)
    if not pending.clusters:
        return Writer().int(0)
    clusters = []
    for number, cluster in sorted(pending.clusters.items()):
        if not isinstance(cluster.get("Owner"), str):
            cluster["Owner"] = caller.name  # the wheel leaves it to the schedd
        procs = [_own(proc, place) for place, proc in sorted(pending.procs[number].items())]
        clusters.append({"ad": ad_to_json(cluster), "procs": procs})
    try:
        schedd.submit(caller, min(pending.clusters), clusters)
    except FairpoolError as err:
        schedd.log.info("submission refused: %s", err)
        return _failed(errno.EINVAL, str(err))
    return Writer().int(0)


def _own(proc: ClassAd, place: int) -> dict[str, Any]:
    """A proc's own attributes, as the core's submit takes them."""
    own = {k: v for k, v in ad_to_json(proc).items() if k.lower() not in ("clusterid", "procid")}
    return {**own, "ProcId": place}


def _expr(text: str) -> Expr:
    try:
        return Expr._from_node(parse_old_value(text))
    except ClassAdSyntaxError as err:
        raise WireError(f"constraint: {err.message}") from None


def _failed(code: int, reason: str | None = None) -> Writer:
    """A refused call: -1 and an errno; a refused commit also says why (ErrorReason,
    which the wheel shows after "Unable to commit transaction:")."""
    answer = Writer().int(-1).int(code)
    return answer.ad(ClassAd({"ErrorReason": reason})) if reason is not None else answer
