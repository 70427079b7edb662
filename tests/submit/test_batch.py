"""Bulk job ads (submit/batch.py) against the per-job reference path, and the sharing of
expressions within a cluster that job_ads promises.

Generated submit descriptions refer to everything that differs between jobs ($(Process),
$(Cluster), $(Step), $(Item), $(Row), item variables, macros defined through each other,
function calls, $RANDOM_*), in typed and untyped commands and +attributes, over several
queue statements and clusters; each must give the same ads, attribute by attribute and in
order (write_new), or the same error, both ways.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fairpool.classad import ClassAd, write_new
from fairpool.errors import SubmitError
from fairpool.submit import parse_submit
from fairpool.submit.scope import JobScope

_REFERENCES = [
    "$(Process)",
    "$(ProcId)",
    "$(PROCESS)",
    "$(Cluster)",
    "$(ClusterId)",
    "$(JobId)",
    "$(Step)",
    "$(Item)",
    "$(item)",
    "$(Row)",
    "$(ItemIndex)",
    "$(Node)",
    "$(v1)",
    "$(V2)",
    "$(m1)",
    "$(m2)",
    "$(m3)",
    "$(m1:dflt)",
    "$(v1:none)",
    "$(v2:$(Process))",
    "$(V2:-)",
    "$(Item:-)",
    "$(nothing:$(Step))",
    "$(DOLLAR)(Process)",
    "$$(Arch)",
    "$(",
]
_FUNCTIONS = [
    "$INT(Process)",
    "$INT($(Process)+1,%03d)",
    "$REAL(Step)",
    "$SUBSTR(v1,0,1)",
    "$Fn(Item)",
    "$F(Item)",
    "$STRING(Item)",
    "$CHOICE(Step,a,b,c,d)",
    "$ENV(HOME:h)",
    "$RANDOM_CHOICE(a,b,c)",
    "$RANDOM_INTEGER(1,9)",
]
_WORDS = ["a", "x.y", "/d/", "out.", "-", " ", "", "\t", "b c", "1", "'", '"']
_FRAGMENT = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_REFERENCES),
    st.sampled_from(_REFERENCES),
    st.sampled_from(_FUNCTIONS),
)
_TEXT = st.lists(_FRAGMENT, max_size=4).map("".join)


def _either(*choices: str) -> st.SearchStrategy[str]:
    """Mostly one of ``choices`` (values the command takes), else any text."""
    return st.one_of(st.sampled_from(choices), st.sampled_from(choices), _TEXT)


_COMMANDS: dict[str, st.SearchStrategy[str]] = {
    "executable": st.sampled_from(["/bin/true", "run_$(Process).sh", "/bin/$(Item)x", "$(m3)/x"]),
    "arguments": _either("$(Process)", "a$(v2:d)", "\"a $(Process) 'b $(Item)'\"", '"x ""$(v1)"""'),
    "output": _either("out.$(Process)", "$(Node) $(Cluster).$(Process) $(Node)", "o$(Item:-)"),
    "error": _TEXT,
    "input": _TEXT,
    "log": _either("log.$(Cluster)", "l$(Step)"),
    "initialdir": _either("/work/$(v1)", "run$(Row)"),
    "environment": _either('"A=$(Process) B=x"', "A=1;B=$(Item)", "A=$(v1)"),
    "request_cpus": _either("1", "2", "$(Step)", "$(Process) + 1", "$(v2)"),
    "request_memory": _either("2GB", "512", "$(Process)", "$(v1)", "$(Process) * 2", "$(m1)"),
    "request_disk": _either("1G", "$(Item)"),
    "request_gpus": _either("1", "$(Step)"),
    "priority": _either("0", "-1", "$(Process)", "$(Step)", "$(v1)"),
    "hold": _either("true", "false", "$(v1)", "$(Item)"),
    "nice_user": _either("false", "true", "$(v2)"),
    "universe": _either("vanilla", "local", "$(v2)"),
    "should_transfer_files": _either("YES", "NO", "IF_NEEDED", "$(v1)"),
    "rank": _either("Memory", "$(Process)", "Memory * $(Step)"),
    "requirements": _either("Memory > $(Process)", 'OpSys == "LINUX"', "$(m1)"),
    "accounting_group": _either("g$(Step)", "group"),
    "accounting_group_user": _either("$(v1)", "u"),
    "concurrency_limits": _either("L$(Step)", "a,b"),
    "batch_name": _TEXT,
    "periodic_remove": _either("false", "JobStatus == $(Step)"),
    "max_job_retirement_time": _either("$(Process)", "60"),
    "m1": _either("$(m2)x", "$(m1) more", "$(Process)", "$(m3)"),
    "m2": _either("$(m3)-$(v1)", "$(m1)", "plain"),
    "m3": _either("$(Step)", "$(Item)", "3"),
    "Step": _either("7"),
    "+Custom": _either("$(Process)", '"s$(Item)"', "$(Process) + 1", "true", "$(m2)"),
    "+Args": _either('"fixed"', '"$(Step)"'),
    "+ProcId": _either("$(Step)", "5"),
    "MY.Out": _either('"o$(Process)"'),
}
_ITEMS = ["a", "b", "true", "false", "vanilla", "local", "x.y", "1", "2GB", "0", "$(Process)"]


