"""The API's JSON bodies (daemons/jsonbody.py) read as Python's ``json`` reads them: the
fast reader where it can, ``json`` for what it refuses, and ``json``'s error when the
text is not JSON."""

from __future__ import annotations

import json
import math

import pytest

from fairpool.daemons.jsonbody import loads

TEXTS = [
    '{"ads": [{"Name": "slot1@a", "Memory": 1024, "LoadAvg": 0.25, "Start": true}]}',
    '{"a": 1, "A": 2, "a": 3}',  # the last of a name given twice
    "18446744073709551616",  # beyond 64 bits: exact, not a float
    "-9223372036854775809",
    "-0.0",
    '"\\u00e9\\ud83d\\ude00"',
    "0.1",
    "1e300",
    '"\\ud800"',  # a lone surrogate: json's
    "1e400",  # infinity: json's
    "[NaN, -Infinity]",  # json's
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_body_reads_as_json_reads_it(text):
    expected, got = json.loads(text), loads(text.encode())
    assert repr(got) == repr(expected)  # types and signs too (1 is not 1.0, -0.0)


def test_nan_reads_as_json_reads_it():
    assert math.isnan(loads(b"NaN"))


@pytest.mark.parametrize("text", ["{", '{"a": }', "", b"\xff\xfe{"])
def test_a_body_that_is_not_json_fails_as_json_fails(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        loads(text if isinstance(text, bytes) else text.encode())
