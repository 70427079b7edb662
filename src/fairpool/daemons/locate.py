"""Finding a pool and its daemons, for the commands.

A pool is addressed by its collector: ``--pool URL`` (or ``host:port``), else
``COLLECTOR_HOST`` from the environment (``_CONDOR_COLLECTOR_HOST``, as HTCondor's tools
read it) or from ``CONDOR_CONFIG``'s configuration, else the personal pool of the
current user (the address ``fairpool pool start`` wrote in its directory, ``$FAIRPOOL_DIR``
or ``~/.fairpool``). The other daemons are found in the collector, by their ads'
``ApiAddress``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .client import SyncApi
from .errors import NotFound, Unavailable

__all__ = ["collector_url", "daemon_url", "pool_base"]


def pool_base(pool: str | None = None, directory: Path | None = None) -> str:
    """The pool's base URL (``http://127.0.0.1:PORT``)."""
    given = pool or os.environ.get("_CONDOR_COLLECTOR_HOST") or _configured()
    if given:
        return _url(given)
    from .master import ADDRESS_NAME, pool_dir

    place = pool_dir(directory) / ADDRESS_NAME
    try:
        return place.read_text().strip()
    except OSError:
        raise Unavailable(
            f"no pool running at {place.parent} (start one with `fairpool pool start`, "
            "or name one with --pool)"
        ) from None


def collector_url(pool: str | None = None, directory: Path | None = None) -> str:
    return f"{pool_base(pool, directory)}/collector"


def daemon_url(kind: str, name: str | None, pool: str | None = None) -> str:
    """The API of a daemon (``Scheduler``, ``Negotiator``...), by name when there are
    several."""
    collector = SyncApi(collector_url(pool))
    try:
        ads = collector.get("/ads", type=kind, projection="Name,ApiAddress")["ads"]
    finally:
        collector.close()
    if name is not None:
        ads = [ad for ad in ads if ad.get("Name") == name]
    addresses = [ad["ApiAddress"] for ad in ads if isinstance(ad.get("ApiAddress"), str)]
    if not addresses:
        what = f"{kind} {name}" if name else f"no {kind}"
        raise NotFound(f"{what} in the pool at {collector_url(pool)}")
    if len(addresses) > 1 and name is None:
        names = ", ".join(sorted(str(ad.get("Name")) for ad in ads))
        raise NotFound(f"several {kind} ads ({names}): name one with -name")
    return addresses[0]


def _configured() -> str | None:
    if not os.environ.get("CONDOR_CONFIG"):
        return None
    from ..config import load_config

    value = (load_config().get("COLLECTOR_HOST") or "").strip()
    return value if value and not value.endswith(":0") else None


def _url(text: str) -> str:
    text = text.strip().rstrip("/")
    if "://" not in text:
        text = f"http://{text}"
    return text.removesuffix("/collector")
