"""The rows of the parameter table (params.py): name, type, default text (None: unset), doc.

Grouped as the seeds and spec group them. The startd policy defaults are the seed's
default policy expanded (spec startd.md §10.2), fairpool's default profile.
"""

from __future__ import annotations

__all__ = ["ROWS"]

_LEVELS = ("READ", "WRITE", "ADMINISTRATOR", "DAEMON", "NEGOTIATOR")

_PRE_JOB_RANK = (
    "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory"
)
_POST_JOB_RANK = (
    "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops)"
    " - SlotID - 1.0e10*(Offline=?=True))"
)
_PREEMPTION_RANK = (
    "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)"
)
_GROUP_SORT_EXPR = (
    'ifThenElse(AccountingGroup=?="<none>",3.4e+38,'
    "ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))"
)

_ACCOUNTANT = [
    ("PRIORITY_HALFLIFE", "float", "86400", "seconds for a user's priority to decay halfway"),
    ("DEFAULT_PRIO_FACTOR", "float", "1000", "priority factor of a new submitter"),
    ("NICE_USER_PRIO_FACTOR", "float", "1e10", "priority factor of nice-user jobs"),
    ("REMOTE_PRIO_FACTOR", "float", "1e7", "factor of submitters outside the local domain"),
    ("ACCOUNTANT_LOCAL_DOMAIN", "string", None, "submitters' local domain (unset: all local)"),
    ("ACCOUNTANT_DATABASE_FILE", "path", "$(SPOOL)/Accountantnew.log", "the accountant's log"),
    ("MAX_ACCOUNTANT_DATABASE_SIZE", "int", "1000000", "bytes before the log is compacted"),
    ("ACCOUNTING_DOMAIN", "string", "$(UID_DOMAIN)", "domain appended to submitter names"),
    ("UID_DOMAIN", "string", "localdomain", "the pool's user domain (HTCondor: the host name)"),
    (
        "FILESYSTEM_DOMAIN",
        "string",
        "$(UID_DOMAIN)",
        "machines sharing a file system (HTCondor: host)",
    ),
    ("NICE_USER_ACCOUNTING_GROUP_NAME", "string", "nice-user", "accounting prefix of nice jobs"),
    ("SPOOL", "path", "$(LOCAL_DIR)/spool", "the spool directory"),
    (
        "DATABASE_URL",
        "string",
        None,
        "fairpool: the pool's database, an SQLAlchemy URL (unset: SQLite in SPOOL)",
    ),
    ("LOCAL_DIR", "path", "/var/lib/condor", "the daemon's local state directory"),
    ("LOG", "path", "$(LOCAL_DIR)/log", "the log directory"),
    ("RELEASE_DIR", "path", "/usr", "where HTCondor is installed"),
    ("BIN", "path", "$(RELEASE_DIR)/bin", "HTCondor's programs"),
    ("SBIN", "path", "$(RELEASE_DIR)/sbin", "HTCondor's daemons"),
    ("LIBEXEC", "path", "$(RELEASE_DIR)/libexec", "HTCondor's helper programs"),
    *(
        (daemon, "path", f"$(SBIN)/condor_{daemon.lower()}", f"the condor_{daemon.lower()} program")
        for daemon in ("MASTER", "COLLECTOR", "NEGOTIATOR", "SCHEDD", "STARTD", "HAD")
    ),
    ("REPLICATION", "path", "$(SBIN)/condor_replication", "the replication daemon"),
    ("DEFRAG", "path", "$(LIBEXEC)/condor_defrag", "the condor_defrag program"),
    ("SHARED_PORT_PORT", "int", "9618", "the shared port daemon's port"),
    ("LOCAL_CONFIG_FILE", "list", None, "more configuration files, read after the main one"),
    ("LOCAL_CONFIG_DIR", "list", None, "directories of configuration files, read before those"),
    ("REQUIRE_LOCAL_CONFIG_FILE", "bool", "True", "a missing LOCAL_CONFIG_FILE is an error"),
    (
        "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP",
        "string",
        r"^((\..*)|(.*\.pl)|(.*\.py)|(.*\.sh)|(.*~)|(#.*)|(.*\.rpmsave)|(.*\.rpmnew)"
        r"|(.*\.dpkg-old)|(.*\.dpkg-dist)|(.*\.cfsaved))$",
        "files in LOCAL_CONFIG_DIR that are skipped",
    ),
]

