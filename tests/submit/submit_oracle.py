"""htcondor2.Submit as an oracle for macro and queue-item expansion, in a child process.

Importing htcondor2 switches classad2 into old-ClassAd mode for the whole process, so the
wheel is only imported in a child: ``ask(cases, cwd)`` sends a batch of cases as JSON on
stdin and reads the answers back. A case is ``{"text": submit text, "keys": [...],
"items": bool}``; its answer ``{"expanded": {key: value}, "items": [rows] or error}``.
``expand()`` raising KeyError for a value that expands to nothing is read as "".
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

AVAILABLE = importlib.util.find_spec("htcondor2") is not None

_CHILD = """
import json, sys
import htcondor2
answers = []
for case in json.load(sys.stdin):
    submit = htcondor2.Submit(case["text"])
    expanded = {}
    for key in case["keys"]:
        try:
            expanded[key] = submit.expand(key)
        except KeyError:
            expanded[key] = ""
    answer = {"expanded": expanded}
    if case.get("items"):
        try:
            answer["items"] = list(submit.itemdata())
        except Exception as err:
            answer["items"] = {"error": str(err)}
    answers.append(answer)
json.dump(answers, sys.stdout)
"""


def ask(cases: list[dict], cwd: Path | None = None) -> list[dict]:
    """The oracle's answers for ``cases`` (one child process for the whole batch)."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)
