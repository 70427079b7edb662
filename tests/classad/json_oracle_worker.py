"""The classad2 side of the JSON ad tests: a worker process speaking JSON lines.

Started by json_oracle.py in the same environment as oracle_worker.py (htcondor mode, no
configuration, UTC, C locale). One request per line, one answer per line::

    {"kind": "write", "ad": "[...]"}          -> {"json": "<classad2's printJson()>"}
    {"kind": "read", "ad": "[...]", "json": "<JSON text>"}
      -> {"same": true | false, "read": "<the ad classad2 read, as it prints it>"}
    any request classad2 cannot parse        -> {"error": "<why>"}
"""

from __future__ import annotations

import json
import sys

import classad2
import htcondor2  # noqa: F401  (imported for its side effect: htcondor mode)


def answer(request: dict) -> dict:
    ad = classad2.ClassAd(request["ad"])
    if request["kind"] == "write":
        return {"json": ad.printJson()}
    read = list(classad2.parseAds(request["json"], classad2.ParserType.JSON))
    if len(read) != 1:
        return {"error": f"{len(read)} ads read"}
    return {"same": read[0] == ad, "read": repr(read[0])}


def main() -> None:
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as err:  # one bad input must not end the run
            reply = {"error": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
