"""HTCondor's wire protocol (CEDAR), a front end of the pool's daemons beside the HTTP
API, for HTCondor's own clients (the ``htcondor`` wheel's ``htcondor2`` and its
``htcondor`` tool). Written from what the wheel was observed to send and accept
(spec/cedar.md), never from HTCondor's source.

``framing`` (packets and messages, bounded), ``wire`` (integers, strings, doubles and
ads), ``security`` (the handshake, answered honestly) and ``authentication`` (FS) are
the protocol; ``collector``, ``schedd``, ``qmgmt`` and ``negotiator`` map each daemon's
commands onto its core; ``server`` is the asyncio listener and ``listener`` builds the
one a process runs (docs/htcondor-clients.md).
"""

from .listener import cedar_server

__all__ = ["cedar_server"]