@st.composite
def _queue(draw: st.DrawFn) -> str:
    count = draw(st.sampled_from(["", "0", "1", "2", "3"]))
    variables = draw(st.sampled_from(["", "v1", "v1, v2", "Item", "V1 v2", "v1,Item", "v1, v2"]))
    words = draw(st.lists(st.sampled_from(_ITEMS), min_size=1, max_size=3))
    mode = draw(st.sampled_from(["none", "in", "from", "slice"]))
    if mode == "none":
        return f"queue {count}".strip()
    if mode == "in":
        return f"queue {count} {variables} in ({' '.join(words)})"
    lines = [" ".join(draw(st.lists(st.sampled_from(_ITEMS), max_size=3))) or "z" for _ in words]
    chosen = "[1:]" if mode == "slice" else ""
    return f"queue {count} {variables} from {chosen} (\n" + "\n".join(lines) + "\n)"


@st.composite
def _description(draw: st.DrawFn) -> str:
    """Some of the commands first, then assignments and queue statements in any order."""
    lines = ["executable = /bin/true"] if draw(st.integers(0, 9)) else []
    for command in draw(st.lists(st.sampled_from(sorted(_COMMANDS)), max_size=8, unique=True)):
        lines.append(f"{command} = {draw(_COMMANDS[command])}")
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            lines.append(draw(_queue()))
        else:
            command = draw(st.sampled_from(sorted(_COMMANDS)))
            lines.append(f"{command} = {draw(_COMMANDS[command])}")
    lines.append(draw(_queue()))
    return "\n".join(lines) + "\n"


_ITEM_FRAGMENT = st.sampled_from(
    [
        "$(v1)",
        "$(v2)",
        "$(v2:d)",
        "$(V2:$(Process))",
        "$(Item:-)",
        "$(item)",
        "$(Row)",
        "$(Step)",
        "$(m)",
        "$INT(Row)",
        "$SUBSTR(v2,0,1)",
        "$Fn(Item)",
        "x",
        " ",
        "$(nothing)",
    ]
)


@st.composite
def _item_description(draw: st.DrawFn) -> str:
    """Item variables, empty in some items, in every form of reference."""
    lines = ["executable = e", f"m = {draw(st.sampled_from(['$(v2:e)', '$(v1)', 'k']))}"]
    for command in ("arguments", "output", "+Custom", "accounting_group_user"):
        if draw(st.booleans()):
            value = "".join(draw(st.lists(_ITEM_FRAGMENT, min_size=1, max_size=3)))
            lines.append(f"{command} = {value}")
    for _ in range(draw(st.integers(1, 2))):
        variables = draw(st.sampled_from(["v1, v2", "v1 Item", "Item", "v1,v2,Item"]))
        items = st.lists(st.sampled_from(["a", "b", "c.d", "1"]), min_size=1, max_size=3)
        rows = draw(st.lists(items.map(" ".join), min_size=1, max_size=4))
        count = draw(st.sampled_from(["", "2"]))
        lines.append(f"queue {count} {variables} from (\n" + "\n".join(rows) + "\n)")
    return "\n".join(lines) + "\n"


