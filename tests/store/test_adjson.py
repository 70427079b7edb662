"""JsonText: a history row's JSON text made from the last row's pieces is the text of
the whole ad as msgspec (or, for a string that is no UTF-8, json) writes it."""

from __future__ import annotations

import json

from fairpool.classad import ClassAd
from fairpool.classad.jsonads import ad_to_json
from fairpool.store.adjson import JsonText
from fairpool.store.jobs import _dump


def test_each_row_is_the_whole_ads_json():
    text = JsonText()
    cluster = ClassAd({"ClusterId": 1, "Cmd": "/bin/true", "Rank": 0.5, "In": "/dev/null"})
    for proc in range(5):
        job = cluster.copy()
        job.update({"ProcId": proc, "ExitCode": proc % 2, "RemoteWallClockTime": proc * 1.5})
        if proc == 3:
            del job["Rank"]
        written = text.write(job)
        assert written == _dump(ad_to_json(job))
        assert json.loads(written) == ad_to_json(job)


def test_a_string_that_is_no_utf8_is_written_by_json():
    text = JsonText()
    job = ClassAd({"ClusterId": 1, "Note": "bad \udcff byte"})
    assert json.loads(text.write(job)) == ad_to_json(job)
    job["Note"] = "fine"
    assert text.write(job) == _dump(ad_to_json(job))
