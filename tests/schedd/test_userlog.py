"""The user log against HTCondor's own reader (htcondor2.JobEventLog, in a worker).

Every event fairpool writes is read back by the reader: its type, job id, time and the
attributes the reader exposes must be what was written, and the reader's own formatter
(``str(event)``, HTCondor's writer code run on what it read) must give back the same bytes,
except for the two parts the reader skips (the exit line of a terminated event and the
evicted event's resource table), which are checked apart.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
import re
import struct
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.schedd.userlog_oracle import AVAILABLE, TZ, oracle

from fairpool.classad import ClassAd
from fairpool.schedd import (
    Aborted,
    Evicted,
    Executing,
    Held,
    ImageSize,
    JobAdInformation,
    LogFormat,
    Released,
    ResourceRow,
    Submitted,
    Suspended,
    Terminated,
    Unsuspended,
    Usage,
    UserLog,
    UserLogError,
    format_event,
    single_line,
    user_log_path,
)

needs_oracle = pytest.mark.skipif(not AVAILABLE, reason="the htcondor wheel is not installed")
ABSENT = object()
FEB_13 = 1707842944.0  # 2024-02-13 10:49:04 in Chicago (16:49:04 UTC)
CHICAGO = LogFormat(tz=TZ)

# -- what HTCondor's documentation and real logs show -----------------------------------
TERMINATED_EXAMPLE = """\
005 (006.000.000) 2024-02-13 10:49:04 Job terminated.
\t(1) Normal termination (return value 0)
\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage
\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage
\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage
\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage
\t23  -  Run Bytes Sent By Job
\t113  -  Run Bytes Received By Job
\t23  -  Total Bytes Sent By Job
\t113  -  Total Bytes Received By Job
\tPartitionable Resources :    Usage  Request Allocated \n\
\t   Cpus                 :                 1         1 \n\
\t   Disk (KB)            :   100000   100000   2033496 \n\
\t   Memory (MB)          :        0       98      2001 \n\
\n\
\tJob terminated of its own accord at 2024-02-13T16:49:03Z with exit-code 0.
...
"""


def test_terminated_event_as_the_manual_shows_it() -> None:
    # The manual's example job log (the sleep job), with today's ISO timestamps and the
    # exit line modern HTCondor writes after the table.
    event = Terminated(
        return_value=0,
        run_sent_bytes=23,
        run_received_bytes=113,
        total_sent_bytes=23,
        total_received_bytes=113,
        resources=[
            ResourceRow("Memory", 0, 98, 2001),
            ResourceRow("Cpus", None, 1, 1),
            ResourceRow("Disk", 100000, 100000, 2033496),
        ],
        exited_at=FEB_13 - 1,
    )
    assert format_event(event, 6, 0, FEB_13, CHICAGO) == TERMINATED_EXAMPLE


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (Submitted("<128.105.14.44:46062>"), "000 (042.003.000) {t} Job submitted from host: "
         "<128.105.14.44:46062>\n...\n"),
        (Executing("<10.0.0.5:9618?sock=x>", "slot1_1@e1"), "001 (042.003.000) {t} Job "
         "executing on host: <10.0.0.5:9618?sock=x>\n\tSlotName: slot1_1@e1\n...\n"),
        (Evicted(Usage(5, 1), reason="Job vacated by schedd", sent_bytes=7),
         "004 (042.003.000) {t} Job was evicted.\n\t(0) CPU times\n"
         "\t\tUsr 0 00:00:05, Sys 0 00:00:01  -  Run Remote Usage\n"
         "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n"
         "\t7  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n"
         "\tReason: Job vacated by schedd\n...\n"),
        (ImageSize(100000, 0, 0), "006 (042.003.000) {t} Image size of job updated: 100000\n"
         "\t0  -  MemoryUsage of job (MB)\n\t0  -  ResidentSetSize of job (KB)\n...\n"),
        (Aborted("via condor_rm (by user alice)"), "009 (042.003.000) {t} Job was aborted.\n"
         "\tvia condor_rm (by user alice)\n...\n"),
        (Suspended(3), "010 (042.003.000) {t} Job was suspended.\n"
         "\tNumber of processes actually suspended: 3\n...\n"),
        (Unsuspended(), "011 (042.003.000) {t} Job was unsuspended.\n...\n"),
        (Held("via condor_hold (by user alice)", 1, 0), "012 (042.003.000) {t} Job was held.\n"
         "\tvia condor_hold (by user alice)\n\tCode 1 Subcode 0\n...\n"),
        (Held(""), "012 (042.003.000) {t} Job was held.\n\tReason unspecified\n"
         "\tCode 0 Subcode 0\n...\n"),
        (Released("via condor_release (by user alice)"), "013 (042.003.000) {t} Job was "
         "released.\n\tvia condor_release (by user alice)\n...\n"),
        (Terminated(signal=11, core_file="/tmp/core.1", run_remote=Usage(93784.9, 0)),
         "005 (042.003.000) {t} Job terminated.\n\t(0) Abnormal termination (signal 11)\n"
         "\t(1) Corefile in: /tmp/core.1\n"
         "\t\tUsr 1 02:03:04, Sys 0 00:00:00  -  Run Remote Usage\n"
         "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n"
         "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n"
         "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n"
         "\t0  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n"
         "\t0  -  Total Bytes Sent By Job\n\t0  -  Total Bytes Received By Job\n...\n"),
        (JobAdInformation(ClassAd({"Foo": 3, "Bar": "x"})), "028 (042.003.000) {t} Job ad "
         'information event triggered.\nFoo = 3\nBar = "x"\n...\n'),
    ],
)  # fmt: skip
def test_event_texts(event: Any, text: str) -> None:
    assert format_event(event, 42, 3, FEB_13, CHICAGO) == text.format(t="2024-02-13 10:49:04")


@pytest.mark.parametrize(
    ("knob", "stamp"),
    [
        (None, "2024-02-13 10:49:04"),
        ("ISO_DATE", "2024-02-13 10:49:04"),
        ("LEGACY", "02/13 10:49:04"),
        ("!ISO_DATE", "02/13 10:49:04"),
        ("UTC", "2024-02-13 16:49:04Z"),
        ("utc sub_second", "2024-02-13 16:49:04.123Z"),
        ("  sub_second , UTC ", "2024-02-13 16:49:04.123Z"),
        ("SUB_SECOND", "2024-02-13 10:49:04.123"),
        ("LEGACY,UTC", "02/13 16:49:04Z"),
        ("UTC,LEGACY", "02/13 10:49:04"),
        ("!ISO_DATE,SUB_SECOND", "02/13 10:49:04.123"),
        ("UTC,SUB_SECOND,!LEGACY", "2024-02-13 16:49:04.123Z"),
        ("LEGACY,!LEGACY", "2024-02-13 10:49:04"),
        ("UTC;SUB_SECOND", "2024-02-13 10:49:04"),  # one unknown word: ignored
        ("bogus,!XML", "2024-02-13 10:49:04"),
    ],
)
def test_format_options_as_htcondor_reads_the_knob(knob: str | None, stamp: str) -> None:
    # Each expected stamp is what htcondor2's formatter printed for the same knob value
    # (also checked against the oracle below for the forms fairpool writes).
    assert LogFormat.parse(knob, TZ).timestamp(FEB_13 + 0.1239) == stamp


@pytest.mark.parametrize("knob", ["XML", "json", "UTC, Xml"])
def test_xml_and_json_forms_are_refused(knob: str) -> None:
    with pytest.raises(UserLogError, match=r"DEFAULT_USERLOG_FORMAT_OPTIONS: the (XML|JSON)"):
        LogFormat.parse(knob)


def test_local_time_by_default() -> None:
    local = dt.datetime.fromtimestamp(FEB_13).strftime("%Y-%m-%d %H:%M:%S")
    assert LogFormat().timestamp(FEB_13 + 0.999) == local


def test_sub_seconds_are_milliseconds_truncated() -> None:
    fmt = LogFormat.parse("SUB_SECOND,UTC")
    assert fmt.timestamp(FEB_13 + 0.9999) == "2024-02-13 16:49:04.999Z"
    assert fmt.timestamp(FEB_13 + 0.0005) == "2024-02-13 16:49:04.000Z"
    assert fmt.timestamp(FEB_13 + 0.9999996) == "2024-02-13 16:49:05.000Z"  # a microsecond


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a\nb", "a b"),
        ("a\r\nb\rc", "a b c"),
        ("  spaced  out \t", "spaced  out"),
        ("\v\fkeep \x1c\x85\u2028 inside\f", "keep \x1c\x85\u2028 inside"),
        ("nul\0byte", "nulbyte"),
        ("tab\tinside", "tab\tinside"),
        ("\n\n", ""),
    ],
)
def test_single_line(text: str, line: str) -> None:
    assert single_line(text) == line


def test_user_log_path_is_relative_to_iwd() -> None:
    assert user_log_path("job.log", "/home/alice/run") == "/home/alice/run/job.log"
    assert user_log_path("/var/log/all.log", "/home/alice/run") == "/var/log/all.log"


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Terminated(), "exactly one of return_value and signal"),
        (lambda: Terminated(return_value=0, signal=9), "exactly one of return_value and signal"),
        (lambda: Terminated(return_value=-1), "Terminated.return_value"),
        (lambda: Terminated(signal=0), "Terminated.signal"),
        (lambda: Terminated(return_value=0, total_sent_bytes=-5), "Terminated.total_sent_bytes"),
        (lambda: Held("x", code=2**31), "Held.code"),
        (lambda: Held("x", subcode=1.5), "Held.subcode"),
        (lambda: Suspended(-1), "Suspended.processes"),
        (lambda: Usage(-1), "Usage.user"),
        (lambda: Usage(0, math.nan), "Usage.system"),
        (lambda: ImageSize(-1), "ImageSize.size"),
        (lambda: ResourceRow("Disk (KB)", 1), "ResourceRow.name"),
        (lambda: ResourceRow("Cpus", math.inf), "ResourceRow.usage"),
        (lambda: ResourceRow("Cpus", None, True), "ResourceRow.request"),
        (lambda: ResourceRow("Cpus", None, None, -0.5), "ResourceRow.allocated"),
        (lambda: Evicted(resources=[ResourceRow("Cpus"), ResourceRow("cpus")]), "named twice"),
        (lambda: JobAdInformation(ClassAd({"S": "two\nlines"})), "spans lines"),
        (lambda: format_event(Unsuspended(), -1, 0, FEB_13), "format_event.cluster"),
        (lambda: format_event(Unsuspended(), 1, 2**31, FEB_13), "format_event.proc"),
        (lambda: format_event(Unsuspended(), 1, 0, -1.0), "format_event.when"),
    ],
)
def test_bad_values_are_one_clear_error(make: Any, field: str) -> None:
    with pytest.raises(UserLogError, match=re.escape(field)):
        make()


def test_a_log_that_cannot_be_written_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "job.log"
    with pytest.raises(UserLogError, match=re.escape(f"{path}: cannot open the user log")):
        UserLog(path).write(Unsuspended(), 1, 0, FEB_13)


def test_the_writer_appends_and_creates(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_text("000 (001.000.000) 2024-02-13 10:49:04 Job submitted from host: <a>\n...\n")
    UserLog(path, CHICAGO, fsync=True).write(Unsuspended(), 1, 0, FEB_13)
    assert path.read_text().endswith("...\n011 (001.000.000) 2024-02-13 10:49:04 Job was "
                                     "unsuspended.\n...\n")  # fmt: skip


# -- the oracle ---------------------------------------------------------------------------
def float32(value: float) -> float:
    """What the reader keeps of a terminated event's byte count (a C float)."""
    return struct.unpack("f", struct.pack("f", value))[0]


