"""Macro expansion of submit commands, checked against htcondor2.Submit(text).expand(key)."""

from __future__ import annotations

import os

import pytest
from tests.submit.submit_oracle import AVAILABLE, ask

from fairpool.submit import parse_submit

CASES: list[tuple[str, list[str]]] = [
    ("foo = bar\nfoo = snap $(foo)\n", ["foo"]),
    ("foo = bar\nfoo = $(foo) snap\n", ["foo"]),
    ("D = $(E:24)\nF = $(E:)x\n", ["D", "F"]),
    ("a = $(b)-$(B)\nb = late\n", ["a"]),
    ("Foo = 1\nbar = $(FOO)\n", ["bar", "BAR"]),
    ("x = $(DOLLAR)(y) $$(Arch) $$([TARGET.Memory * 0.9])\n", ["x"]),
    ("x = $(Cluster).$(Process) $(ClusterId).$(ProcId) $(JobId)\n", ["x"]),
    ("x = [$(Item)] $(ItemIndex) $(Step) $(Row) [$(Node)]\n", ["x"]),
    ("x = $(undefined)y$(also.undefined)\n", ["x"]),
    ("x = $INT(2*3) $REAL(1.5) $INT(7/2)\n", ["x"]),
    ("f = /a/b/c.txt\nx = $Fn(f) $Fx(f) $Fnx(f) $Fp(f) $Fd(f) $Fq(f)\n", ["x"]),
    ("x = $F(/a/b/c.txt) $Fn(/a/b/c.txt) $Fx(/a/b/c.txt)\n", ["x"]),
    ("+foo = 7\nm = $(my.foo) $(MY.Foo)\n", ["m", "MY.foo"]),
    ("x = $ENV(HOME) $ENV(FAIRPOOL_SURELY_UNSET:dflt)\n", ["x"]),
    ("x = a \\\n   b\n", ["x"]),
    ("x @= END\nline one\nline $(y)\n@END\ny = 2\n", ["x"]),
    ("x = $( B ) $(B\nB = 1\n", ["x"]),
    ("x = $(ARCH)/$(OPSYS)\n", ["x"]),
    ("n = 3\nx = $(n:9) $(m:$(n))\n", ["x"]),
    ("x = $testname.log\n", ["x"]),
]


@pytest.mark.skipif(not AVAILABLE, reason="htcondor2 not installed")
def test_expansion_agrees_with_htcondor():
    answers = ask([{"text": text + "queue\n", "keys": keys} for text, keys in CASES])
    for (text, keys), answer in zip(CASES, answers, strict=True):
        description = parse_submit(text + "queue\n")
        for key in keys:
            got = description.expand(key, env=dict(os.environ))
            assert got == answer["expanded"][key], f"{text!r}: {key}"


def test_expansion_is_per_job():
    text = "executable = e\nout = o.$(Cluster).$(Process).$(n)\noutput = $(out)\nqueue n in (a b)\n"
    ads = parse_submit(text).job_ads(owner="u", cluster_id=3)
    assert [ad["Out"] for ad in ads] == ["o.3.0.a", "o.3.1.b"]


def test_random_choice_is_repeatable_with_the_seed():
    text = "executable = e\narguments = $RANDOM_CHOICE(a,b,c,d,e,f,g,h)\nqueue 20\n"
    description = parse_submit(text)
    first = [ad["Args"] for ad in description.job_ads(owner="u", seed=1)]
    again = [ad["Args"] for ad in description.job_ads(owner="u", seed=1)]
    other = [ad["Args"] for ad in description.job_ads(owner="u", seed=2)]
    assert first == again and first != other
    assert set(first) <= set("abcdefgh")


def test_env_comes_only_from_the_caller():
    description = parse_submit("executable = e\narguments = $ENV(HOME:none)\nqueue\n")
    assert description.job_ads(owner="u")[0]["Args"] == "none"
    assert description.job_ads(owner="u", env={"HOME": "/h"})[0]["Args"] == "/h"