_NEGOTIATOR = [
    ("NEGOTIATOR_INTERVAL", "int", "60", "seconds between negotiation cycles"),
    ("NEGOTIATOR_MIN_INTERVAL", "int", "5", "shortest time between two cycles"),
    ("NEGOTIATOR_CYCLE_DELAY", "int", "20", "seconds to wait after a cycle"),
    ("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", "int", "60", "seconds a submitter may take"),
    ("NEGOTIATOR_MAX_TIME_PER_SCHEDD", "int", "120", "seconds a schedd may take"),
    ("NEGOTIATOR_MAX_TIME_PER_PIESPIN", "int", "120", "seconds one pie spin may take"),
    ("NEGOTIATOR_MAX_TIME_PER_CYCLE", "int", "1200", "seconds one cycle may take"),
    ("NEGOTIATOR_TIMEOUT", "int", "30", "network timeout of the negotiator"),
    ("NEGOTIATOR_CONSIDER_PREEMPTION", "bool", "True", "match jobs to claimed slots"),
    ("NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", "bool", "False", "preempt before retirement ends"),
    ("PREEMPTION_REQUIREMENTS", "expr", "False", "when a claimed slot may go to a better user"),
    ("PREEMPTION_REQUIREMENTS_STABLE", "bool", "True", "PREEMPTION_REQUIREMENTS is cacheable"),
    ("PREEMPTION_RANK", "expr", _PREEMPTION_RANK, "which claimed slot to preempt first"),
    ("PREEMPTION_RANK_STABLE", "bool", "True", "PREEMPTION_RANK is cacheable"),
    ("NEGOTIATOR_PRE_JOB_RANK", "expr", _PRE_JOB_RANK, "slot order before the job's RANK"),
    ("NEGOTIATOR_POST_JOB_RANK", "expr", _POST_JOB_RANK, "slot order after the job's RANK"),
    ("NEGOTIATOR_PREEMPT_ON_BETTER_PRIORITY_ONLY", "bool", "True", "seed rule (docs/compat.md)"),
    ("NEGOTIATOR_FLOOR_IS_ADDITIONAL", "bool", "False", "floors add to usage (compat.md)"),
    ("NEGOTIATOR_CROSS_SLOT_PRIOS", "bool", "True", "define Slot<N>_RemoteUserPrio"),
    ("NEGOTIATOR_USE_SLOT_WEIGHTS", "bool", "True", "charge users SLOT_WEIGHT, not 1"),
    ("SLOT_WEIGHT", "expr", "Cpus", "a slot's weight in priorities and quotas"),
    ("FORCE_NEGOTIATOR_SLOT_WEIGHT", "bool", "False", "ignore the slot's own SlotWeight"),
    ("SCHEDD_SLOT_WEIGHT", "expr", None, "the schedd's view of a slot's weight"),
    ("NEGOTIATOR_SLOT_CONSTRAINT", "expr", None, "slots this negotiator considers"),
    ("NEGOTIATOR_SUBMITTER_CONSTRAINT", "expr", None, "submitters this negotiator serves"),
    ("NEGOTIATOR_JOB_CONSTRAINT", "expr", None, "jobs this negotiator considers"),
    ("NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT", "expr", None, "slots counted for quotas"),
    ("GROUP_DYNAMIC_MACH_CONSTRAINT", "expr", None, "old name of the pool-size constraint"),
    ("NEGOTIATOR_IGNORE_USER_PRIORITIES", "bool", "False", "serve submitters in any order"),
    ("NEGOTIATOR_IGNORE_JOB_RANKS", "bool", "False", "leave job RANK out of slot order"),
    ("NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES", "bool", "False", "suspended slots cost none"),
    ("NEGOTIATOR_MATCHLIST_CACHING", "bool", "True", "reuse an autocluster's slot list"),
    ("NEGOTIATOR_DEPTH_FIRST", "bool", "False", "fill machines one at a time"),
    ("NEGOTIATOR_INFORM_STARTD", "bool", "False", "tell the startd about its match"),
    ("NEGOTIATOR_NAME", "string", None, "this negotiator's name (several negotiators)"),
    ("NEGOTIATOR_MATCH_EVALUATOR", "string", "vector", "vector or scalar matchmaking"),
    ("NEGOTIATOR_NUM_THREADS", "int", "1", "matchmaking threads"),
    ("NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE", "int", "200", "requests fetched at once"),
    ("NEGOTIATOR_PREFETCH_REQUESTS", "bool", "True", "fetch requests before the spin"),
    ("NEGOTIATOR_READ_CONFIG_BEFORE_CYCLE", "bool", "False", "reread the configuration"),
    ("NEGOTIATOR_TRIM_SHUTDOWN_THRESHOLD", "int", "0", "trim slots when so many shut down"),
    ("NEGOTIATOR_ADVERTISE_ACCOUNTING", "bool", "True", "publish accounting ads"),
    ("NEGOTIATOR_CLASSAD_USER_MAP_NAMES", "list", None, "map files usermap() may read"),
    ("NEGOTIATOR_USE_WEIGHTED_DEMAND", "bool", "True", "count demand in slot weight"),
    ("NEGOTIATOR_STRICT_ENFORCE_QUOTA", "bool", "True", "never match past a group's quota"),
    ("NEGOTIATE_ALL_JOBS_IN_CLUSTER", "bool", "False", "try every job of a cluster"),
    ("SIGNIFICANT_ATTRIBUTES", "list", None, "attributes that make autoclusters"),
    ("ADD_SIGNIFICANT_ATTRIBUTES", "list", None, "attributes added to those"),
    (
        "REMOVE_SIGNIFICANT_ATTRIBUTES",
        "list",
        "CpusUsage,DiskUsage,GPUsUsage,MemoryUsage,ResidentSetSize",
        "attributes taken out of those",
    ),
    ("USE_GLOBAL_JOB_PRIOS", "bool", "False", "order jobs across clusters by priority"),
    ("ALLOW_PSLOT_PREEMPTION", "bool", "False", "preempt several dynamic slots at once"),
    ("USE_RESOURCE_REQUEST_COUNTS", "bool", "True", "requests carry a job count"),
    ("CONSUMPTION_POLICY", "bool", "False", "the negotiator carves partitionable slots"),
    *(
        (f"CONSUMPTION_{r.upper()}", "expr", f"quantize(target.Request{r},{{{q}}})", d)
        for r, q, d in (
            ("Cpus", "1", "cpus a job takes of a consumption-policy p-slot"),
            ("Memory", "128", "memory a job takes of a consumption-policy p-slot"),
            ("Disk", "1024", "disk a job takes of a consumption-policy p-slot"),
        )
    ),
    ("CLAIM_PARTITIONABLE_LEFTOVERS", "bool", "true", "schedd reuses a p-slot's rest"),
    ("MAX_TIME_PER_PIESPIN", "int", None, "old name of NEGOTIATOR_MAX_TIME_PER_PIESPIN"),
]