def seconds_of(usage_text: str) -> tuple[int, int]:
    """``Usr D HH:MM:SS, Sys D HH:MM:SS`` as two counts of seconds (parsed here, not by the
    code under test)."""
    found = re.fullmatch(r"Usr (\d+) (\d+):(\d+):(\d+), Sys (\d+) (\d+):(\d+):(\d+)", usage_text)
    assert found, usage_text
    d1, h1, m1, s1, d2, h2, m2, s2 = map(int, found.groups())
    return d1 * 86400 + h1 * 3600 + m1 * 60 + s1, d2 * 86400 + h2 * 3600 + m2 * 60 + s2


def text_or_absent(text: str) -> object:
    return single_line(text) or ABSENT


def resource_attributes(rows: tuple[ResourceRow, ...]) -> dict[str, object]:
    expected: dict[str, object] = {}
    for row in rows:
        for key, value in ((f"{row.name}Usage", row.usage), (f"Request{row.name}", row.request),
                           (row.name, row.allocated)):  # fmt: skip
            expected[key] = ABSENT if value is None else round(value, 2)
    return expected


def expected_attributes(event: Any) -> dict[str, object]:
    """The attributes HTCondor's reader should give for ``event`` (ABSENT: not there)."""
    match event:
        case Submitted():
            return {"SubmitHost": text_or_absent(event.host)}
        case Executing():
            return {
                "ExecuteHost": text_or_absent(event.host),
                "SlotName": text_or_absent(event.slot_name),
            }
        case Evicted():
            return {
                "Checkpointed": False,
                "TerminatedAndRequeued": False,
                "RunRemoteUsage": event.run_remote,
                "RunLocalUsage": event.run_local,
                "SentBytes": float(event.sent_bytes),
                "ReceivedBytes": float(event.received_bytes),
                "Reason": text_or_absent(event.reason),
            }
        case Terminated():
            normal = event.signal is None
            return {
                "TerminatedNormally": normal,
                "ReturnValue": event.return_value if normal else ABSENT,
                "TerminatedBySignal": ABSENT if normal else event.signal,
                "CoreFile": ABSENT if normal else text_or_absent(event.core_file),
                "RunRemoteUsage": event.run_remote,
                "RunLocalUsage": event.run_local,
                "TotalRemoteUsage": event.total_remote,
                "TotalLocalUsage": event.total_local,
                "SentBytes": float32(event.run_sent_bytes),
                "ReceivedBytes": float32(event.run_received_bytes),
                "TotalSentBytes": float32(event.total_sent_bytes),
                "TotalReceivedBytes": float32(event.total_received_bytes),
                **resource_attributes(event.resources),
            }
        case ImageSize():
            return {
                "Size": event.size,
                "MemoryUsage": ABSENT if event.memory_usage is None else event.memory_usage,
                "ResidentSetSize": event.resident_set_size,
                "ProportionalSetSize": (
                    ABSENT if event.proportional_set_size is None else event.proportional_set_size
                ),
            }
        case Aborted() | Released():
            return {"Reason": text_or_absent(event.reason)}
        case Suspended():
            return {"NumberOfPIDs": event.processes}
        case Held():
            return {
                "HoldReason": text_or_absent(event.reason),
                "HoldReasonCode": event.code,
                "HoldReasonSubCode": event.subcode,
            }
        case JobAdInformation():
            return {key: event.ad.eval(key) for key in event.ad}
    return {}


