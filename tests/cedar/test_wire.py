"""CEDAR's encoding of values (fairpool/cedar/wire.py): the bytes spec/cedar.md records,
round trips, and malformed input refused as a WireError, never another exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairpool.cedar.wire import Reader, WireError, Writer
from fairpool.classad import ClassAd, Expr


def test_integers_strings_and_ads_as_observed_on_the_wire():
    assert Writer().int(5).payload() == b"\0\0\0\0\0\0\0\x05"
    assert Writer().int(-1).payload() == b"\xff" * 8
    assert Writer().string("FS").payload() == b"FS\0"
    ad = ClassAd({"MyType": "Query", "Requirements": Expr("(Cpus > 1)")})
    assert Writer().ad(ad).payload() == (
        b"\0\0\0\0\0\0\0\x02" + b'MyType = "Query"\0' + b"Requirements = (Cpus > 1)\0" + b"\0\0"
    )
    assert Writer().ad(ad, trailer=False).payload().endswith(b"(Cpus > 1)\0")


def test_a_double_is_two_integers_with_31_bits_of_fraction():
    # frexp(5.0) = (0.625, 3): 0.625 * (2**31 - 1) truncated, then the exponent
    assert Writer().double(5.0).payload() == (1342177279).to_bytes(8, "big") + (3).to_bytes(
        8, "big"
    )
    assert Reader(Writer().double(0.1).payload()).double() == 0.1


@settings(max_examples=60)
@given(st.decimals(min_value=-1e12, max_value=1e12, places=3, allow_nan=False))
def test_doubles_of_nine_digits_survive(value):
    number = float(f"{float(value):.9g}")
    assert Reader(Writer().double(number).payload()).double() == number


@settings(max_examples=60)
@given(
    st.dictionaries(
        st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True),
        # a NUL ends a CEDAR string, so no string carries one (the writer drops it)
        st.one_of(
            st.integers(-(2**62), 2**62),
            st.text(
                st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=20
            ),
            st.booleans(),
        ),
        max_size=10,
    )
)
def test_ads_round_trip(attributes):
    ad = ClassAd(attributes)
    back = Reader(Writer().ad(ad).payload()).ad()
    assert {k.lower(): v for k, v in back.items()} == {k.lower(): v for k, v in ad.items()}


@settings(max_examples=60)
@given(st.binary(max_size=400))
def test_any_bytes_decode_or_are_refused_as_wire_errors(data):
    reader = Reader(data)
    try:
        reader.int()
        reader.ad()
        reader.double()
    except WireError:
        pass
    assert 0 <= reader.at <= len(data)


def test_what_a_short_message_lacks_is_named():
    with pytest.raises(WireError, match="message ends where the user was expected"):
        Reader(b"\0\0\0").int("the user")
    with pytest.raises(WireError, match="message ends inside the name"):
        Reader(b"abc").string("the name")
    with pytest.raises(WireError, match="1000000 attributes cannot fit"):
        Reader(Writer().int(1_000_000).payload()).ad()
