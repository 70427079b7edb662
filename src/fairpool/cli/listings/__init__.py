"""HTCondor's listings as pure functions from ClassAds to text: condor_q (queue), condor_status
(status), condor_history (history), ``-af`` (autoformat) and ``-l`` (long).

Nothing here reads the clock, the network or a file: the caller passes the ads and ``now``.
"""

from __future__ import annotations

from .autoformat import AutoFormat, autoformat
from .history import history
from .long import long_form
from .queue import JobCounts, Totals, listing
from .status import absent_slots, any_ads, negotiators, schedds, slot_summary, slots, submitters

__all__ = [
    "AutoFormat",
    "JobCounts",
    "Totals",
    "absent_slots",
    "any_ads",
    "autoformat",
    "history",
    "listing",
    "long_form",
    "negotiators",
    "schedds",
    "slot_summary",
    "slots",
    "submitters",
]