_GROUPS = [
    ("GROUP_NAMES", "list", None, "accounting groups (empty: no group quotas)"),
    ("GROUP_ACCEPT_SURPLUS", "bool", "False", "groups may use others' unused quota"),
    ("GROUP_AUTOREGROUP", "bool", "False", "a group's jobs also negotiate as <none>"),
    ("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", "bool", "False", "children may exceed parent"),
    ("GROUP_SORT_EXPR", "expr", _GROUP_SORT_EXPR, "the order groups negotiate in"),
    (
        "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS",
        "int",
        "$(HFS_MAX_ALLOCATION_ROUNDS:3)",
        "surplus allocation rounds",
    ),
    (
        "GROUP_QUOTA_ROUND_ROBIN_RATE",
        "float",
        "$(HFS_ROUND_ROBIN_RATE:1.0e100)",
        "slots a group gets per round",
    ),
    ("HFS_MAX_ALLOCATION_ROUNDS", "int", None, "old name of the allocation rounds"),
    ("HFS_ROUND_ROBIN_RATE", "float", None, "old name of the round robin rate"),
    ("GROUP_PREFIX", "string", "group_", "conventional prefix of group names"),
]

_LIMITS = [
    ("CONCURRENCY_LIMIT_DEFAULT", "float", None, "limit of a name with no <NAME>_LIMIT"),
    ("PREEMPTION_LIMIT", "int", None, "most preemptions per cycle"),
]

