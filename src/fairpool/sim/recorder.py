"""What happened during a run, as plain records: every job's life, and samples of the
submitters and groups taken at regular times. summary.py and outputs.py read them.

Core-hours are counted once per run of a job: a completed run adds its run time times
its cores (goodput); a preempted run adds what it had done to badput; a run still going
at the end adds what it has done so far; time a run spends suspended by its startd is
not run time (it is counted as ``suspended_seconds``). So a trace replayed to the end
delivers exactly the core-hours the trace records, and preemptions show up as badput.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["GroupSample", "JobRecord", "Recorder", "Sample"]


@dataclass(slots=True)
class JobRecord:
    id: str
    submitter: str
    group: str
    submit: float
    cpus: float
    start: float | None = None  # first start
    end: float | None = None
    preemptions: int = 0
    removed: bool = False
    running_since: float | None = None
    good_seconds: float = 0.0  # core-seconds of the completed run
    bad_seconds: float = 0.0  # core-seconds of preempted runs
    paused: float = 0.0  # seconds the current run has been suspended (startd SUSPEND)
    paused_since: float | None = None

    def wait(self) -> float | None:
        return None if self.start is None else self.start - self.submit


@dataclass(frozen=True)
class Sample:
    time: float
    submitter: str
    group: str
    running: float
    idle: int
    rup: float
    eup: float
    factor: float


@dataclass(frozen=True)
class GroupSample:
    time: float
    group: str
    quota: float
    usage: float


@dataclass
class Recorder:
    """Job records by id, samples in time order, and pool capacity over time."""

    start: float
    jobs: dict[str, JobRecord] = field(default_factory=dict)
    samples: list[Sample] = field(default_factory=list)
    group_samples: list[GroupSample] = field(default_factory=list)
    pool_samples: list[tuple[float, float]] = field(default_factory=list)  # (time, cores)
    capacity_seconds: float = 0.0  # core-seconds the pool offered
    cycles: int = 0
    cycles_run: int = 0  # cycles in which run_cycle ran (the rest were shortcuts)
    suspensions: int = 0
    suspended_seconds: float = 0.0  # core-seconds jobs spent suspended
    rejections: dict[str, Counter[str]] = field(default_factory=dict)  # submitter -> reasons
    # (time, submitter, reason, rejections since the sample before), at each sample
    rejection_samples: list[tuple[float, str, str, int]] = field(default_factory=list)
    _rejected_since: Counter[tuple[str, str]] = field(default_factory=Counter)
    _capacity: float = 0.0
    _capacity_since: float = 0.0

    def submitted(self, job: str, submitter: str, group: str, now: float, cpus: float) -> None:
        self.jobs[job] = JobRecord(job, submitter, group, now - self.start, cpus)

    def started(self, job: str, now: float) -> None:
        record = self.jobs[job]
        offset = now - self.start
        if record.start is None:
            record.start = offset
        record.running_since = offset

    def vacated(self, job: str, now: float) -> None:
        record = self.jobs[job]
        record.bad_seconds += self._run_seconds(record, now) * record.cpus
        record.running_since = None
        record.preemptions += 1

    def completed(self, job: str, now: float) -> None:
        record = self.jobs[job]
        record.good_seconds += self._run_seconds(record, now) * record.cpus
        record.end = now - self.start
        record.running_since = None

    def removed(self, job: str, now: float) -> None:
        """condor_rm: a running job's work so far is lost."""
        record = self.jobs[job]
        record.bad_seconds += self._run_seconds(record, now) * record.cpus
        record.running_since = None
        record.end = now - self.start
        record.removed = True

    def suspended(self, job: str, now: float) -> None:
        """The job's startd suspended it (SUSPEND): its run time stops."""
        record = self.jobs[job]
        if record.running_since is not None and record.paused_since is None:
            record.paused_since = now - self.start
            self.suspensions += 1

    def resumed(self, job: str, now: float) -> None:
        """The job runs again (CONTINUE)."""
        record = self.jobs[job]
        if record.paused_since is not None:
            record.paused += now - self.start - record.paused_since
            record.paused_since = None

    def _run_seconds(self, record: JobRecord, now: float) -> float:
        """Seconds the current run has run by ``now`` (suspensions excluded); the run's
        suspended time goes to ``suspended_seconds`` and the run's bookkeeping is reset."""
        if record.running_since is None:
            return 0.0
        self.resumed(record.id, now)
        self.suspended_seconds += record.paused * record.cpus
        run = now - self.start - record.running_since - record.paused
        record.paused = 0.0
        return run

    def rejected(self, submitter: str, reason: str) -> None:
        """The negotiator turned one of the submitter's requests down (an autocluster, for
        the rest of its turn) for ``reason``."""
        self.rejections.setdefault(submitter, Counter())[reason] += 1
        self._rejected_since[(submitter, reason)] += 1

    def sample_rejections(self, now: float) -> None:
        """The rejections since the last sample, as rows of rejections.csv."""
        offset = now - self.start
        for (submitter, reason), count in sorted(self._rejected_since.items()):
            self.rejection_samples.append((offset, submitter, reason, count))
        self._rejected_since.clear()

    def waiting_for(self) -> tuple[str, int] | None:
        """The commonest rejection reason since the last sample, and how often."""
        if not self._rejected_since:
            return None
        reasons: Counter[str] = Counter()
        for (_, reason), count in self._rejected_since.items():
            reasons[reason] += count
        return min(reasons.items(), key=lambda item: (-item[1], item[0]))

    def capacity(self, now: float, cores: float) -> None:
        """The pool's cores change at ``now`` (machines added or removed)."""
        self.capacity_seconds += self._capacity * (now - self._capacity_since)
        self._capacity, self._capacity_since = cores, now

    def finish(self, now: float) -> None:
        """Close the books at the end: running jobs count what they have done so far."""
        self.capacity(now, self._capacity)
        self.sample_rejections(now)
        for record in self.jobs.values():
            if record.running_since is not None:
                record.good_seconds += self._run_seconds(record, now) * record.cpus
                record.running_since = None
