"""The job's environment: what it asked for, plus what HTCondor's starter adds.

The job does not inherit the starter's environment (HTCondor's rule: runs must not depend on
the machine's). The starter adds the variables the HTCondor manual lists under "Extra
Environment Variables HTCondor sets for Jobs" that make sense here: ``_CONDOR_SCRATCH_DIR``,
``_CONDOR_SLOT``, ``_CONDOR_JOB_AD``, ``_CONDOR_MACHINE_AD`` (when there is a machine ad),
``_CONDOR_JOB_IWD`` (the directory the job starts in: the sandbox when files are
transferred), ``BATCH_SYSTEM=HTCondor``, the thread-count variables set to the slot's cores
(``STARTER_NUM_THREADS_ENV_VARS``' defaults), ``HOME`` (``STARTER_SETS_HOME_ENV`` defaults to
true) and the container cache directories pointed at the sandbox. The job's own values win
for the thread counts and HOME; the starter's win for the rest, which describe the run.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["THREAD_VARIABLES", "job_run_environment"]

THREAD_VARIABLES = (
    "CUBACORES",
    "GOMAXPROCS",
    "JULIA_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "OMP_NUM_THREADS",
    "OMP_THREAD_LIMIT",
    "OPENBLAS_NUM_THREADS",
    "PYTHON_CPU_COUNT",
    "ROOT_MAX_THREADS",
    "TF_LOOP_PARALLEL_ITERATIONS",
    "TF_NUM_THREADS",
)


def job_run_environment(
    requested: dict[str, str],
    *,
    scratch: str,
    cwd: str,
    slot: str,
    cpus: int,
    home: str,
    job_ad: str,
    machine_ad: str | None,
    assigned: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The complete environment the job is exec'd with (``assigned``: the startd's
    variables for the slot's assigned resources, such as ``CUDA_VISIBLE_DEVICES``, which
    override the job's own)."""
    environment = dict(requested)
    environment.update(assigned or {})
    for name in THREAD_VARIABLES:
        environment.setdefault(name, str(cpus))
    environment.setdefault("HOME", home)
    environment.update(
        {
            "_CONDOR_SCRATCH_DIR": scratch,
            "_CONDOR_SLOT": slot.partition("@")[0],
            "_CONDOR_JOB_AD": job_ad,
            "_CONDOR_JOB_IWD": cwd,
            "BATCH_SYSTEM": "HTCondor",
            "SINGULARITY_CACHEDIR": scratch,
            "APPTAINER_CACHEDIR": scratch,
        }
    )
    if machine_ad is not None:
        environment["_CONDOR_MACHINE_AD"] = machine_ad
    return environment