_STARTD = [
    (
        "START",
        "expr",
        "( (KeyboardIdle > 15 * 60) && ( (LoadAvg - CondorLoadAvg) <= 0.3 || "
        '(State != "Unclaimed" && State != "Owner")) )',
        "when the slot is willing to start a job",
    ),
    ("IS_OWNER", "expr", "(START =?= False)", "TRUE keeps the slot in the Owner state"),
    ("RANK", "expr", "0", "how much the slot prefers a job"),
    (
        "SUSPEND",
        "expr",
        "( KeyboardIdle < 60 || ( (CpuBusyTime > 2 * 60) && (CurrentTime - JobStart) > 90 ) )",
        "suspend the job (if WANT_SUSPEND)",
    ),
    (
        "CONTINUE",
        "expr",
        "( (LoadAvg - CondorLoadAvg) <= 0.3 && ((CurrentTime - EnteredCurrentActivity) > 10) "
        "&& (KeyboardIdle > 5 * 60) )",
        "resume a suspended job",
    ),
    (
        "PREEMPT",
        "expr",
        '( ((Activity == "Suspended") && ((CurrentTime - EnteredCurrentActivity) > 10 * 60)) '
        "|| (SUSPEND && (WANT_SUSPEND == False)) )",
        "evict the job",
    ),
    (
        "KILL",
        "expr",
        "(CurrentTime - EnteredCurrentActivity) > 10 * 60",
        "hard-kill a vacating job",
    ),
    (
        "WANT_SUSPEND",
        "expr",
        "( (TARGET.ImageSize < (15 * 1024)) || (KeyboardIdle < 60 == False) || "
        "(TARGET.JobUniverse == 4) || (TARGET.JobUniverse == 5) )",
        "consider SUSPEND rather than PREEMPT",
    ),
    (
        "WANT_VACATE",
        "expr",
        "( (CurrentTime - JobStart) > 10 * 60 || (TARGET.JobUniverse == 4) || "
        "(TARGET.JobUniverse == 5) )",
        "vacate (soft kill) rather than kill",
    ),
    (
        "PERIODIC_CHECKPOINT",
        "expr",
        "( (ImageSize < 60000) && ((CurrentTime - LastPeriodicCheckpoint) > (6 * (60 * 60))) ) "
        "|| ( (CurrentTime - LastPeriodicCheckpoint) > (12 * (60 * 60)) )",
        "checkpoint a standard-universe job now",
    ),
    ("CpuBusy", "expr", "(LoadAvg - CondorLoadAvg) >= 0.5", "drives CpuBusyTime"),
    *(
        (f"{n}_VANILLA", "expr", None, f"{n} for vanilla-universe jobs")
        for n in ("SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE")
    ),
    ("WANT_HOLD", "expr", "False", "put the job on hold instead of evicting it"),
    ("MaxJobRetirementTime", "expr", None, "seconds a job may retire before eviction"),
    ("MachineMaxVacateTime", "expr", "600", "seconds a job may take to vacate"),
    ("CLAIM_WORKLIFE", "int", None, "seconds a claim may start new jobs"),
    ("MATCH_TIMEOUT", "int", "300", "seconds in Matched before giving up"),
    ("KILLING_TIMEOUT", "int", "30", "seconds in Killing before SIGKILL"),
    ("POLLING_INTERVAL", "int", "5", "seconds between policy passes while claimed"),
    ("UPDATE_INTERVAL", "int", "300", "seconds between updates to the collector"),
    ("RunBenchmarks", "expr", None, "run benchmarks (Unclaimed)"),
    ("UNCLAIMED_CURRENT_RANK", "float", "-1.0", "CurrentRank while unclaimed (DIV-8)"),
    ("MATCHED_CHECKS_START", "bool", "True", "re-check START in Matched (DIV-1)"),
    ("STALE_AD_IN_ENTER_ACTION", "bool", "True", "enter actions see the old ad (DIV-10)"),
    ("MUST_MODIFY_REQUEST_EXPRS", "bool", "False", "no retry with the raw request"),
    ("DEFAULT_DRAINING_START_EXPR", "expr", None, "START while draining"),
    ("STARTD_ATTRS", "list", None, "knobs copied into the slot ad"),
    ("STARTD_EXPRS", "list", None, "the same, the older name"),
    ("STARTD_JOB_ATTRS", "list", None, "job attributes copied into the slot ad"),
    ("STARTD_LATCH_EXPRS", "list", None, "expressions whose changes are timed"),
    ("SLOTS_CONNECTED_TO_KEYBOARD", "int", "0", "slots that see keyboard activity"),
    ("SLOTS_CONNECTED_TO_CONSOLE", "int", "0", "slots that see console activity"),
    ("NUM_CPUS", "int", "$(DETECTED_CPUS)", "CPUs the startd advertises"),
    ("NUM_SLOTS", "int", None, "identical static slots to make"),
    ("RESERVED_MEMORY", "int", "0", "MiB of the machine's memory kept from the slots"),
    ("MAX_SLOT_TYPES", "int", "10", "slot types the startd reads"),
    *(
        (f"MODIFY_REQUEST_EXPR_REQUEST{r.upper()}", "expr", f"quantize(Request{r},{{{q}}})", d)
        for r, q, d in (
            ("Cpus", "1", "rounds RequestCpus for a dynamic slot"),
            ("Memory", "128", "rounds RequestMemory for a dynamic slot"),
            ("Disk", "1024", "rounds RequestDisk for a dynamic slot"),
        )
    ),
    ("MINUTE", "int", "60", "macro: seconds in a minute"),
    ("HOUR", "int", "3600", "macro: seconds in an hour"),
    ("StateTimer", "expr", "(time() - EnteredCurrentState)", "macro: time in this state"),
    ("ActivityTimer", "expr", "(time() - EnteredCurrentActivity)", "macro: time in activity"),
    ("BackgroundLoad", "float", "0.3", "macro: load counted as idle"),
    ("HighLoad", "float", "0.5", "macro: load counted as busy"),
    ("StartIdleTime", "int", "15 * 60", "macro: keyboard idle time before START"),
    ("ContinueIdleTime", "int", "5 * 60", "macro: keyboard idle time before CONTINUE"),
    ("MaxSuspendTime", "int", "10 * 60", "macro: longest suspension before PREEMPT"),
    ("MaxVacateTime", "int", "10 * 60", "macro: longest vacate before KILL"),
    ("SmallJob", "expr", "(TARGET.ImageSize <  (15 * 1024))", "macro: a job under 15 MiB"),
    ("IsVanilla", "expr", "(TARGET.JobUniverse == 5)", "macro: a vanilla-universe job"),
    ("IsPVM", "expr", "(TARGET.JobUniverse == 4)", "macro: a PVM-universe job"),
    ("GPU_DISCOVERY_EXTRA", "string", "", "extra options of GPU discovery (-simulate:D,N)"),
    ("MACHINE_RESOURCE_INVENTORY_GPUs", "string", None, "GPU discovery (use FEATURE : GPUs)"),
    ("GPU_SIMULATED_USAGE", "string", None, "fairpool: simulated GPUs' busy/MiB by id"),
    (
        "ENVIRONMENT_FOR_AssignedGPUs",
        "string",
        "GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//",
        "job variables set to the slot's GPUs",
    ),
    ("ENVIRONMENT_VALUE_FOR_UnAssignedGPUs", "string", "10000", "their value with no GPU"),
    ("STARTD_CRON_JOBLIST", "list", None, "startd cron jobs (GPUs_MONITOR: GPU monitoring)"),
    ("STARTD_CRON_GPUs_MONITOR_PERIOD", "int", None, "seconds between GPU readings"),
]

