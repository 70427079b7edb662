"""The seed's group example: 30 slots, physics 20 and chemistry 10 (static quotas); a power
failure takes half the machines and the quotas are scaled down in proportion (10 and 5)."""

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario
from fairpool.sim.summary import summarize

CONFIG = """
GROUP_NAMES = group_physics, group_chemistry
GROUP_QUOTA_group_physics =   20
GROUP_QUOTA_group_chemistry = 10
"""


def test_static_quotas_scale_down_after_a_power_failure(write_scenario, helpers):
    text = '[simulation]\nduration = "20h"\nnegotiator_interval = "10m"\nsample_interval = "1h"\n'
    text += f'[config]\ntext = """{CONFIG}"""\n' + helpers.machines(30)
    runtime = '{ distribution = "exponential", mean = "30m" }'
    for user, group in (("einstein", "group_physics"), ("curie", "group_chemistry")):
        submit = f"accounting_group = {group}\naccounting_group_user = {user}\n"
        text += helpers.jobs(user, runtime, "keep_idle = 40", submit)
    text += '[[events]]\nat = "10h"\naction = "remove_machines"\ncount = 15\n'
    run = simulate(load_scenario(write_scenario(text)))
    at = {(g.time / 3600, g.group): g for g in run.recorder.group_samples}
    assert (at[9, "group_physics"].quota, at[9, "group_chemistry"].quota) == (20, 10)
    assert (at[12, "group_physics"].quota, at[12, "group_chemistry"].quota) == (10, 5)
    # each group uses its quota and no more (no surplus)
    assert all(at[h, "group_physics"].usage <= 20 for h in range(10))
    assert all(at[h, "group_physics"].usage <= 10 for h in range(11, 20))
    assert at[15, "group_physics"].usage == 10 and at[15, "group_chemistry"].usage == 5
    groups = summarize(run)["groups"]
    pool = groups["<none>"]
    assert (
        pool["submitted"]
        == groups["group_physics"]["submitted"] + groups["group_chemistry"]["submitted"]
    )
    assert groups["group_physics"]["core_hours"] > 1.8 * groups["group_chemistry"]["core_hours"]
