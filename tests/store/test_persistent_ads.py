"""The collector's persistent ads (store/persistent_ads.py) on SQLite and PostgreSQL:
saved ads come back after a restart, a saved ad replaces the one of the same key, a
removed one is gone, and collectors sharing a database each keep their own."""

from __future__ import annotations

from fairpool.store.persistent_ads import PersistentAd, PersistentAds


def _ad(name: str, state: str = "absent", expires: float = float("inf")) -> PersistentAd:
    return PersistentAd("machine", name, "", {"Name": name, "Absent": state == "absent"}, expires)


def test_saved_ads_come_back_replaced_and_removed(engine, reopen):
    ads = PersistentAds(engine)
    ads.save(_ad("slot1@a", expires=2_000.5))
    ads.save(_ad("slot1@b"))
    ads.save(_ad("slot2@b"))
    ads.save(_ad("slot1@a", "offline"))  # the same key: replaced
    ads.remove("machine", "slot2@b", "")
    loaded = sorted(PersistentAds(reopen()).load(), key=lambda ad: ad.name)
    assert loaded == [_ad("slot1@a", "offline"), _ad("slot1@b")]
    assert loaded[0].expires == float("inf")  # never, as saved the second time


def test_collectors_sharing_a_database_keep_their_own(engine, reopen):
    first, second = PersistentAds(engine, "collector@cm1"), PersistentAds(reopen(), "collector@cm2")
    first.save(_ad("slot1@a", expires=100.0))
    second.save(_ad("slot1@a", "offline"))  # the same machine, seen by both
    second.save(_ad("slot9@z"))
    first.remove("machine", "slot1@a", "")
    assert PersistentAds(reopen(), "collector@cm1").load() == []
    assert {ad.name for ad in PersistentAds(reopen(), "collector@cm2").load()} == {
        "slot1@a",
        "slot9@z",
    }
    assert PersistentAds(reopen()).load() == []  # the unnamed one's are apart too