_DEFRAG = [
    ("DEFRAG_NAME", "string", None, "the defrag daemon's name"),
    ("DEFRAG_INTERVAL", "int", "600", "seconds between defrag polls"),
    ("DEFRAG_DRAINING_MACHINES_PER_HOUR", "float", "0", "machines to start draining per hour"),
    ("DEFRAG_MAX_CONCURRENT_DRAINING", "int", "-1", "most machines draining (-1: no limit)"),
    ("DEFRAG_MAX_WHOLE_MACHINES", "int", "-1", "stop when so many are whole (-1: no limit)"),
    ("DEFRAG_REQUIREMENTS", "expr", None, "machines that may be drained"),
    ("DEFRAG_RANK", "expr", "-ExpectedMachineGracefulDrainingBadput", "drain the best first"),
    ("DEFRAG_WHOLE_MACHINE_EXPR", "expr", "Cpus == TotalSlotCpus", "a machine that is whole"),
    ("DEFRAG_CANCEL_REQUIREMENTS", "expr", "$(DEFRAG_WHOLE_MACHINE_EXPR)", "stop draining when"),
    ("DEFRAG_DRAINING_SCHEDULE", "string", "$(DEFRAG_SCHEDULE:graceful)", "graceful|quick|fast"),
    ("DEFRAG_SCHEDULE", "string", None, "the documented name of DEFRAG_DRAINING_SCHEDULE"),
    ("DEFRAG_DRAINING_START_EXPR", "expr", "FALSE", "START while gracefully draining"),
    ("DEFRAG_UPDATE_INTERVAL", "int", "300", "seconds between Defrag ad updates"),
    ("DEFRAG_LOG", "path", "$(LOG)/DefragLog", "the defrag daemon's log"),
    ("DEFRAG_STATE_FILE", "path", "$(SPOOL)/defrag_state", "the defrag daemon's counters"),
]

