"""Finding a pool and its daemons, for the commands.

A pool is addressed by its collector: ``--pool URL`` (or ``host:port``), else
``COLLECTOR_HOST`` from the environment (``_CONDOR_COLLECTOR_HOST``, as HTCondor's tools
read it) or from ``CONDOR_CONFIG``'s configuration, else the personal pool of the
current user (the address ``fairpool pool start`` wrote in its directory, ``$FAIRPOOL_DIR``
or ``~/.fairpool``). Where several collectors are named (``cm1:9618, cm2:9618``, a pool
with a standby central manager), the first that answers is the pool's, as HTCondor's
tools take it. The other daemons are found in the collector, by their ads'
``ApiAddress``; a name without ``@`` (``-name sub1``) also finds ``sub1@host``, the name
HTCondor gives a daemon of SCHEDD_NAME (or STARTD_NAME, MASTER_NAME) ``sub1``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import httpx

from ..errors import ConfigError
from .addresses import collector_entry
from .client import SyncApi
from .errors import NotFound, Unavailable

__all__ = ["collector_url", "daemon_url", "pool_base"]

_PROBE = httpx.Timeout(5.0, connect=2.0)


def pool_base(pool: str | None = None, directory: Path | None = None) -> str:
    """The pool's base URL (``http://127.0.0.1:PORT``): the first of its collectors'
    processes that answers."""
    given = pool or os.environ.get("_CONDOR_COLLECTOR_HOST") or _configured()
    if given:
        return _first_answering([_url(text) for text in re.split(r"[\s,]+", given) if text])
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
        ads = _named(ads, name)
    addresses = [ad["ApiAddress"] for ad in ads if isinstance(ad.get("ApiAddress"), str)]
    if not addresses:
        what = f"{kind} {name}" if name else f"no {kind}"
        raise NotFound(f"{what} in the pool at {collector_url(pool)}")
    if len(addresses) > 1:
        names = ", ".join(sorted(str(ad.get("Name")) for ad in ads))
        raise NotFound(f"several {kind} ads ({names}): name one with -name")
    return addresses[0]


def _named(ads: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    exact = [ad for ad in ads if ad.get("Name") == name]
    if exact or "@" in name:
        return exact
    return [ad for ad in ads if str(ad.get("Name", "")).startswith(f"{name}@")]


def _first_answering(bases: list[str]) -> str:
    """The first base URL whose collector answers (the only one, untried)."""
    if len(bases) == 1:
        return bases[0]
    failures = []
    for base in bases:
        api = SyncApi(f"{base}/collector", timeout=_PROBE)
        try:
            api.get("/ads", type="Collector", projection="Name")
            return base
        except Unavailable as err:
            failures.append(str(err))
        finally:
            api.close()
    raise Unavailable("no collector answers: " + "; ".join(failures))


def _configured() -> str | None:
    if not os.environ.get("CONDOR_CONFIG"):
        return None
    from ..config import load_config

    listed = load_config().get_list("COLLECTOR_HOST")
    reachable = [text for text in listed if not text.endswith(":0")]
    return ", ".join(reachable) or None


def _url(text: str) -> str:
    entry = collector_entry(text)
    if entry is None:
        raise ConfigError(f"the pool {text!r}: expected host[:port] or an http(s):// URL")
    return entry.base
