"""Builders for test objects: ``make_slot("slot1@a").cpus(8).claimed_by("bob@d").build()``."""

from __future__ import annotations

from typing import Any

from fairpool.classad import ClassAd, Expr

__all__ = ["group_jobs", "jobs_of", "make_job", "make_slot", "slots"]


class SlotBuilder:
    """A slot ad with the attributes a startd publishes, unclaimed and willing by default."""

    def __init__(self, name: str) -> None:
        slot_part, _, machine = name.partition("@")
        slot_id = int("".join(c for c in slot_part.split("_")[0] if c.isdigit()) or 1)
        self.attrs: dict[str, Any] = {
            "MyType": "Machine",
            "Name": name,
            "Machine": machine or "host",
            "SlotID": slot_id,
            "SlotType": "Static",
            "State": "Unclaimed",
            "Activity": "Idle",
            "Cpus": 1,
            "Memory": 1024,
            "Disk": 1_000_000,
            "Arch": "X86_64",
            "OpSys": "LINUX",
            "START": True,
            "Requirements": Expr("START"),
            "Rank": 0.0,
            "CurrentRank": -1.0,
        }

    def cpus(self, count: int) -> SlotBuilder:
        self.attrs["Cpus"] = count
        return self

    def memory(self, mib: int) -> SlotBuilder:
        self.attrs["Memory"] = mib
        return self

    def partitionable(self) -> SlotBuilder:
        self.attrs.update(SlotType="Partitionable", PartitionableSlot=True)
        return self

    def claimed_by(self, user: str, current_rank: float = 0.0, **job: Any) -> SlotBuilder:
        """Claimed and running a job of ``user`` (the slot's RANK of that job is given)."""
        self.attrs.update(
            State="Claimed",
            Activity="Busy",
            RemoteUser=user,
            RemoteOwner=user,
            CurrentRank=current_rank,
            **job,
        )
        return self

    def rank(self, expr: str) -> SlotBuilder:
        self.attrs["Rank"] = Expr(expr)
        return self

    def start(self, expr: str) -> SlotBuilder:
        self.attrs["START"] = Expr(expr)
        return self

    def set(self, **attrs: Any) -> SlotBuilder:
        self.attrs.update(attrs)
        return self

    def build(self) -> ClassAd:
        return ClassAd(self.attrs)


class JobBuilder:
    """An idle job ad as condor_submit writes one (only what matching reads)."""

    def __init__(self, owner: str, cluster: int = 1, proc: int = 0) -> None:
        self.attrs: dict[str, Any] = {
            "MyType": "Job",
            "Owner": owner,
            "ClusterId": cluster,
            "ProcId": proc,
            "JobStatus": 1,
            "JobPrio": 0,
            "QDate": 1_000_000 + cluster,
            "RequestCpus": 1,
            "RequestMemory": 1,
            "Requirements": True,
            "Rank": 0.0,
        }

    def group(self, group: str, user: str | None = None) -> JobBuilder:
        self.attrs["AccountingGroup"] = f"{group}.{user or self.attrs['Owner']}"
        return self

    def requirements(self, expr: str) -> JobBuilder:
        self.attrs["Requirements"] = Expr(expr)
        return self

    def rank(self, expr: str) -> JobBuilder:
        self.attrs["Rank"] = Expr(expr)
        return self

    def set(self, **attrs: Any) -> JobBuilder:
        self.attrs.update(attrs)
        return self

    def build(self) -> ClassAd:
        return ClassAd(self.attrs)


def make_slot(name: str) -> SlotBuilder:
    return SlotBuilder(name)


def make_job(owner: str, cluster: int = 1, proc: int = 0) -> JobBuilder:
    return JobBuilder(owner, cluster, proc)


def slots(count: int, host: str = "node", **attrs: Any) -> list[ClassAd]:
    """``count`` identical one-core static slots, one per machine."""
    return [make_slot(f"slot1@{host}{i}").set(**attrs).build() for i in range(count)]


def jobs_of(owner: str, count: int, cluster: int = 1, **attrs: Any) -> list[ClassAd]:
    """``count`` identical idle jobs of ``owner`` in one cluster."""
    return [make_job(owner, cluster, proc).set(**attrs).build() for proc in range(count)]


def group_jobs(
    group: str, count: int, cluster: int, user: str = "u", **attrs: Any
) -> list[ClassAd]:
    """``count`` idle jobs of ``user`` charged to accounting group ``group``."""
    return [
        make_job(user, cluster, proc).set(AccountingGroup=f"{group}.{user}", **attrs).build()
        for proc in range(count)
    ]