_COLLECTOR = [
    ("CLASSAD_LIFETIME", "int", "900", "seconds before a silent ad expires"),
    ("ABSENT_REQUIREMENTS", "expr", None, "expired slot ads kept as absent"),
    ("ABSENT_EXPIRE_ADS_AFTER", "int", "2592000", "seconds absent ads are kept (0: forever)"),
    ("EXPIRE_INVALIDATED_ADS", "bool", "False", "invalidated ads expire (may turn absent)"),
    ("OFFLINE_EXPIRE_ADS_AFTER", "int", "2147483647", "seconds offline ads are kept (0: forever)"),
    ("COLLECTOR_PERSISTENT_AD_LOG", "path", None, "where absent and offline ads are kept"),
    ("CONDOR_VIEW_HOST", "list", None, "HTCondorView servers to forward ads to"),
    ("KEEP_POOL_HISTORY", "bool", "False", "the collector records pool history"),
    ("POOL_HISTORY_DIR", "path", "$(SPOOL)", "where pool history is stored"),
    ("POOL_HISTORY_MAX_STORAGE", "int", "10000000", "bytes of pool history kept"),
    ("POOL_HISTORY_SAMPLING_INTERVAL", "int", "60", "seconds between history samples"),
    ("CONDOR_HOST", "string", None, "the central manager's host"),
    ("COLLECTOR_HOST", "list", "$(CONDOR_HOST:)", "the collectors (several: updates go to all)"),
    ("COLLECTOR_ARGS", "string", None, "-p PORT: which COLLECTOR_HOST entry is this one"),
    ("COLLECTOR_DAEMON_STATS", "bool", "True", "ads carry UpdatesTotal, UpdatesLost..."),
    ("DAEMON_LIST", "list", "MASTER", "daemons the master runs"),
]

