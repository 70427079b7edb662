"""Two collectors in everyone's COLLECTOR_HOST, as HTCondor's high availability lists
them: two collector processes on 127.0.0.1 (the second picks its entry with
``COLLECTOR_ARGS = -p PORT``), a negotiator, an execute host and a submit host, each a
process of its own.

Every daemon's ads reach both collectors. When the first stops, the others' updates
still reach the second (the outage logged once, not at every update), the negotiator
reads the second instead and the pool keeps matching; when it comes back it fills up
again. The collectors' update statistics show which updates each one missed.
"""

from __future__ import annotations

import time
from pathlib import Path

from hosts import Hosts

PROGRAM = "#!/bin/sh\nexit 0\n"


def submit_file(count: int) -> str:
    return f"executable = work.sh\nrequest_memory = 64\nqueue {count}\n"


def test_updates_reach_every_collector_and_queries_the_first_that_answers(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "work.sh").write_text(PROGRAM)
    (work / "work.sh").chmod(0o755)
    with Hosts(tmp_path / "hosts", collectors=2) as pool:
        cm1 = pool.host("cm1", "COLLECTOR")
        cm2 = pool.host("cm2", "COLLECTOR", COLLECTOR_ARGS=f"-p {pool.ports[1]}")
        pool.start(cm1, cm2)
        assert cm1.url.endswith(f":{pool.ports[0]}") and cm2.url.endswith(f":{pool.ports[1]}")
        negotiator = pool.host("neg", "NEGOTIATOR")
        execute = pool.host("exec1", "STARTD", STARTD_NAME="exec1")
        submit = pool.host("sub1", "SCHEDD")
        pool.start(negotiator, execute, submit)
        everyone = {"cm1", "cm2", "neg", "exec1", "sub1"}

        def complete(number: int) -> bool:
            kinds = ("Machine", "Scheduler", "Negotiator", "DaemonMaster")
            counts = [len(pool.ads(kind, number)) for kind in kinds]
            masters = {n.split("@")[0] for n in pool.names("DaemonMaster", number)}
            return counts[:3] == [2, 1, 1] and masters == everyone

        for number in (0, 1):
            cm1.wait(lambda number=number: complete(number), 30, f"collector {number}'s ads")
        pool.submit("sub1", submit_file(2), work)
        submit.wait(lambda: len(submit.history()) == 2, 30, "the first jobs to run")

        pool.stop(cm1)
        before = {str(ad["Name"]): ad["UpdateSequenceNumber"] for ad in pool.ads("Machine", 1)}
        pool.submit("sub1", submit_file(3), work)  # the pool found through the second
        submit.wait(lambda: len(submit.history()) == 5, 30, "jobs to run without cm1")
        time.sleep(6)  # more updates than one: the outage is still logged once
        slots = pool.ads("Machine", 1)
        assert all(ad["UpdateSequenceNumber"] > before[str(ad["Name"])] for ad in slots)
        assert all(ad["UpdatesLost"] == 0 for ad in slots), "cm2 missed nothing"
        assert all(ad["LastHeardFrom"] >= time.time() - 4 for ad in slots), "not delayed"
        down = f"collector {pool.collector(0)}/collector is down"
        for host in (execute, submit, negotiator):
            log = (host.directory / "log" / "MasterLog").read_text()
            assert log.count(down) == 1, (host.directory.name, log)
        # the negotiator read the second collector at once: no cycle was missed
        assert "no cycle" not in (negotiator.directory / "log" / "NegotiatorLog").read_text()

        pool.start(cm1)  # back: it fills up again from the daemons' next updates
        cm1.wait(lambda: complete(0), 30, "the first collector to fill up again")
        for host in (execute, submit):
            log = (host.directory / "log" / "MasterLog").read_text()
            assert f"collector {pool.collector(0)}/collector takes updates again" in log
        own = pool.ads("Collector", 0)[0]
        assert own["UpdatesLost"] == 0 and own["UpdatesInitial_Start"] == 2
        assert pool.ads("Collector", 1)[0]["UpdatesLost_Start"] == 0
