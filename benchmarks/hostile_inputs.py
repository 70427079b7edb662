"""How long each input that used to hang fairpool (issue 15) takes now, against its bound.

Each case runs in this process, once, and prints its time, the bound stated in
docs/limits.md and how it ended (an error, or a value). The bounds are for a lightly
loaded core; a shared machine can take a few times longer. The last line is the slowest.
Run: ``python benchmarks/hostile_inputs.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from fairpool.classad import Expr, parse_ads
from fairpool.config import parse_config_text
from fairpool.errors import FairpoolError
from fairpool.sim.scenario import parse_scenario
from fairpool.startd.timeline import parse_timeline
from fairpool.submit import parse_submit

SCENARIO = """[simulation]
duration = "{duration}"
negotiator_interval = {interval}
[[machines]]
count = {machines}
ad = "Cpus = 1"
[[jobs]]
owner = "u"
count = {jobs}
submit = "executable = x\\nqueue"
runtime = "10m"
"""


def _scenario(duration="1h", interval=60, machines=1, jobs=1) -> str:
    return SCENARIO.format(duration=duration, interval=interval, machines=machines, jobs=jobs)


def _doubling(step: str) -> str:
    return "".join(f"A{i} = {step.format(p=f'A{i - 1}')}\n" for i in range(1, 41))


CASES: list[tuple[str, float, Callable[[], object]]] = [
    ("regexp ^(a+)+$ over 40 a's and '!'", 0.1,
     lambda: Expr('regexp("^(a+)+$", "' + "a" * 40 + '!")').eval()),
    ("strcat doubling itself 40 times", 10,
     lambda: next(parse_ads('A0 = "ab"\n' + _doubling("strcat({p}, {p})"))).eval("A40")),
    ("A = A' + A' doubling 40 times", 10,
     lambda: next(parse_ads("A0 = 1\n" + _doubling("{p} + {p}"))).eval("A40")),
    ("one ad line with 10^6 attributes", 60,
     lambda: len(next(parse_ads("[" + ";".join(f"a{i}=1" for i in range(10**6)) + "]")))),
    ("a 1 MB line of '('", 0.1, lambda: Expr("(" * 1_000_000)),
    ("400 nested lists", 0.1, lambda: Expr("{" * 400 + "1" + "}" * 400)),
    ("configuration macros nested 10,000 deep", 5,
     lambda: parse_config_text(
         "M0 = 1\n" + "".join(f"M{i} = $(M{i - 1})\n" for i in range(1, 10001)), "deep")),
    ("a macro doubling itself 40 times", 10,
     lambda: parse_config_text(
         "M0 = ab\n" + "".join(f"M{i} = $(M{i - 1})$(M{i - 1})\n" for i in range(1, 41)), "x")),
    ("queue 1000000000", 1,
     lambda: parse_submit("executable = x\nqueue 1000000000\n").job_ads(owner="u")),
    ("a scenario of 10^9 jobs", 5, lambda: parse_scenario(_scenario(jobs=10**9))),
    ("a scenario of 10^9 machines", 5, lambda: parse_scenario(_scenario(machines=10**9))),
    ('duration = "100000000w"', 5, lambda: parse_scenario(_scenario(duration="100000000w"))),
    ("a 1-microsecond negotiator interval", 5, lambda: parse_scenario(_scenario(interval=1e-6))),
    ("a timeline line of 200,000 characters", 0.5,
     lambda: parse_timeline('time,event,value\n00:00,claim,"' + "a" * 200_000 + '"\n')),
]  # fmt: skip


def main() -> None:
    slowest = (0.0, "")
    for name, bound, run in CASES:
        start = time.perf_counter()
        try:
            outcome = f"value {str(run())[:30]}"
        except FairpoolError as err:
            outcome = f"error: {str(err).splitlines()[0][:60]}"
        took = time.perf_counter() - start
        slowest = max(slowest, (took / bound, name))
        print(f"{name:42} {took:8.3f} s  (bound {bound:g} s)  {outcome}")
    print(f"slowest against its bound: {slowest[1]} at {slowest[0]:.0%} of it")


if __name__ == "__main__":
    main()