def _outcome(text: str, reference: bool) -> tuple[list[ClassAd], list[str]] | str:
    description = parse_submit(text, "gen.sub")
    try:
        ads = description.job_ads(
            owner="u",
            cluster_id=7,
            qdate=1_700_000_000,
            env={"HOME": "/h"},
            seed=3,
            reference=reference,
        )
    except SubmitError as err:
        return str(err)
    return ads, [write_new(ad) for ad in ads]


def _assert_shared(ads: list[ClassAd]) -> None:
    """In each cluster, an attribute equal to the first ad's is the first ad's object."""
    first: dict[int, ClassAd] = {}
    for ad in ads:
        cluster = first.setdefault(ad["ClusterId"], ad)
        for name in ad:
            if name in cluster and ad.lookup(name) == cluster.lookup(name):
                assert ad.lookup(name) is cluster.lookup(name), name


@given(_description())
@example("executable = e\noutput = $(Node) $(Cluster).$(Process) $(Node)\nqueue 2\n")
@example("executable = e\narguments = a$(v2:d)\nqueue v1, v2 from (\na b\nc\n)\n")
@example('executable = e\narguments = $(Process)\n+Args = "fixed"\nqueue 2\n')
@example("executable = e\narguments = $INT(Process) $Fn(Item)\nqueue 2 in (a.b c/d)\n")
@example("executable = e\nhold = $(v1)\nm = $(v1)\n+M = $(m)\nqueue v1 in (false true)\n")
def test_bulk_ads_are_the_reference_ads(text: str):
    fast, reference = _outcome(text, False), _outcome(text, True)
    if isinstance(reference, str) or isinstance(fast, str):
        assert fast == reference, text
        return
    assert fast[1] == reference[1], text
    _assert_shared(fast[0])
    _assert_shared(reference[0])


@given(_item_description())
def test_item_variables_give_the_reference_ads(text: str):
    fast, reference = _outcome(text, False), _outcome(text, True)
    if isinstance(reference, str) or isinstance(fast, str):
        assert fast == reference, text
        return
    assert fast[1] == reference[1], text


def test_a_cluster_shares_what_its_jobs_have_in_common():
    text = (
        "executable = /bin/true\narguments = $(Process)\noutput = out.$(Process)\n"
        "request_cpus = 1\nqueue 50\narguments = again\nqueue 3 v in (a b)\n"
    )
    ads = parse_submit(text).job_ads(owner="alice")
    first = ads[0]
    common = [n for n in first if all(n in ad and ad.lookup(n) == first.lookup(n) for ad in ads)]
    assert {"Cmd", "Requirements", "RequestCpus", "Owner", "JobUniverse"} <= set(common)
    assert not {"ProcId", "Args", "Out"} & set(common)
    for ad in ads:
        assert all(ad.lookup(name) is first.lookup(name) for name in common)
    differing = {n for n in ads[-1] if ads[-1].lookup(n) is not first.lookup(n)}
    assert differing == {"ProcId", "Args", "Out"}


def test_a_value_repeated_in_a_later_job_is_the_first_jobs_object():
    text = (
        "executable = e\narguments = $(v)\nrequest_memory = $(m)\n+Weight = $(w)\n"
        "queue v, m, w from (\na 1 x + 1\nb 2 y\na 1 x + 1\n)\n"
    )
    ads = parse_submit(text).job_ads(owner="u")
    assert [ad["Args"] for ad in ads] == ["a", "b", "a"]
    for name in ("Args", "RequestMemory", "Weight"):
        assert ads[2].lookup(name) is ads[0].lookup(name), name
        assert ads[1].lookup(name) is not ads[0].lookup(name), name


