"""``use CATEGORY : TEMPLATE(args)`` metaknobs: the templates, as configuration text.

Each template is read like a configuration file at the ``use`` line (so its knobs count as
set there, and ``$(NAME)`` inside one refers to the value before it, as in HTCondor).
``$(0)`` is the whole argument text, ``$(1)``, ``$(2)``... single arguments and
``$(N:default)`` one with a default; ``$(N?)`` is 1 when argument N is given, else 0.

The POLICY and FEATURE texts expand to what HTCondor 25's templates expand to (checked
by tests/config/test_oracle.py against htcondor2). ``POLICY : SEED_DEFAULT`` is
fairpool's own: the default policy of the seed (Condor 6.6 manual §3.6.9.1) with the three
macros it uses but never lists, expanding to spec startd.md §10.2.
"""

from __future__ import annotations

import re

from ..errors import ConfigError

__all__ = ["TEMPLATES", "template_text"]

_FRAGMENTS = """
NonCondorLoadAvg = (LoadAvg - CondorLoadAvg)
CpuBusy = ($(NonCondorLoadAvg) >= $(HighLoad))
CpuIdle = ($(NonCondorLoadAvg) <= $(BackgroundLoad))
KeyboardBusy = (KeyboardIdle < $(MINUTE))
ConsoleBusy = (ConsoleIdle  < $(MINUTE))
KeyboardNotBusy = ($(KeyboardBusy) == False)
JustCPU = ($(CpuBusy) && $(KeyboardNotBusy))
MachineBusy = ($(CpuBusy) || $(KeyboardBusy))
CpuBusyTimer = IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0)
ActivationTimer = ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)
LastCkpt = (time() - LastPeriodicCheckpoint)
STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
PolicyExprFragments = 1
IS_OWNER = (START =?= False)
CLAIM_WORKLIFE =
"""

_DESKTOP = (
    _FRAGMENTS
    + """
SLOTS_CONNECTED_TO_CONSOLE = 1000000
SLOTS_CONNECTED_TO_KEYBOARD = 1000000
START = ((KeyboardIdle > $(StartIdleTime)) && ( $(CpuIdle) || \
(State != "Unclaimed" && State != "Owner")) )
SUSPEND = ($(KeyboardBusy) || ( ($(CpuBusyTimer) > 120) && $(ActivationTimer) > 90))
CONTINUE = ($(CpuIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)))
PREEMPT = (((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || \
(SUSPEND && (WANT_SUSPEND == False)))
KILL = False
WANT_SUSPEND = ($(SmallJob) || $(KeyboardNotBusy) || $(IsVanilla) ) && ( $(SUSPEND))
WANT_VACATE = $(ActivationTimer) > 600 || $(IsVanilla)
MaxJobRetirementTime = 0
"""
)

_UWCS_DESKTOP = (
    _FRAGMENTS
    + """
SLOTS_CONNECTED_TO_KEYBOARD = 1048576
UWCS_START = ( (KeyboardIdle > $(StartIdleTime)) && ( $(CpuIdle) || \
(State != "Unclaimed" && State != "Owner")) )
UWCS_SUSPEND = ( $(KeyboardBusy) || ( ($(CpuBusyTimer) > 2 * $(MINUTE)) && \
$(ActivationTimer) > 90 ) )
UWCS_CONTINUE = ( $(CpuIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)) )
UWCS_PREEMPT = ( ((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || \
(SUSPEND && (WANT_SUSPEND == False)) )
UWCS_KILL = false
UWCS_WANT_SUSPEND = ( $(SmallJob) || $(KeyboardNotBusy) || $(IsVanilla) ) && ( $(SUSPEND) )
UWCS_WANT_VACATE = ( $(ActivationTimer) > 10 * $(MINUTE) || $(IsVanilla) )
UWCS_MaxJobRetirementTime = 0
UWCS_PERIODIC_CHECKPOINT = $(LastCkpt) > (3 * $(HOUR) + $RANDOM_INTEGER(-30,30,1) * $(MINUTE) )
UWCS_NEGOTIATOR_PRE_JOB_RANK = (10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) \
- (100000 * Cpus) - Memory
UWCS_NEGOTIATOR_POST_JOB_RANK = (RemoteOwner =?= UNDEFINED) * \
(ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))
UWCS_PREEMPTION_REQUIREMENTS = ((SubmitterGroup =?= RemoteGroup) && ($(StateTimer) > \
(1 * $(HOUR))) && (RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2)) || (MY.NiceUser == True)
UWCS_PREEMPTION_RANK = (RemoteUserPrio * 1000000) - \
ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)
START = $(UWCS_START)
SUSPEND = $(UWCS_SUSPEND)
CONTINUE = $(UWCS_CONTINUE)
PREEMPT = $(UWCS_PREEMPT)
KILL = $(UWCS_KILL)
WANT_SUSPEND = $(UWCS_WANT_SUSPEND)
WANT_VACATE = $(UWCS_WANT_VACATE)
MaxJobRetirementTime = $(UWCS_MaxJobRetirementTime)
PERIODIC_CHECKPOINT = $(UWCS_PERIODIC_CHECKPOINT)
PREEMPTION_REQUIREMENTS = $(UWCS_PREEMPTION_REQUIREMENTS)
PREEMPTION_RANK = $(UWCS_PREEMPTION_RANK)
NEGOTIATOR_PRE_JOB_RANK = $(UWCS_NEGOTIATOR_PRE_JOB_RANK)
NEGOTIATOR_POST_JOB_RANK = $(UWCS_NEGOTIATOR_POST_JOB_RANK)
"""
)