def check_attributes(event: Any, ad: dict[str, Any]) -> None:
    for key, want in expected_attributes(event).items():
        if want is ABSENT:
            assert key not in ad, (key, ad)
        elif isinstance(want, Usage):
            assert seconds_of(ad[key]) == (int(want.user), int(want.system)), (key, ad[key])
        elif isinstance(want, float):
            assert ad[key] == pytest.approx(want, rel=1e-12, abs=1e-9), (key, ad[key])
        else:
            assert ad[key] == want and type(ad[key]) is type(want), (key, ad[key], want)


def local_wall_time(when: float, sub_second: bool) -> str:
    seconds, micros = divmod(round(when * 1_000_000), 1_000_000)
    text = dt.datetime.fromtimestamp(seconds, TZ).strftime("%Y-%m-%dT%H:%M:%S")
    return text + (f".{micros // 1000:03d}" if sub_second and micros >= 1000 else "")


def ambiguous(when: float) -> bool:
    """Whether ``when``'s local wall time happens twice (the hour DST gives back), so that a
    reader of local times cannot tell which one was meant."""
    naive = dt.datetime.fromtimestamp(whole_second(when), TZ).replace(tzinfo=None)
    return (
        naive.replace(tzinfo=TZ, fold=0).utcoffset() != naive.replace(tzinfo=TZ, fold=1).utcoffset()
    )


