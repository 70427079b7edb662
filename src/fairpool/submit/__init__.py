"""Submit description files -> job ads, as condor_submit makes them; accounting-group maps.

    from fairpool.submit import GroupMap, read_submit
    ads = read_submit("job.sub").job_ads(owner="alice", cluster_id=42, qdate=1700000000,
                                          group_map=GroupMap.read("groups.map"))

What is read and produced, and where fairpool differs from condor_submit: docs/submit.md.
"""

from .description import SubmitDescription, parse_submit, read_submit
from .groupmap import GroupMap, configured_group_map
from .knobs import SUBMIT_DEFAULTS

__all__ = [
    "SUBMIT_DEFAULTS",
    "GroupMap",
    "SubmitDescription",
    "configured_group_map",
    "parse_submit",
    "read_submit",
]
