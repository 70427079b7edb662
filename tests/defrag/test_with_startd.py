"""D-14: condor_defrag and a startd together (defrag.md §D10, §D12): the drain request,
the startd's graceful drain of a busy dynamic slot, resuming on completion, and the next
poll seeing the machine whole."""

from fairpool.classad import ClassAd
from fairpool.defrag import Defrag, DefragConfig
from fairpool.startd.policy import StartdPolicy
from fairpool.startd.profile import MODERN
from fairpool.startd.startd import Startd

D = 19675 * 86400  # a UTC midnight
EXAMPLE = {
    "DEFRAG_NAME": "cm",
    "DEFRAG_INTERVAL": "3600",
    "DEFRAG_DRAINING_MACHINES_PER_HOUR": "1.0",
    "DEFRAG_MAX_WHOLE_MACHINES": "20",
    "DEFRAG_MAX_CONCURRENT_DRAINING": "10",
}


class Pool:
    """m00 is a live startd; m01-m03 are fragmented ads with a high draining cost."""

    def __init__(self, startd: Startd) -> None:
        self.startd = startd
        self.others = {
            f"m{n:02d}": ClassAd(
                {
                    "Name": f"slot1@m{n:02d}",
                    "SlotID": 1,
                    "PartitionableSlot": True,
                    "TotalSlotCpus": 8,
                    "Cpus": 4,
                    "ExpectedMachineGracefulDrainingBadput": 10**6 * n,
                }
            )
            for n in (1, 2, 3)
        }

    def ads(self) -> list[ClassAd]:
        return [s.ad for s in self.startd.slots.values()] + list(self.others.values())

    def drain(self, machine, slot, request):
        if machine == "m00":
            reply = self.startd.drain(
                self.startd.now,
                request.how,
                request.resume_on_completion,
                request.check,
                request.start,
                request.reason,
            )
            return reply.accepted
        self.others[machine].update({"Draining": True, "DrainReason": request.reason})
        return True

    def cancel(self, machine):
        raise AssertionError(f"unexpected cancel of {machine}")


def test_d14_full_cycle_with_the_startd():
    pslot = ClassAd(
        '[Name="slot1@m00"; PartitionableSlot=True; Cpus=8; Memory=16384; Disk=100000; TotalCpus=8]'
    )
    startd = Startd(StartdPolicy.from_knobs({}, MODERN), pslot, start=D)
    job = ClassAd(
        '[Owner="bob"; JobUniverse=5; RequestCpus=4; RequestMemory=1024; RequestDisk=1024]'
    )
    dslot = startd.request_claim(D + 60, job).slot
    startd.activate(D + 61, slot=dslot)
    pool = Pool(startd)
    defrag = Defrag(DefragConfig.from_knobs(EXAMPLE))

    # 00:30: m00's running job (4 cpus, 1739 s old) costs 4*(1739+600) = 9356 < 10**6:
    # m00 ranks best and is drained gracefully. MJRT 0: Retiring -> Vacating at once.
    startd.advance(D + 1800)
    assert defrag.poll(D + 1800, pool.ads(), pool).drained == ["m00"]
    d = [(c.t - D, f"{c.target[0]}/{c.target[1]}") for c in startd.changes if c.slot == dslot]
    assert d[-2:] == [(1800, "Claimed/Retiring"), (1800, "Preempting/Vacating")]
    p = startd.slot("slot1@m00")
    assert p.pair == ("Drained", "Retiring")

    # The job leaves 30 s after SIGTERM: the d-slot goes away, its 4 cpus come back.
    startd.starter_exit(D + 1830, slot=dslot)
    assert dslot not in startd.slots and p.ad["Cpus"] == 8
    # The pass of 00:30:30 itself (5-s grid, polling still on; events run before the pass
    # of their second): every slot Drained -> Drained/Idle; the next pass without a
    # transition (polling is off now: the 300-s grid, 00:35) resumes: Owner -> Unclaimed.
    startd.advance(D + 2100)
    pairs = [
        (c.t - D, f"{c.target[0]}/{c.target[1]}")
        for c in startd.changes
        if c.slot == "slot1@m00" and c.t > D + 1800
    ]
    assert pairs == [(1830, "Drained/Idle"), (2100, "Owner/Idle"), (2100, "Unclaimed/Idle")]
    assert "Draining" not in p.ad
    # Badput: the job ran 1800 - 61 = 1739 s on 4 cpus before the drain evicted it.
    assert p.ad["TotalMachineDrainingBadput"] == 1739 * 4

    # 01:30: m00 is whole and not draining: counted, excluded; m01 is drained. The first
    # arrivals (m00 whole, m00 no longer draining) only set the timestamp.
    startd.advance(D + 5400)
    result = defrag.poll(D + 5400, pool.ads(), pool)
    assert result.whole == {"m00"} and result.drained == ["m01"]
    ad = defrag.ad(D + 5400)
    assert (ad["WholeMachines"], ad["DrainedMachines"]) == (1, 0)
