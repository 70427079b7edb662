"""The Python interface: shaped like HTCondor's classad2 where it names the same thing."""

import pytest

from fairpool.classad import (
    ERROR,
    UNDEFINED,
    AbsTime,
    ClassAd,
    ClassAdSyntaxError,
    Expr,
    ExprTree,
    RelTime,
    symmetric_match,
)
from fairpool.classad.scope import MAX_DEPTH

NOW = 1_700_000_000


def test_reading_gives_constants_as_python_values_and_expressions_as_exprs():
    ad = ClassAd('[ Memory = 2048; Name = "slot1@a"; Big = Memory * 2 ]')
    assert ad["memory"] == 2048 and ad["NAME"] == "slot1@a"
    assert isinstance(ad["Big"], Expr) and str(ad["Big"]) == "Memory * 2"
    assert ad.eval("Big") == 4096
    with pytest.raises(KeyError):
        ad["Nope"]


def test_names_are_case_insensitive_and_keep_their_first_spelling():
    ad = ClassAd()
    ad["RequestCpus"] = 1
    ad["requestcpus"] = 4
    assert list(ad) == ["RequestCpus"] and ad["REQUESTCPUS"] == 4
    del ad["REQUESTcpus"]
    assert "RequestCpus" not in ad and len(ad) == 0


def test_python_values_convert_both_ways():
    ad = ClassAd({"s": "ünï", "l": [1, "a", None], "d": {"x": 1.5}, "t": AbsTime(5, 3600)})
    assert ad.eval("s") == "ünï"
    assert Expr("size(s)").eval(ad) == 5  # strings are bytes, as in HTCondor
    assert ad.eval("l") == [1, "a", UNDEFINED]
    assert ad.eval("d").eval("x") == 1.5
    assert ad.eval("t") == AbsTime(5, 3600)
    assert Expr("relTime(90)").eval() == RelTime(90.0)


def test_exprtree_is_expr_and_evaluates_in_a_match():
    job = ClassAd("[ RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]")
    slot = ClassAd("[ Memory = 2048; Requirements = TARGET.RequestMemory <= Memory ]")
    assert ExprTree is Expr
    assert Expr("TARGET.Memory - RequestMemory").eval(job, slot) == 1024
    assert Expr("Memory").eval(job, slot) == 2048  # unscoped names fall back to the other ad
    assert job.symmetricMatch(slot) and symmetric_match(job, slot, now=NOW)
    slot["Memory"] = 512
    assert not job.symmetricMatch(slot)


def test_matches_reads_the_other_ads_requirements_as_classad2_does():
    picky = ClassAd("[ Requirements = TARGET.x == 1 ]")
    plain = ClassAd("[ x = 1 ]")
    assert picky.matches(ClassAd("[ Requirements = true ]"))
    assert plain.matches(picky) and not picky.matches(plain)  # plain has no Requirements


def test_undefined_and_error_are_values_not_exceptions():
    assert Expr("nosuch + 1").eval(ClassAd()) is UNDEFINED
    assert Expr("1 / 0").eval() == ERROR
    assert Expr('"a" + 1').eval() == ERROR


def test_syntax_errors_point_at_the_place():
    with pytest.raises(ClassAdSyntaxError) as err:
        Expr("Memory >= \n  (1024 +")
    assert (err.value.line, err.value.column) == (2, 10)  # the end of the text
    assert str(err.value).splitlines()[-2:] == ["    (1024 +", "           ^"]


def test_references_split_into_own_and_others():
    job = ClassAd(
        "[ RequestMemory = 1024; Factor = 2; Want = RequestMemory * Factor;"
        '  Requirements = TARGET.Memory >= Want && OpSys == "LINUX" && MY.Nope =?= undefined ]'
    )
    requirements = job.lookup("Requirements")
    # the same lists classad2 gives for this ad
    assert job.externalRefs(requirements) == ["Nope", "OpSys", "TARGET.Memory"]
    assert job.internalRefs(requirements) == ["Factor", "RequestMemory", "Want"]


def test_printing_in_each_syntax():
    ad = ClassAd('[ A = 1; B = "x\\"y"; C = A + 1 ]')
    assert ad.printOld() == 'A = 1\nB = "x\\"y"\nC = A + 1\n'
    assert str(ad) == '[ A = 1; B = "x\\"y"; C = A + 1 ]'
    assert '"C": "\\/Expr(A + 1)\\/"' in ad.printJson()


def test_time_is_given_not_read_from_the_clock():
    ad = ClassAd("[ Start = 100; Age = time() - Start ]")
    assert ad.eval("Age", now=1100) == 1000
    assert Expr("CurrentTime").eval(ad, now=42.9) == 42


def test_a_list_that_holds_itself_ends_in_error_instead_of_recursing():
    # found by the parser fuzz test: b = {B} is a list whose element is the list itself;
    # lists are lazy, so turning it into Python stops at MAX_DEPTH levels with ERROR
    value = ClassAd("[ a = 0; b = {B} ]").eval("b")
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert (depth, value) == (MAX_DEPTH, ERROR)


def test_selecting_from_a_list_that_holds_itself_ends_in_error_instead_of_recursing():
    # found by the differential test: b.a maps over b's elements, each of them b again;
    # each level counts towards MAX_DEPTH, so the innermost is ERROR, not a RecursionError
    value = ClassAd("[ a = 0; b = {b}; c = b.a ]").eval("c")
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert value == ERROR and 1 < depth <= MAX_DEPTH


def test_discard_removes_the_names_present_as_deleting_each_would():
    ad = ClassAd('[Name = "s"; RemoteUser = "u"; JobId = "1.0"; Cpus = 1]')
    each = ad.copy()
    ad.discard(("remoteuser", "JOBID", "AccountingGroup"))
    for name in ("RemoteUser", "JobId"):
        del each[name]
    assert ad == each and list(ad) == ["Name", "Cpus"]
    ad.discard(())
    assert list(ad) == ["Name", "Cpus"]


def test_discard_copies_a_shared_table_before_changing_it():
    ad = ClassAd("[a = 1; b = 2]")
    shared = ad.detached_copy()  # the same attribute tables until one of them changes
    shared.discard(("a", "c"))
    assert list(shared) == ["b"] and list(ad) == ["a", "b"]