def whole_second(when: float) -> int:
    """The second a timestamp shows: times are kept to the microsecond, then truncated."""
    return round(when * 1_000_000) // 1_000_000


def missing_this_year(when: float, utc: bool) -> bool:
    """A legacy stamp (no year) that the reader, which assumes this year, cannot rebuild: a
    29 February, or a local time that this year's clock skips or repeats."""
    moment = dt.datetime.fromtimestamp(whole_second(when), dt.UTC if utc else TZ)
    if (moment.month, moment.day) == (2, 29):
        return True
    if utc:
        return False
    guess = moment.replace(year=dt.datetime.now(TZ).year)
    back = guess.astimezone(dt.UTC).astimezone(TZ)
    return back.replace(tzinfo=None) != guess.replace(tzinfo=None) or ambiguous(guess.timestamp())


def parsed_part(event: Any) -> Any:
    """The event without what HTCondor's reader skips."""
    if isinstance(event, Terminated):
        return dataclasses.replace(event, exited_at=None)
    if isinstance(event, Evicted):
        return dataclasses.replace(event, resources=())
    return event


def check_event(event: Any, cluster: int, proc: int, when: float, knob: str,
                read: dict[str, Any]) -> None:  # fmt: skip
    fmt = LogFormat.parse(knob, TZ)
    assert read["type"] == event.number
    assert (read["cluster"], read["proc"]) == (cluster, proc)
    if fmt.iso_date:
        assert read["ad"]["EventTime"] == local_wall_time(when, fmt.sub_second)
        if not ambiguous(when):
            assert read["timestamp"] == whole_second(when)
    # (a legacy stamp has no year: the reader picks one; the text is compared below)
    check_attributes(event, read["ad"])
    if not isinstance(event, JobAdInformation):  # the reader prints the ad in its own order
        assert format_event(parsed_part(event), cluster, proc, when, fmt) == read["text"] + "...\n"


