"""How the live commands reach a pool: a daemon's API found in the collector, and a refused
or failed request turned into one line and a non-zero exit (no traceback).

The pool is the one ``--pool`` names, else the configured or personal pool
(daemons/locate.py); ``-name`` picks one daemon when the pool has several of a kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..daemons.client import SyncApi
from ..errors import FairpoolError
from .errors import fail

__all__ = ["collector", "daemon", "refusals"]


def daemon(kind: str, name: str | None, pool: str | None) -> SyncApi:
    """The API of the pool's daemon of ``kind`` (``Scheduler``, ``Negotiator``, ...)."""
    from ..daemons.locate import daemon_url

    return SyncApi(daemon_url(kind, name, pool))


def collector(pool: str | None) -> SyncApi:
    from ..daemons.locate import collector_url

    return SyncApi(collector_url(pool))


@contextmanager
def refusals() -> Iterator[None]:
    """Any fairpool error inside (a refusal, an unreachable pool, bad input) ends the
    command with its first line."""
    try:
        yield
    except FairpoolError as err:
        fail(str(err).splitlines()[0] if str(err) else type(err).__name__)
