"""fairpool adstash: the documents, the checkpoint across runs, and Elasticsearch's bulk
API with partial failures and retries, against a live pool's schedd history and a
loopback HTTP server that answers as Elasticsearch does (bulk_server.py: no search
server runs in these tests)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairpool.adstash import (
    Checkpoint,
    ElasticTarget,
    JsonLinesTarget,
    doc_id,
    index_name,
    stash,
    to_document,
)
from fairpool.classad import ClassAd
from fairpool.daemons.client import SyncApi
from fairpool.errors import FairpoolError
from livepool import LivePool, fairpool

sys.path.insert(0, str(Path(__file__).parent))
from bulk_server import bulk_server

pytest.importorskip("elasticsearch")

JOBS = """
executable = /bin/echo
arguments = done
+Project = "chemistry"
queue 6
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePool]:
    base = tmp_path_factory.mktemp("adstash")
    with LivePool(base / "pool", NUM_CPUS=2, NEGOTIATOR_INTERVAL=1) as live:
        live.submit(JOBS, base / "work")
        live.wait(lambda: len(live.history()) == 6, 60, "six jobs in the history")
        yield live


def _schedds(pool: LivePool) -> dict[str, SyncApi]:
    ads = pool.get("/collector/ads", type="Scheduler")["ads"]
    return {ad["Name"]: SyncApi(ad["ApiAddress"]) for ad in ads}


def _ordered(pool: LivePool) -> list[str]:
    """The history's document ids in the order adstash sends them."""
    (name,) = _schedds(pool)
    docs = [to_document(ad, name) for ad in pool.history()]
    return [doc_id(d) for d in sorted(docs, key=lambda d: (d["EnteredCurrentStatus"], doc_id(d)))]


def test_documents_are_converted_as_adstash_does() -> None:
    ad = ClassAd(
        """[ ClusterId = 7; ProcId = 2; QDate = 1700000000.0; CompletionDate = 1700003600;
             EnteredCurrentStatus = 1700003600; JobStatus = 4; ExitBySignal = "false";
             RemoteUserCpu = 12; RequestDisk = MAX({1024, 3}) * 2; Args = "a b";
             Tags = {"x", 2, true}; Missing = undefined; Req = TARGET.Memory > 2;
             GlobalJobId = "ap1#7.2#1700000000" ]"""
    )
    doc = to_document(ad, "ap1")
    assert doc["QDate"] == 1700000000 and type(doc["QDate"]) is int  # a date: epoch seconds
    assert doc["ExitBySignal"] is False  # a flag, from text
    assert doc["RemoteUserCpu"] == 12.0 and type(doc["RemoteUserCpu"]) is float
    assert doc["RequestDisk"] == 2048  # evaluated in the ad
    assert doc["Tags"] == ["x", 2, True]
    assert "Missing" not in doc
    assert doc["Req"] == "TARGET.Memory > 2"  # an expression that is no value: its text
    assert (doc["RecordTime"], doc["Status"], doc["ScheddName"]) == (1700003600, "Completed", "ap1")
    assert doc_id(doc) == "ap1#7.2#1700000000"
    assert index_name("htcondor", doc) == "htcondor-2023.11.14"  # 1700003600 in UTC


def test_bulk_with_partial_failures_and_retries(pool: LivePool, tmp_path: Path) -> None:
    order = _ordered(pool)
    pauses: list[float] = []
    with bulk_server() as server:
        server.refuse = {order[1]: [429], order[2]: [400], order[3]: [503, 503]}
        target = ElasticTarget(
            server.url, tmp_path / "rejects.jsonl", retries=3, pause=0.01, sleep=pauses.append
        )
        checkpoint = Checkpoint(tmp_path / "checkpoint.json")
        report = stash(_schedds(pool), target, checkpoint, batch=10)
        assert report.total == 6
        taken = {doc for _, doc in server.docs}
        assert taken == set(order) - {order[2]}  # the 400 is refused for good
        rejected = [
            json.loads(line) for line in (tmp_path / "rejects.jsonl").read_text().splitlines()
        ]
        assert [r["_id"] for r in rejected] == [order[2]]
        assert rejected[0]["error"]["type"] == "mapper_parsing_exception"
        assert server.bulks == 3 and pauses == [0.01, 0.02]  # two rounds of retries
        assert server.sends.count(order[0]) == 1  # what went is not sent again
        (index,) = server.indices
        assert index.startswith("htcondor-") and len(index) == len("htcondor-2026.11.24")
        mapping = server.indices[index]["mappings"]["properties"]
        assert mapping["QDate"] == {"type": "date", "format": "epoch_second"}
        # a second run finds nothing new
        sends = len(server.sends)
        again = stash(_schedds(pool), target, Checkpoint(tmp_path / "checkpoint.json"))
        assert again.total == 0 and len(server.sends) == sends