_HOSTS = [
    (
        "NETWORK_INTERFACE",
        "string",
        "127.0.0.1",
        "where to listen and what to advertise (HTCondor: *)",
    ),
    ("BIND_ALL_INTERFACES", "bool", "False", "listen on every interface (HTCondor: True)"),
    ("MASTER_NAME", "string", None, "the master's name (name@host); names its schedd too"),
    ("SCHEDD_NAME", "string", None, "the schedd's name (name@host)"),
    ("STARTD_NAME", "string", None, "the startd's name (name@host): slots slotN@name@host"),
    ("MASTER_UPDATE_INTERVAL", "int", "300", "seconds between DaemonMaster ad updates"),
]

_HAD = [
    ("HAD_LIST", "list", None, "hosts and ports of the HAD daemons"),
    ("HAD_PORT", "int", None, "the HAD daemon's port"),
    ("HAD_ARGS", "string", "-sock had", "the HAD daemon's arguments"),
    ("HAD_USE_PRIMARY", "bool", "False", "the first host in HAD_LIST is primary"),
    ("HAD_USE_REPLICATION", "bool", "False", "replicate the accountant's state"),
    (
        "HAD_CONNECTION_TIMEOUT",
        "float",
        "5",
        "seconds to reach another HAD (fairpool: the database; fractions allowed)",
    ),
    ("HAD_UPDATE_INTERVAL", "int", "300", "seconds between HAD ads"),
    ("HAD_CONTROLLEE", "string", "NEGOTIATOR", "the daemon HAD keeps single"),
    ("REPLICATION_LIST", "list", None, "hosts and ports of the replication daemons"),
    ("REPLICATION_INTERVAL", "int", "300", "seconds between replications"),
    ("MASTER_HAD_BACKOFF_CONSTANT", "int", None, "master's restart backoff for HAD"),
]

_MONITORING = [
    ("GANGLIAD_INTERVAL", "int", "60", "seconds between Ganglia publications"),
    ("GANGLIAD_VERBOSITY", "int", "0", "which metrics are published"),
    ("GANGLIAD_REQUIREMENTS", "expr", None, "ads whose metrics are published"),
    ("GANGLIAD_PER_EXECUTE_NODE_METRICS", "bool", "True", "publish per-node metrics"),
    ("GANGLIAD_METRICS_CONFIG_DIR", "path", None, "metric definitions (unset: fairpool's set)"),
    ("GANGLIAD_DEFAULT_MACHINE", "expr", None, "machine of a metric of one daemon ad"),
    ("GANGLIAD_DEFAULT_IP", "expr", None, "address of a metric of one daemon ad"),
    ("GANGLIAD_MIN_METRIC_LIFETIME", "int", None, "least seconds a metric lives (DMAX)"),
    ("GANGLIA_CONFIG", "path", "/etc/ganglia/gmond.conf", "gmond's configuration"),
    (
        "GANGLIA_GSTAT_COMMAND",
        "string",
        "gstat --all --mpifile --gmond_ip=localhost --gmond_port=8649",
        "lists the hosts Ganglia monitors",
    ),
    ("DASHBOARD_SIMULATIONS", "list", None, "fairpool simulate output dirs the dashboard shows"),
    ("ADSTASH_SAMPLE_INTERVAL", "int", "1200", "seconds between adstash runs"),
    ("ADSTASH_CHECKPOINT_FILE", "path", "$(LOG)/adstash_checkpoint.json", "where adstash stopped"),
    ("ADSTASH_READ_SCHEDDS", "string", "*", "the schedds adstash reads (* for all)"),
    ("ADSTASH_INTERFACE", "string", "elasticsearch", "elasticsearch or jsonfile"),
    ("ADSTASH_JSON_DIR", "path", "$(LOG)", "where the jsonfile interface writes"),
    ("ADSTASH_SE_HOST", "string", "$(FULL_HOSTNAME):9200", "the Elasticsearch host:port"),
    ("ADSTASH_SE_USE_HTTPS", "bool", "False", "reach Elasticsearch over HTTPS"),
    ("ADSTASH_SE_INDEX_NAME", "string", "htcondor", "the prefix of the dated indices"),
    ("ADSTASH_SE_BUNCH_SIZE", "int", "250", "documents per bulk request"),
    ("GANGLIA_SEND_DATA_FOR_ALL_HOSTS", "bool", "False", "publish for hosts without gmond"),
]

