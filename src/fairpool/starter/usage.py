"""What a job uses, under the job ad attributes HTCondor's starter reports.

From the HTCondor manual's job ClassAd attributes: ``RemoteUserCpu`` and ``RemoteSysCpu``
are seconds of user and system CPU time; ``ImageSize`` is the maximum observed virtual memory
size, in KiB; ``ResidentSetSize`` the maximum observed physical memory in use, in KiB;
``MemoryUsage`` the peak memory usage in MiB (condor_submit defines it as
``(ResidentSetSize + 1023) / 1024``); ``DiskUsage`` the KiB the job used in its execute
directory. Memory figures sum the whole process tree (the manual: HTCondor's ImageSize sums
the virtual memory sizes of the job's processes) and are peaks over the samples taken; CPU
counts the live processes and the children they have reaped.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

import psutil

__all__ = ["TreeSample", "Usage", "sample_tree"]


@dataclass(frozen=True)
class TreeSample:
    """One look at a process and its descendants (CPU seconds, memory in KiB)."""

    user_cpu: float
    sys_cpu: float
    rss_kib: int
    vms_kib: int


@dataclass(frozen=True)
class Usage:
    """A job's figures so far: CPU totals, memory peaks (KiB), disk (KiB)."""

    remote_user_cpu: float = 0.0
    remote_sys_cpu: float = 0.0
    image_size: int = 0
    resident_set_size: int = 0
    disk_usage: int = 0

    @property
    def memory_usage(self) -> int:
        """MiB, rounded up, as condor_submit's ``MemoryUsage`` expression computes it."""
        return (self.resident_set_size + 1023) // 1024

    def attrs(self) -> dict[str, float | int]:
        """The job ad attributes, under HTCondor's names."""
        return {
            "RemoteUserCpu": self.remote_user_cpu,
            "RemoteSysCpu": self.remote_sys_cpu,
            "ImageSize": self.image_size,
            "ResidentSetSize": self.resident_set_size,
            "MemoryUsage": self.memory_usage,
            "DiskUsage": self.disk_usage,
        }

    def with_sample(self, sample: TreeSample) -> Usage:
        """CPU never goes back (a descendant reaped by init takes its time with it). Each
        ``with_`` makes its Usage directly: ``dataclasses.replace`` reads the fields
        anew at every call, a twentieth of a starter's work per job."""
        return Usage(
            max(self.remote_user_cpu, sample.user_cpu),
            max(self.remote_sys_cpu, sample.sys_cpu),
            max(self.image_size, sample.vms_kib),
            max(self.resident_set_size, sample.rss_kib),
            self.disk_usage,
        )

    def with_rusage(self, usage: resource.struct_rusage) -> Usage:
        """The final CPU figures: the reaped job and every child it reaped (``wait4``).

        Not its ``ru_maxrss``: the kernel carries the peak of the image a process had before
        ``exec`` over into it, and the job's process began as a copy of the starter, so that
        peak is the starter's, not the job's. Memory stays with the sampled peaks."""
        return Usage(
            max(self.remote_user_cpu, usage.ru_utime),
            max(self.remote_sys_cpu, usage.ru_stime),
            self.image_size,
            self.resident_set_size,
            self.disk_usage,
        )

    def with_disk(self, kib: int) -> Usage:
        """The sandbox's size now (KiB)."""
        return Usage(
            self.remote_user_cpu,
            self.remote_sys_cpu,
            self.image_size,
            self.resident_set_size,
            kib,
        )


def sample_tree(pid: int) -> TreeSample | None:
    """The process ``pid`` and all its descendants, or None when it is gone. Processes
    that vanish while we look are skipped."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return None
    user = system = 0.0
    rss = vms = 0
    for process in processes:
        try:
            with process.oneshot():
                times = process.cpu_times()
                memory = process.memory_info()
        except psutil.Error:
            continue
        user += times.user + times.children_user
        system += times.system + times.children_system
        rss += memory.rss
        vms += memory.vms
    return TreeSample(user, system, rss // 1024, vms // 1024)