# -- strategies ---------------------------------------------------------------------------
# The reader puts a resource's figures in the event's flat ad (X, RequestX, XUsage), so a
# resource named like an event attribute, or like another resource's column, overwrites it.
EVENT_ATTRIBUTES = {"proc", "cluster", "subproc", "mytype", "eventtime", "eventtypenumber"}
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)
# HTCondor's reader takes a double quote off either end of a slot name (see below).
slot_names = texts.filter(lambda t: not re.match(r'"|.*"$', single_line(t), re.DOTALL))
usages = st.builds(Usage, st.floats(0, 2**31 - 1), st.floats(0, 2**31 - 1))
exact_bytes = st.integers(0, 2**24)  # what a C float holds exactly (terminated events)
figures = st.none() | st.integers(0, 10**12) | st.integers(0, 10**11).map(lambda n: n / 100)
names = st.sampled_from(["Cpus", "Disk", "Memory", "GPUs", "TimeExecute", "TimeSlotBusy"]) | (
    st.from_regex(r"[A-Z][A-Za-z0-9_]{0,30}", fullmatch=True).filter(
        lambda n: (
            n.lower() not in EVENT_ATTRIBUTES
            and not n.startswith("Request")
            and not n.endswith("Usage")
        )
    )
)
rows = st.lists(
    st.builds(ResourceRow, names, figures, figures, figures),
    max_size=6,
    unique_by=lambda row: row.name.lower(),
)
events = st.one_of(
    st.builds(Submitted, texts),
    st.builds(Executing, texts, slot_names),
    st.builds(Evicted, usages, usages, st.integers(0, 2**53), st.integers(0, 2**53), texts, rows),
    st.builds(
        Terminated,
        return_value=st.integers(0, 2**31 - 1),
        run_remote=usages,
        total_local=usages,
        run_sent_bytes=exact_bytes,
        total_received_bytes=exact_bytes,
        resources=rows,
        exited_at=st.none() | st.floats(0, 4e9),
    ),
    st.builds(
        Terminated,
        signal=st.integers(1, 2**31 - 1),
        core_file=texts,
        run_local=usages,
        total_remote=usages,
        run_received_bytes=exact_bytes,
        total_sent_bytes=exact_bytes,
        resources=rows,
    ),
    st.builds(
        ImageSize,
        st.integers(0, 2**62),
        st.none() | st.integers(0, 2**62),
        st.integers(0, 2**62),
        st.none() | st.integers(0, 2**62),
    ),
    st.builds(Aborted, texts),
    st.builds(Suspended, st.integers(0, 2**31 - 1)),
    st.just(Unsuspended()),
    st.builds(Held, texts, st.integers(-(2**31), 2**31 - 1), st.integers(-(2**31), 2**31 - 1)),
    st.builds(Released, texts),
)
jobs = st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1))
whens = st.floats(0, 4.1e9)  # 1970 to 2099
knobs = st.sampled_from(["", "UTC", "SUB_SECOND", "UTC,SUB_SECOND", "LEGACY", "LEGACY,UTC"])


