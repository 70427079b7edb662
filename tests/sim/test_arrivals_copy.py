"""Submissions expanded once (sim/arrivals.py): copies are what a full expansion gives,
and a description that depends on its cluster is expanded every time."""

from fairpool.sim.arrivals import JobFactory
from fairpool.sim.scenario import parse_scenario


def _spec(submit: str):
    text = '[simulation]\nduration = "1h"\n[[machines]]\ncount = 1\nname = "n{n}"\n'
    text += 'ad = """\nCpus = 1\n"""\n'
    text += f'[[jobs]]\nowner = "ann"\nruntime = "10m"\nsubmit = """\n{submit}"""\n'
    return parse_scenario(text, "<test>").jobs[0]


def test_copies_equal_a_full_expansion():
    spec = _spec("executable = /bin/x\nrequest_memory = 2GB\nqueue 3\nexecutable = /bin/y\nqueue\n")
    factory = JobFactory("d", 1)
    first = [job.ad for job in factory.submit(spec, 0)]
    copies = [job.ad for job in factory.submit(spec, 500)]
    expanded = spec.description.job_ads(owner="ann", cluster_id=3, qdate=500, uid_domain="d")
    assert copies[0].lookup("Requirements") is first[0].lookup("Requirements")  # copied
    assert list(map(str, copies)) == list(map(str, expanded))
    # two clusters per submission: the next one starts after both
    assert [ad.eval("ClusterId") for ad in copies] == [3, 3, 3, 4]
    assert factory.next_cluster == 5


def test_a_description_that_reads_its_cluster_is_expanded_each_time():
    spec = _spec("executable = /bin/x\narguments = $(Cluster)\nqueue\n")
    factory = JobFactory("d", 1)
    first = factory.submit(spec, 0)[0].ad
    second = factory.submit(spec, 60)[0].ad
    # expanded again, not copied: each job has its own cluster in its arguments
    assert (first.eval("Args"), second.eval("Args")) == ("1", "2")
