"""AdText and OldText: an ad written again as it changes gives write_old's text every
time, making only the pieces of the expressions that changed."""

from __future__ import annotations

import random

import pytest

from fairpool.classad import ClassAd, write_old
from fairpool.classad.adtext import AdText, OldText
from fairpool.classad.formats import old_line


def test_each_text_is_write_olds_through_changes():
    text = OldText()
    ad = ClassAd('[ Name = "slot1@a"; State = "Claimed"; Cpus = 1; Rank = Memory * 2 ]')
    steps = [
        lambda: None,
        lambda: ad.update({"State": "Unclaimed", "Cpus": 2}),
        lambda: ad.__delitem__("Rank"),
        lambda: ad.update({"JobId": "1.0", "Rank": 0}),  # new names at the end
        lambda: ad.update({"JobId": "1.1"}),
    ]
    for step in steps:
        step()
        assert text.write(ad) == write_old(ad)
    other = ClassAd()  # the same keys and expressions, spelled otherwise
    for name in ad:
        other.insert_expr(name.upper(), ad.lookup(name))
    assert text.write(other) == write_old(other) and "STATE = " in text.write(other)
    assert text.write(ad) == write_old(ad)


def test_only_changed_pieces_are_made():
    made = []

    def counted(name, expr):
        made.append(name)
        return old_line(name, expr)

    text = AdText(counted)
    ad = ClassAd({"Name": "slot1@a", "State": "Claimed", "JobId": "1.0", "Cpus": 1})
    assert "".join(text.pieces(ad)) == write_old(ad) and len(made) == 4
    made.clear()
    ad["JobId"] = "1.1"
    ad["State"] = "Claimed"  # the same value: the same shared expression
    assert "".join(text.pieces(ad)) == write_old(ad)
    assert made == ["JobId"]


def test_a_piece_that_fails_keeps_nothing_of_its_ad():
    def refusing(name, expr):
        if name == "Bad":
            raise ValueError(name)
        return old_line(name, expr)

    text = AdText(refusing)
    ad = ClassAd({"A": 1, "B": 2})
    text.pieces(ad)
    ad["A"], ad["Bad"] = 3, 4
    with pytest.raises(ValueError):
        text.pieces(ad)
    del ad["Bad"]
    assert "".join(text.pieces(ad)) == write_old(ad) == "A = 3\nB = 2\n"


def test_random_changes_agree_with_write_old():
    rng = random.Random(20)
    text = OldText()
    ad = ClassAd({f"A{i}": i for i in range(20)})
    for _ in range(300):
        name = f"{rng.choice('Aa')}{rng.randrange(25)}"
        action = rng.randrange(3)
        if action == 0:
            ad[name] = rng.choice([0, 1, True, "x", 2.5, "y"])
        elif action == 1 and name in ad:
            del ad[name]
        assert text.write(ad) == write_old(ad)
