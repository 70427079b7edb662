"""Ad file formats: every real ad parses, and old -> new -> JSON -> old keeps every value."""

import gzip
import json
from pathlib import Path

import pytest

from fairpool.classad import ClassAd, ClassAdSyntaxError, parse_ad, parse_ads
from fairpool.classad import compile as compiled
from fairpool.classad.ad import new_state
from fairpool.classad.canonical import canonical
from fairpool.classad.formats import write_json, write_new, write_old

DATA = Path(__file__).parent.parent / "data"
ADS = DATA / "ads"
# file -> number of ads it holds (README.md in tests/data/ads describes each)
DUMPS = {
    "ospool/pool_sample.ads.gz": 205,
    "htcondor-tests/basic4slot.machine.ads": 4,
    "htcondor-tests/partionable8core.machine.ads": 5,
    "htcondor-tests/small1slot.machine.ads": 1,
    "htcondor-tests/cmd_status-af_orig_first_test.ads": 8,
    "htcondor-tests/cmd_status-af_orig_second_test.ads": 8,
    "htcondor-tests/test.old.job.ad": 1,
    "htcondor-tests/job_startd_multimatch.machine.ad": 1,
    "chtc/chtc_condor_q_l_15872426.5189.job.ad": 1,
}


def read_dump(name: str) -> list[ClassAd]:
    path = ADS / name
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return list(parse_ads(handle, name=str(path)))


def values(ad: ClassAd) -> dict[str, str]:
    """Each attribute's canonical value, evaluated in its ad at a fixed time."""
    st = new_state(compiled.run, ad, None, 1_783_286_000)
    return {name: canonical(ad.eval(name, now=1_783_286_000), st) for name in ad}


def texts(ad: ClassAd) -> dict[str, str]:
    return {name: str(ad.lookup(name)) for name in ad}


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_every_real_dump_parses(name):
    ads = read_dump(name)
    assert len(ads) == DUMPS[name]
    assert all(len(ad) > 0 for ad in ads)


def test_ospool_sample_holds_the_pool_it_describes():
    ads = read_dump("ospool/pool_sample.ads.gz")
    kinds = [ad.eval("MyType") for ad in ads]
    assert kinds.count("Machine") == 143
    slot_types = [ad.eval("SlotType") for ad in ads if ad.eval("MyType") == "Machine"]
    assert (slot_types.count("Partitionable"), slot_types.count("Dynamic")) == (16, 116)
    assert slot_types.count("Static") == 11


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_old_new_json_old_round_trip_keeps_every_value(name):
    for original in read_dump(name):
        via_new = parse_ad(write_new(original), fmt="new")
        via_json = parse_ad(write_json(via_new), fmt="json")
        back = parse_ad(write_old(via_json), fmt="old")
        assert list(back) == list(original)
        assert texts(back) == texts(original)
        assert values(back) == values(original)


def test_json_is_htcondors_shape():
    ad = ClassAd('[ A = 1; B = "x"; C = 2.5; D = undefined; E = MY.A + 1; F = {1, "y"} ]')
    data = json.loads(write_json([ad]))
    assert data == [{"A": 1, "B": "x", "C": 2.5, "D": None, "E": "/Expr(MY.A + 1)/", "F": [1, "y"]}]
    assert '"\\/Expr(MY.A + 1)\\/"' in write_json(ad)


def test_format_is_detected():
    old = "A = 1\nB = A + 1\n"
    new = "[ A = 1; B = A + 1 ]"
    as_json = '[{"A": 1, "B": "\\/Expr(A + 1)\\/"}]'
    for text in (old, new, as_json):
        assert parse_ad(text).eval("B") == 2


def test_old_syntax_keeps_backslashes_and_takes_the_first_spelling():
    ad = parse_ad('Path = "C:\\temp\\new"\nA = 1\na = 2\nTail = "end\\"\n', fmt="old")
    assert ad.eval("Path") == "C:\\temp\\new"
    assert ad.eval("Tail") == "end\\"
    assert list(ad) == ["Path", "A", "Tail"] and ad.eval("a") == 2


def test_ads_are_read_as_a_stream():
    consumed = []

    def lines():
        for i in range(1_000_000):
            consumed.append(i)
            yield f"Id = {i // 3}\n" if i % 3 < 2 else "\n"

    first = next(parse_ads(lines(), fmt="old"))
    assert first.eval("Id") == 0
    assert len(consumed) <= 4


def test_bad_old_line_names_file_and_line():
    with pytest.raises(ClassAdSyntaxError) as err:
        list(parse_ads("A = 1\nB = (2 +\n", fmt="old", name="slots.ads"))
    assert (err.value.source, err.value.line) == ("slots.ads", 2)
    assert "slots.ads:2:" in str(err.value) and "^" in str(err.value)


def test_bad_json_is_a_syntax_error():
    with pytest.raises(ClassAdSyntaxError, match="JSON"):
        list(parse_ads('[{"A": 1,}]', fmt="json", name="bad.json"))


def test_old_lines_follow_each_ads_names_and_changes():
    """write_old keeps each expression's line: an expression shared by ads that spell
    its name differently, a value changed or removed, still write the ad as it is."""

    def uncached(ad: ClassAd) -> str:
        return "".join(f"{name} = {ad.lookup(name)}\n" for name in ad)

    first = ClassAd('[ Cmd = "/bin/true"; Cpus = 1; Rank = Memory * 2; Name = "a\\"b" ]')
    second = ClassAd()
    second.insert_expr("CPUS", first.lookup("Cpus"))  # the same expression, other case
    assert write_old(first) == uncached(first)
    assert write_old(second) == uncached(second) and "CPUS = 1\n" in write_old(second)
    assert "Cpus = 1\n" in write_old(first)
    first["Cpus"] = 2
    del first["Rank"]
    assert write_old(first) == uncached(first) == ('Cmd = "/bin/true"\nCpus = 2\nName = "a\\"b"\n')
    assert write_old(ClassAd()) == ""


def test_old_lines_of_one_shared_value_are_each_kept(monkeypatch):
    """Names that share one value's expression (``0``, ``true``: plain values are shared)
    each keep their line: the ad written again formats no expression."""
    from fairpool.classad import formats

    ad = ClassAd({"JobPrio": 0, "Rank": 0, "NiceUser": False, "OnExitHold": False})
    assert ad.lookup("JobPrio") is ad.lookup("Rank")  # one shared expression
    first = write_old(ad)
    formatted = []
    monkeypatch.setattr(formats, "_old_text", lambda node: formatted.append(node) or "x")
    assert write_old(ad) == first == "JobPrio = 0\nRank = 0\nNiceUser = false\nOnExitHold = false\n"
    assert formatted == []