_ALWAYS_RUN_JOBS = """
START = True
SUSPEND = False
CONTINUE = True
PREEMPT = False
KILL = False
WANT_SUSPEND = False
WANT_VACATE = True
IS_OWNER = False
PREEMPTION_REQUIREMENTS = False
NEGOTIATOR_CONSIDER_PREEMPTION = False
MaxJobRetirementTime = 2147483647
CLAIM_WORKLIFE = 1200
COLLECTOR_FORWARD_CLAIMED_PRIVATE_ADS = False
"""

_SEED_DEFAULT = """
MINUTE = 60
HOUR = (60 * 60)
StateTimer = (CurrentTime - EnteredCurrentState)
ActivityTimer = (CurrentTime - EnteredCurrentActivity)
ActivationTimer = (CurrentTime - JobStart)
LastCkpt = (CurrentTime - LastPeriodicCheckpoint)
NonCondorLoadAvg = (LoadAvg - CondorLoadAvg)
BackgroundLoad = 0.3
HighLoad = 0.5
StartIdleTime = 15 * $(MINUTE)
ContinueIdleTime = 5 * $(MINUTE)
MaxSuspendTime = 10 * $(MINUTE)
MaxVacateTime = 10 * $(MINUTE)
KeyboardBusy = KeyboardIdle < $(MINUTE)
CPUIdle = $(NonCondorLoadAvg) <= $(BackgroundLoad)
CPUBusy = $(NonCondorLoadAvg) >= $(HighLoad)
KeyboardNotBusy = ($(KeyboardBusy) == False)
SmallJob = (TARGET.ImageSize < (15 * 1024))
IsPVM = (TARGET.JobUniverse == 4)
IsVanilla = (TARGET.JobUniverse == 5)
MachineBusy = ($(CPUBusy) || $(KeyboardBusy))
START = ( (KeyboardIdle > $(StartIdleTime)) && ( $(CPUIdle) || \
(State != "Unclaimed" && State != "Owner")) )
WANT_SUSPEND = ( $(SmallJob) || $(KeyboardNotBusy) || $(IsPVM) || $(IsVanilla) )
WANT_VACATE = ( $(ActivationTimer) > $(MaxVacateTime) || $(IsPVM) || $(IsVanilla) )
SUSPEND = ( $(KeyboardBusy) || ( (CpuBusyTime > 2 * $(MINUTE)) && $(ActivationTimer) > 90 ) )
CONTINUE = ( $(CPUIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)) )
PREEMPT = ( ((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || \
(SUSPEND && (WANT_SUSPEND == False)) )
KILL = $(ActivityTimer) > $(MaxVacateTime)
PERIODIC_CHECKPOINT = ( (ImageSize < 60000) && ($(LastCkpt) > (6 * $(HOUR))) ) || \
( $(LastCkpt) > (12 * $(HOUR)) )
CpuBusy = $(CPUBusy)
"""

_PARTITIONABLE_SLOT = """
SLOT_TYPE_$(1:1) = $(2:100%)
NUM_SLOTS_TYPE_$(1:1) = 1
SLOT_TYPE_$(1:1)_PARTITIONABLE = true
"""

_STATIC_SLOTS = """
NUM_SLOTS_TYPE_$(1:1) = $(2:$(NUM_CPUS))
SLOT_TYPE_$(1:1) = $(3)
SLOT_TYPE_$(1:1)_PARTITIONABLE = false
"""