@needs_oracle
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(events, jobs, whens), min_size=1, max_size=8), knobs)
def test_htcondor_reads_back_what_fairpool_writes(items: list, knob: str) -> None:
    if knob.startswith("LEGACY"):
        utc = LogFormat.parse(knob).utc
        assume(not any(missing_this_year(when, utc) for _, _, when in items))
    fmt = LogFormat.parse(knob, TZ)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "job.log")
        log = UserLog(path, fmt)
        for event, (cluster, proc), when in items:
            log.write(event, cluster, proc, when)
        read = oracle().read(path, knob)
    assert len(read) == len(items)
    for (event, (cluster, proc), when), got in zip(items, read, strict=True):
        check_event(event, cluster, proc, when, knob, got)


@needs_oracle
def test_what_the_reader_skips_is_written_as_htcondor_writes_it(tmp_path: Path) -> None:
    table_rows = [ResourceRow("Cpus", 0.03, 1, 1), ResourceRow("Disk", 27, 1024, 2097152)]
    evicted = Evicted(Usage(9, 2), reason="Job vacated by schedd", resources=table_rows)
    terminated = Terminated(return_value=0, resources=table_rows)
    path = tmp_path / "job.log"
    UserLog(path, CHICAGO).write(terminated, 1, 0, FEB_13)
    table = oracle().read(path)[0]["text"].split("\tPartitionable")[1]
    evicted_text = format_event(evicted, 1, 0, FEB_13, CHICAGO)
    assert evicted_text.endswith(
        "\tReason: Job vacated by schedd\n\tPartitionable" + table + "...\n"
    )
    exiting = [
        (Terminated(return_value=3, exited_at=FEB_13 - 0.5), "exit-code 3"),
        (Terminated(signal=9, exited_at=FEB_13 - 0.5), "signal 9"),
    ]
    for event, how in exiting:
        text = format_event(event, 1, 0, FEB_13, CHICAGO)
        plain = format_event(dataclasses.replace(event, exited_at=None), 1, 0, FEB_13, CHICAGO)
        line = f"\n\tJob terminated of its own accord at 2024-02-13T16:49:03Z with {how}.\n"
        assert text == plain[: -len("...\n")] + line + "...\n"
        path.write_text(text)
        (read,) = oracle().read(path)  # the reader accepts the line (and keeps nothing of it)
        check_event(event, 1, 0, FEB_13, "", read)


@needs_oracle
@pytest.mark.parametrize("knob", ["LEGACY", "UTC", "SUB_SECOND", "LEGACY,UTC,SUB_SECOND"])
def test_each_timestamp_form_reads_back(tmp_path: Path, knob: str) -> None:
    # Mid-June of this year: the year a legacy stamp's reader assumes, and no DST change.
    when = dt.datetime(dt.datetime.now(TZ).year, 6, 15, 12, 30, 5, 250_000, TZ).timestamp()
    path = tmp_path / "job.log"
    UserLog(path, LogFormat.parse(knob, TZ)).write(Held("why", 7, 8), 12, 34, when)
    (read,) = oracle().read(path, knob)
    check_event(Held("why", 7, 8), 12, 34, when, knob, read)
    if knob.startswith("LEGACY"):
        assert read["ad"]["EventTime"][:19] == local_wall_time(when, False)


@needs_oracle
def test_two_jobs_interleave_in_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.log"
    log = UserLog(path, CHICAGO)
    story = [
        (Submitted("<10.0.0.1:9618>"), 7, 0),
        (Submitted("<10.0.0.1:9618>"), 8, 1),
        (Executing("<10.0.0.2:9618>", "slot1_1@a"), 7, 0),
        (Executing("<10.0.0.3:9618>", "slot1_2@b"), 8, 1),
        (Held("disk full", 13, 2), 8, 1),
        (Terminated(return_value=0, exited_at=FEB_13 + 4), 7, 0),
        (Aborted("via condor_rm (by user bob)"), 8, 1),
    ]
    for step, (event, cluster, proc) in enumerate(story):
        log.write(event, cluster, proc, FEB_13 + step)
    read = oracle().read(path)
    assert [(r["cluster"], r["proc"], r["type"]) for r in read] == [
        (c, p, e.number) for e, c, p in story
    ]
    for step, ((event, cluster, proc), got) in enumerate(zip(story, read, strict=True)):
        check_event(event, cluster, proc, FEB_13 + step, "", got)