_DAEMONS_AND_ADMINS = "condor@$(TRUST_DOMAIN), $(USERNAME)@$(UID_DOMAIN), root@$(UID_DOMAIN)"
_SECURITY = [  # docs/security.md
    ("SEC_DEFAULT_AUTHENTICATION", "string", "PREFERRED", "REQUIRED, PREFERRED, OPTIONAL, NEVER"),
    (
        "SEC_DEFAULT_AUTHENTICATION_METHODS",
        "list",
        "FS,IDTOKENS,KERBEROS,SCITOKENS,SSL",
        "methods callers may use (fairpool proves FS and IDTOKENS)",
    ),
    ("TRUST_DOMAIN", "string", "$(UID_DOMAIN)", "the issuer (iss) of the pool's tokens"),
    ("SEC_PASSWORD_DIRECTORY", "path", "$(LOCAL_DIR)/passwords.d", "token signing keys"),
    (
        "SEC_TOKEN_POOL_SIGNING_KEY_FILE",
        "path",
        "$(SEC_PASSWORD_DIRECTORY)/POOL",
        "the POOL signing key (made by a master running the collector)",
    ),
    ("SEC_TOKEN_DIRECTORY", "path", "~/.condor/tokens.d", "a user's tokens"),
    ("SEC_TOKEN_SYSTEM_DIRECTORY", "path", "$(LOCAL_DIR)/tokens.d", "the daemons' tokens"),
    ("ALLOW_READ", "list", "*", "who may query (user@domain/host entries)"),
    ("ALLOW_WRITE", "list", "*", "who may submit and act on their jobs"),
    ("ALLOW_DAEMON", "list", _DAEMONS_AND_ADMINS, "who may advertise and run claims"),
    ("ALLOW_ADMINISTRATOR", "list", "$(ALLOW_DAEMON)", "who may edit priorities, drain..."),
    ("ALLOW_NEGOTIATOR", "list", "$(ALLOW_DAEMON)", "who may negotiate with schedds"),
    *((f"DENY_{level}", "list", None, f"who is refused {level}") for level in _LEVELS),
    ("AUTH_SSL_SERVER_CERTFILE", "path", None, "the HTTP API's certificate (TLS when set)"),
    ("AUTH_SSL_SERVER_KEYFILE", "path", None, "the certificate's private key"),
    ("AUTH_SSL_CLIENT_CAFILE", "path", None, "CAs a client trusts (unset: the system's)"),
]

ROWS: list[tuple[str, str, str | None, str]] = [
    *_ACCOUNTANT,
    *_NEGOTIATOR,
    *_GROUPS,
    *_LIMITS,
    *_STARTD,
    *_DEFRAG,
    *_COLLECTOR,
    *_HOSTS,
    *_HAD,
    *_MONITORING,
    *_SECURITY,
]
