"""Reading a pool from files the way an administrator has them: machine ads and job ads as
``condor_status -l`` / ``condor_q -l`` print them (old syntax, new syntax or JSON, gzipped or
not), and submit description files turned into job ads as condor_submit would.

Every problem is an ``InputError`` (or ``ClassAdSyntaxError``) naming the file and line, so
the commands that use this can report it in one line and leave their state untouched.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..classad import ClassAd, parse_ads
from ..errors import InputError

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["read_ads", "read_job_ads", "read_slot_ads", "submit_job_ads"]

MACHINE, JOB = "machine", "job"


def read_ads(path: str | Path) -> list[ClassAd]:
    """Every ad in a file; ``.gz`` files are read through gzip."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return list(parse_ads(handle, name=str(path)))
    except OSError as err:
        raise InputError(f"cannot read ads: {err.strerror or err}", str(path)) from err
    except UnicodeDecodeError as err:
        raise InputError(f"not a text file of ads ({err.reason})", str(path)) from err


def read_slot_ads(path: str | Path) -> list[ClassAd]:
    """The machine ads of a file: ads whose MyType is Machine, or that have no MyType but a
    Name (a hand-written slot ad). Other ads (a dump of a whole collector) are skipped."""
    ads = [ad for ad in read_ads(path) if _kind(ad) in (MACHINE, None) and "Name" in ad]
    if not ads:
        raise InputError('no machine ads (ads with a Name and MyType = "Machine")', str(path))
    return ads


def read_job_ads(path: str | Path) -> list[ClassAd]:
    """The job ads of a file: each needs ClusterId, ProcId and Owner to be negotiated."""
    ads = [ad for ad in read_ads(path) if _kind(ad) in (JOB, None)]
    for number, ad in enumerate(ads, 1):
        missing = [a for a in ("ClusterId", "ProcId", "Owner") if a not in ad]
        if missing:
            raise InputError(f"job ad {number} has no {', '.join(missing)}", str(path))
    return ads


def submit_job_ads(
    paths: Sequence[str | Path],
    owner: str,
    qdate: int,
    first_cluster: int,
    uid_domain: str,
    config: Config | None = None,
) -> list[ClassAd]:
    """Job ads for submit description files, one cluster per file, numbered from
    ``first_cluster`` in the order given (as successive condor_submit calls would).

    The configuration's submit knobs (ARCH, OPSYS, JOB_DEFAULT_REQUEST*, ...) apply where
    it sets them, and so does the accounting-group map of
    ``use FEATURE : AssignAccountingGroup(file)``."""
    from ..submit import SUBMIT_DEFAULTS, configured_group_map, read_submit

    knobs = {n: config.get(n) or "" for n in SUBMIT_DEFAULTS if config and config.is_set(n)}
    if config is not None:  # the slots' FileSystemDomain is the same knob (startd/machine.py)
        knobs.setdefault("FILESYSTEM_DOMAIN", config.get("FILESYSTEM_DOMAIN") or "")
    group_map = configured_group_map(config)
    ads: list[ClassAd] = []
    for number, path in enumerate(paths):
        description = read_submit(path)
        ads.extend(
            description.job_ads(
                owner=owner,
                cluster_id=first_cluster + number,
                qdate=qdate,
                uid_domain=uid_domain,
                cwd=Path(path).resolve().parent,
                group_map=group_map,
                config=knobs,
            )
        )
    return ads


def _kind(ad: ClassAd) -> str | None:
    kind = ad.eval("MyType") if "MyType" in ad else None
    return kind.lower() if isinstance(kind, str) else None