@needs_oracle
def test_a_reader_follows_the_file_as_events_are_appended(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    log = UserLog(path, CHICAGO)
    log.write(Submitted("<10.0.0.1:9618>"), 5, 0, FEB_13)
    reader = oracle()
    handle = reader.open(path)
    try:
        assert [e["type"] for e in reader.next(handle)] == [0]
        assert reader.next(handle) == []  # nothing new: the reader does not wait
        log.write(Executing("<10.0.0.2:9618>", "slot1@x"), 5, 0, FEB_13 + 1)
        log.write(ImageSize(2048, 2, 1900), 5, 0, FEB_13 + 2)
        assert [e["type"] for e in reader.next(handle)] == [1, 6]
        # Half an event (what a writer that is not one write per event could leave) is not
        # an event yet; once the rest is there, the reader gives it whole.
        end = Terminated(return_value=0, run_sent_bytes=10)
        text = format_event(end, 5, 0, FEB_13 + 3, CHICAGO)
        half = text.index("\t10  -  Run Bytes Sent")
        with path.open("a", encoding="utf-8") as raw:
            raw.write(text[:half])
            raw.flush()
            assert reader.next(handle) == []
            raw.write(text[half:])
        (last,) = reader.next(handle)
        check_event(end, 5, 0, FEB_13 + 3, "", last)
    finally:
        reader.ask({"op": "close", "handle": handle})


# -- what HTCondor's format cannot carry ---------------------------------------------------
@needs_oracle
def test_what_htcondors_verbatim_text_would_lose(tmp_path: Path) -> None:
    # HTCondor writes a reason as it is. A line break ends the reason and the hold code is
    # lost; a NUL ends the line early; the ends are trimmed. fairpool's single_line keeps
    # the rest of the reason and the code.
    path = tmp_path / "job.log"
    head = "012 (001.000.000) 2024-02-13 10:49:04 Job was held.\n"
    path.write_text(head + "\tfirst\nsecond\n\tCode 3 Subcode 4\n...\n")
    (verbatim,) = oracle().read(path)
    assert (verbatim["ad"]["HoldReason"], verbatim["ad"]["HoldReasonCode"]) == ("first", 0)
    path.write_text(format_event(Held("first\nsecond", 3, 4), 1, 0, FEB_13, CHICAGO))
    (ours,) = oracle().read(path)
    assert (ours["ad"]["HoldReason"], ours["ad"]["HoldReasonCode"]) == ("first second", 3)


@needs_oracle
def test_long_reasons_and_large_counts(tmp_path: Path) -> None:
    # No length limit shows; the reader keeps a terminated event's byte counts as C floats
    # (exact to 2**24) but an evicted event's exactly. fairpool writes every digit.
    path = tmp_path / "job.log"
    reason = "é" * 200_000 + " 日本"
    big = 10**15 + 1
    log = UserLog(path, CHICAGO)
    log.write(Held(reason, 1, 2), 1, 0, FEB_13)
    log.write(Evicted(sent_bytes=big), 1, 0, FEB_13)
    log.write(Terminated(return_value=0, run_sent_bytes=big), 1, 0, FEB_13)
    held, evicted, terminated = oracle().read(path)
    assert held["ad"]["HoldReason"] == reason
    assert path.read_text().count(f"\t{big}  -  Run Bytes Sent By Job\n") == 2
    assert evicted["ad"]["SentBytes"] == big
    assert terminated["ad"]["SentBytes"] == float32(big) != big


@needs_oracle
def test_job_ad_information_reads_back(tmp_path: Path) -> None:
    ad = ClassAd({"Count": 3, "Ok": True, "Owner": "alice", "Note": "a 'q' é", "Ratio": 0.25})
    path = tmp_path / "job.log"
    UserLog(path, CHICAGO).write(JobAdInformation(ad), 2, 1, FEB_13)
    (read,) = oracle().read(path)
    check_event(JobAdInformation(ad), 2, 1, FEB_13, "", read)


@needs_oracle
def test_the_reader_takes_quotes_off_a_slot_name(tmp_path: Path) -> None:
    # Slot names are slotN[_M]@host, so fairpool writes them as given; a quote at either end
    # is lost by HTCondor's reader (it reads the name as if it were quoted).
    path = tmp_path / "job.log"
    for name in ('"x"', 'a""', 'in"side'):
        UserLog(path, CHICAGO).write(Executing("<a>", name), 1, 0, FEB_13)
    assert [r["ad"]["SlotName"] for r in oracle().read(path)] == ["x", 'a"', 'in"side']