_GPUS = """
MACHINE_RESOURCE_INVENTORY_GPUs = $(LIBEXEC)/condor_gpu_discovery $(1) -properties \
$(GPU_DISCOVERY_EXTRA)
ENVIRONMENT_FOR_AssignedGPUs = GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//
ENVIRONMENT_VALUE_FOR_UnAssignedGPUs = 10000
STARTD_CRON_JOBLIST = $(STARTD_CRON_JOBLIST) GPUs_MONITOR
STARTD_CRON_GPUs_MONITOR_MODE = WaitForExit
STARTD_CRON_GPUs_MONITOR_PERIOD = 300
STARTD_CRON_GPUs_MONITOR_EXECUTABLE = $(LIBEXEC)/condor_gpu_utilization
STARTD_CRON_GPUs_MONITOR_METRICS = SUM:GPUs, PEAK:GPUsMemory
STARTD_CRON_GPUs_MONITOR_CONDITION = TotalGPUs > 0 && OpSys =!= "WINDOWS"
STARTD_JOB_ATTRS = $(STARTD_JOB_ATTRS) GPUsUsage GPUsMemoryUsage
"""

_ASSIGN_ACCOUNTING_GROUP = """
CLASSAD_USER_MAPFILE_AssignAccountingGroup = $(1)
SCHEDD_CLASSAD_USER_MAP_NAMES = $(SCHEDD_CLASSAD_USER_MAP_NAMES) AssignAccountingGroup
JOB_TRANSFORM_AssignAccountingGroup @=end
COPY Owner = AcctGroupUser
COPY AcctGroup = RequestedAcctGroup
EVALSET AcctGroup = usermap("AssignAccountingGroup",AcctGroupUser,AcctGroup)
EVALSET AccountingGroup = join(".",AcctGroup,AcctGroupUser)
@end
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AssignAccountingGroup
if $(2:true)
SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) CheckRequestedGroup AssignAccountingGroup
SUBMIT_REQUIREMENT_CheckRequestedGroup = RequestedAcctGroup is undefined || \
RequestedAcctGroup == AcctGroup
SUBMIT_REQUIREMENT_CheckRequestedGroup_REASON = \
strcat("Permission denied setting accounting_group to ", RequestedAcctGroup)
else
SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) AssignAccountingGroup
endif
SUBMIT_REQUIREMENT_AssignAccountingGroup = AcctGroup isnt undefined && \
AccountingGroup isnt undefined
SUBMIT_REQUIREMENT_AssignAccountingGroup_REASON = strcat("Submit requirement \
AssignAccountingGroup not met - Could not map '", Owner, "' to an accounting group ", \
RequestedAcctGroup)
IMMUTABLE_JOB_ATTRS = $(IMMUTABLE_JOB_ATTRS) AcctGroup AcctGroupUser AccountingGroup
"""

_GANGLIA = """
DAEMON_LIST = $(DAEMON_LIST) GANGLIAD
"""
_ADSTASH = """
DAEMON_LIST = $(DAEMON_LIST) ADSTASH
"""

TEMPLATES: dict[tuple[str, str], str] = {
    ("POLICY", "DESKTOP"): _DESKTOP,
    ("POLICY", "UWCS_DESKTOP"): _UWCS_DESKTOP,
    ("POLICY", "ALWAYS_RUN_JOBS"): _ALWAYS_RUN_JOBS,
    ("POLICY", "SEED_DEFAULT"): _SEED_DEFAULT,
    ("FEATURE", "PARTITIONABLESLOT"): _PARTITIONABLE_SLOT,
    ("FEATURE", "STATICSLOTS"): _STATIC_SLOTS,
    ("FEATURE", "GPUS"): _GPUS,
    ("FEATURE", "ASSIGNACCOUNTINGGROUP"): _ASSIGN_ACCOUNTING_GROUP,
    ("FEATURE", "GANGLIA"): _GANGLIA,
    ("FEATURE", "ADSTASH"): _ADSTASH,
}

_ARG = re.compile(r"\$\((\d+)(\?|:(?:[^()]|\([^()]*\))*)?\)")


def template_text(category: str, call: str, source: str, line: int) -> str:
    """The text of ``TEMPLATE(args)`` in ``category`` with its arguments put in."""
    name, paren, rest = call.strip().partition("(")
    if paren and not rest.rstrip().endswith(")"):
        raise ConfigError(f"expected ')' after the arguments of {call.strip()!r}", source, line)
    text = TEMPLATES.get((category.strip().upper(), name.strip().upper()))
    if text is None:
        known = sorted(n for c, n in TEMPLATES if c == category.strip().upper())
        raise ConfigError(
            f"unknown metaknob {category.strip()}:{name.strip()} "
            f"(expected one of: {', '.join(known) or 'none in this category'})",
            source,
            line,
        )
    whole = rest.rstrip()[:-1].strip() if paren else ""
    args = [a.strip() for a in whole.split(",")] if whole else []

    def put(match: re.Match[str]) -> str:
        index, tail = int(match.group(1)), match.group(2) or ""
        given = whole if index == 0 else (args[index - 1] if index <= len(args) else "")
        if tail == "?":
            return "1" if given else "0"
        return given or tail[1:]

    return _ARG.sub(put, text)
