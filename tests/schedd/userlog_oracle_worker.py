"""HTCondor's job event log reader (htcondor2.JobEventLog) in a worker speaking JSON lines.

Started by userlog_oracle.py with ``CONDOR_CONFIG=/dev/null``, no ``_CONDOR_*`` variables
and the test's ``TZ``. One request per line, one answer per line::

    {"op": "open", "path": "...", "options": "<DEFAULT_USERLOG_FORMAT_OPTIONS>"}
      -> {"handle": n}
    {"op": "next", "handle": n, "options": "..."}    the events appended since the last call
      -> {"events": [event, ...]} | {"error": "..."}
    {"op": "close", "handle": n} -> {}

An event is ``{"type", "cluster", "proc", "timestamp", "text", "ad"}``: the reader's
``type``, ``cluster``, ``proc`` and ``timestamp`` attributes, ``str(event)`` (HTCondor's own
formatter, run with the given options; it writes no ``...`` line) and the event's attributes
as JSON values (expressions and other ClassAd values as their text).
"""

from __future__ import annotations

import json
import sys

import htcondor2

_logs: dict[int, htcondor2.JobEventLog] = {}


def _value(value):
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, list):
        return [_value(v) for v in value]
    return f"<{value}>"


def _event(event) -> dict:
    return {
        "type": int(event.type),
        "cluster": event.cluster,
        "proc": event.proc,
        "timestamp": event.timestamp,
        "text": str(event),
        "ad": {key: _value(event[key]) for key in event},
    }


def _answer(request: dict) -> dict:
    htcondor2.param["DEFAULT_USERLOG_FORMAT_OPTIONS"] = request.get("options", "")
    op = request["op"]
    if op == "open":
        handle = len(_logs) + 1
        _logs[handle] = htcondor2.JobEventLog(request["path"])
        return {"handle": handle}
    if op == "next":
        return {"events": [_event(e) for e in _logs[request["handle"]].events(stop_after=0)]}
    _logs.pop(request["handle"]).close()
    return {}


def main() -> None:
    for line in sys.stdin:
        try:
            answer = _answer(json.loads(line))
        except Exception as err:  # the reader's refusal is the answer
            answer = {"error": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
