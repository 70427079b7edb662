"""The htcondor2 side of config_oracle.py: one JSON request per line, one answer per line.

{"path": "/abs/file.config", "names": ["A", "B"]}
  -> {"values": {"A": "text" | 1.5 | true | null, ...}} | {"error": "..."}
"""

import json
import os
import sys

import htcondor2

for request in sys.stdin:
    query = json.loads(request)
    os.environ["CONDOR_CONFIG"] = query["path"]
    try:
        htcondor2.reload_config()
        values = {name: htcondor2.param.get(name) for name in query["names"]}
        answer = {"values": values}
    except Exception as err:  # the oracle reports, the test decides
        answer = {"error": f"{type(err).__name__}: {err}"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