def test_a_lasting_refusal_stops_at_the_checkpoint_and_the_next_run_resumes(
    pool: LivePool, tmp_path: Path
) -> None:
    order = _ordered(pool)
    with bulk_server() as server:
        server.refuse = {order[3]: [503] * 10}
        target = ElasticTarget(
            server.url, tmp_path / "rejects.jsonl", retries=2, pause=0, sleep=lambda s: None
        )
        path = tmp_path / "checkpoint.json"
        with pytest.raises(FairpoolError, match="3 documents could not be sent"):
            stash(_schedds(pool), target, Checkpoint(path), batch=4)
        assert order[3] not in {doc for _, doc in server.docs}
        (mark,) = Checkpoint(path).marks.values()
        assert not any(mark.fresh(*_when(pool, name)) for name in order[:3])
        assert all(mark.fresh(*_when(pool, name)) for name in order[3:])
        server.refuse.clear()  # the cluster is well again: a new run (a new process)
        resumed = stash(_schedds(pool), target, Checkpoint(path), batch=4)
        assert resumed.total == 3
        assert {doc for _, doc in server.docs} == set(order)  # nothing lost
        assert all(server.sends.count(name) == 1 for name in order[:3])  # nor sent twice


def _when(pool: LivePool, name: str) -> tuple[int, str]:
    (schedd,) = _schedds(pool)
    for ad in pool.history():
        doc = to_document(ad, schedd)
        if doc_id(doc) == name:
            return doc["EnteredCurrentStatus"], name
    raise AssertionError(name)


def test_json_lines_across_restarts(pool: LivePool, tmp_path: Path) -> None:
    out, checkpoint = tmp_path / "jobs.jsonl", tmp_path / "checkpoint.json"
    args = ("adstash", "--pool", pool.url, "--jsonl", str(out), "--checkpoint", str(checkpoint))
    first = fairpool(*args)
    assert first.stdout.startswith("6 job(s) sent to")
    pool.submit(JOBS.replace("queue 6", "queue 2"), tmp_path / "more")
    pool.wait(lambda: len(pool.history()) == 8, 60, "two more jobs in the history")
    second = fairpool(*args)
    assert second.stdout.startswith("2 job(s) sent to")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 8 == len({line["_id"] for line in lines})
    assert {line["Project"] for line in lines} == {"chemistry"}
    refused = fairpool("adstash", "--pool", pool.url, check=False)
    assert refused.returncode == 2 and "give one of --es-url and --jsonl" in refused.stderr


def test_the_adstash_daemon_across_a_crash(tmp_path: Path) -> None:
    """use FEATURE : adstash's daemon, with the jsonfile interface: each finished job
    once in the file, also when the pool is killed and started again."""
    out = tmp_path / "json"
    knobs = {
        "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, ADSTASH",
        "ADSTASH_INTERFACE": "jsonfile",
        "ADSTASH_JSON_DIR": out,
        "ADSTASH_SAMPLE_INTERVAL": 1,
        "NEGOTIATOR_INTERVAL": 1,
    }
    file = out / "adstash.jsonl"

    def lines() -> list[str]:
        return file.read_text().splitlines() if file.exists() else []

    pool = LivePool(tmp_path / "pool", **knobs)
    with pool:
        pool.submit(JOBS.replace("queue 6", "queue 2"), tmp_path / "a")
        pool.wait(lambda: len(lines()) == 2, 60, "two jobs in the file")
        pool.kill()
        pool.start()
        pool.submit(JOBS.replace("queue 6", "queue 1"), tmp_path / "b")
        pool.wait(lambda: len(lines()) == 3, 60, "the third job in the file")
        # the run that wrote the line reports when it ends (the file is written first)
        last = pool.wait(lambda: pool.get("/adstash/status")["last"], 10, "the run's report")
        assert last["problem"] == ""
    ids = [json.loads(line)["_id"] for line in lines()]
    assert len(set(ids)) == 3


def test_json_lines_sent_again_after_a_crash_are_written_once(tmp_path: Path) -> None:
    """A crash after the lines were written and before the checkpoint moved sends them
    again; a crash in the middle of a line leaves a piece of it. Neither shows in the
    file: each document once, every line whole."""
    path = tmp_path / "out.jsonl"
    docs = [("htcondor-2026.11.25", f"s#{n}", {"ProcId": n}) for n in range(5)]
    assert JsonLinesTarget(path).send(docs[:3]) == 3
    with open(path, "a") as handle:
        handle.write('{"_index": "htcondor-2026.11.25", "_id": "s#3", "Pro')  # cut short
    assert JsonLinesTarget(path).send(docs) == 5  # after the restart: all five again
    written = [json.loads(line)["_id"] for line in path.read_text().splitlines()]
    assert written == [f"s#{n}" for n in range(5)]