def test_each_ad_has_its_own_attributes():
    ads = parse_submit("executable = e\nqueue 3\n").job_ads(owner="u")
    ads[1]["Owner"] = "other"
    ads[1]["Extra"] = 1
    assert [ad["Owner"] for ad in ads] == ["u", "other", "u"]
    assert "Extra" not in ads[0] and "Extra" not in ads[2]


def test_random_draws_follow_the_reference_order():
    text = (
        "executable = e\narguments = $(Process)\nqueue 3\n"
        "arguments = $RANDOM_INTEGER(1, 1000)\noutput = $RANDOM_CHOICE(a,b,c,d)\nqueue 4\n"
        "arguments = $(Process)\nqueue 2\n"
    )
    description = parse_submit(text)
    fast = [write_new(ad) for ad in description.job_ads(owner="u", seed=5)]
    reference = [write_new(ad) for ad in description.job_ads(owner="u", seed=5, reference=True)]
    assert fast == reference
    assert len({ad.split("Args = ")[1].split(";")[0] for ad in fast[3:7]}) > 1


def test_each_use_of_a_command_reads_it_once_in_order():
    """A read of $RANDOM_*() draws a number: a command used by several attributes (the
    universe, GPUs, file transfer) is read once, where the job first needs it."""
    text = (
        "executable = e\nuniverse = $RANDOM_CHOICE(vanilla,vanilla)\n"
        "arguments = $RANDOM_INTEGER(1,1000)\nrequest_gpus = $RANDOM_INTEGER(1,1000)\n"
        "should_transfer_files = $RANDOM_CHOICE(YES,YES)\n+After = $RANDOM_INTEGER(1,1000)\n"
        "queue\n"
    )
    ad = parse_submit(text).job_ads(owner="u", seed=4)[0]
    draws = random.Random("4:submit")
    draws.choice(["vanilla", "vanilla"])
    arguments = draws.randrange(1, 1001)
    draws.randrange(1, 1001)  # request_gpus: whether given, then its value
    gpus = draws.randrange(1, 1001)
    draws.choice(["YES", "YES"])
    after = draws.randrange(1, 1001)
    assert (ad["Args"], ad["RequestGPUs"], ad["After"]) == (str(arguments), gpus, after)


def test_a_later_job_with_other_attributes_is_assembled_in_order():
    text = "executable = e\nhold = $(h)\nqueue h in (false true false)\n"
    ads = parse_submit(text).job_ads(owner="u")
    assert [ad["JobStatus"] for ad in ads] == [1, 5, 1]
    assert "HoldReason" in ads[1] and "HoldReason" not in ads[2]
    reference = parse_submit(text).job_ads(owner="u", reference=True)
    assert [write_new(ad) for ad in ads] == [write_new(ad) for ad in reference]


def test_the_first_error_is_the_reference_error():
    text = "executable = e\nrequest_memory = $(m)\nqueue m in (1 2 3XB 4YB)\n"
    for reference in (False, True):
        with pytest.raises(SubmitError) as caught:
            parse_submit(text, "e.sub").job_ads(owner="u", reference=reference)
        assert caught.value.line == 2
        assert "request_memory = 3XB: unknown unit 'XB'" in caught.value.message


@pytest.mark.parametrize(
    ("arguments", "scopes"),
    [("$(Process)", range(1, 5)), ("$(Process) $RANDOM_INTEGER(1,9)", range(500, 505))],
)
def test_only_random_draws_need_a_scope_per_job(monkeypatch, arguments: str, scopes: range):
    """The bulk path expands each command once per statement; $RANDOM_* statements are
    built job by job (with the job's own scope)."""
    built = []
    original = JobScope.__init__

    def counted(self, *args, **kwargs):
        built.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(JobScope, "__init__", counted)
    text = f"executable = e\narguments = {arguments}\noutput = out.$(Process)\nqueue 500\n"
    ads = parse_submit(text).job_ads(owner="u")
    assert len(ads) == 500 and len(built) in scopes
