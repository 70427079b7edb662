"""Which jobs a command names: condor_q's restriction list, shared by ``fairpool q``,
``history``, ``rm``, ``hold``, ``release`` and ``qedit``.

Arguments are job ids (``C.P``), cluster ids (``C``) and user names, as HTCondor's tools
read them. condor_q's manual states how they combine: without a user name a job matches
if it matches any restriction; with user names it must be one of those users' and match
at least one other restriction (if there is one). Each ``-constraint`` is a restriction
of its own. ``-allusers`` aside, condor_q shows only the current user's jobs unless user
names or job ids are given or the user is a queue super user (HTCondor's default
QUEUE_SUPER_USERS is root and the pool's own user; a command knows only about root).

Everything here is text in, text out: the constraint is sent to the schedd as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..classad import Expr
from ..classad.ad import node_of
from ..classad.unparse import unparse
from ..errors import ClassAdSyntaxError, InputError

__all__ = ["Selection", "checked", "literal"]

_WHERE = "<command line>"


def checked(text: str, option: str = "-constraint") -> str:
    """``text`` if it is a ClassAd expression, else an InputError naming the option and the
    column (before anything is sent)."""
    try:
        Expr(text)
    except ClassAdSyntaxError as err:
        raise InputError(f"{option} {text!r}: column {err.column}: {err.message}", _WHERE) from None
    return text


def literal(text: str) -> str:
    """``text`` as a ClassAd string literal."""
    return unparse(node_of(text))


@dataclass(frozen=True)
class Selection:
    """Job ids, cluster ids, user names and constraints, as given."""

    jobs: tuple[str, ...] = ()
    clusters: tuple[int, ...] = ()
    users: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()

    @classmethod
    def parse(cls, arguments: Sequence[str], constraints: Sequence[str] = ()) -> Selection:
        """Sort the arguments; a malformed id or constraint is an InputError naming it."""
        jobs: list[str] = []
        clusters: list[int] = []
        users: list[str] = []
        for argument in arguments:
            if argument[:1].isdigit():
                _id(argument, jobs, clusters)
            elif argument:
                users.append(argument)
        checked_ = tuple(checked(text) for text in constraints)
        return cls(tuple(jobs), tuple(clusters), tuple(users), checked_)

    @property
    def empty(self) -> bool:
        return not (self.jobs or self.clusters or self.users or self.constraints)

    @property
    def names_jobs(self) -> bool:
        """User names or job ids override condor_q's only-my-jobs default."""
        return bool(self.jobs or self.clusters or self.users)

    def default_owner(self, allusers: bool, user: str, super_user: bool) -> str | None:
        """The user condor_q shows by default (None: no such restriction)."""
        return None if allusers or self.names_jobs or super_user else user

    def constraint(self, extra: Sequence[str] = ()) -> str | None:
        """The whole restriction as one ClassAd expression (None: every job), ANDed with
        ``extra`` (a layout's own restriction, such as ``-hold``'s)."""
        others = [*self._ids(), *(f"({c})" for c in self.constraints)]
        parts = []
        if self.users:
            parts.append(_any([f"Owner == {literal(u)}" for u in self.users]))
        if others:
            parts.append(_any(others))
        parts.extend(f"({e})" for e in extra)
        return " && ".join(parts) if parts else None

    def _ids(self) -> list[str]:
        ids = []
        for job in self.jobs:
            cluster, proc = job.split(".")
            ids.append(f"(ClusterId == {cluster} && ProcId == {proc})")
        ids.extend(f"ClusterId == {c}" for c in self.clusters)
        return ids


def _id(text: str, jobs: list[str], clusters: list[int]) -> None:
    cluster, dot, proc = text.partition(".")
    if cluster.isdigit() and not dot:
        clusters.append(int(cluster))
    elif cluster.isdigit() and proc.isdigit():
        jobs.append(f"{int(cluster)}.{int(proc)}")
    else:
        raise InputError(f"{text!r}: expected a job id (cluster or cluster.proc)", _WHERE)


def _any(parts: list[str]) -> str:
    """Alternatives, parenthesized when there are several (so that ``&&`` may follow)."""
    return parts[0] if len(parts) == 1 else f"({' || '.join(parts)})"
