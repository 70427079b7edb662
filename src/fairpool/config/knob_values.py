"""Typed values read out of configuration knobs, with errors that name the file and line
the knob was set on. Written against the least a reader needs, ``get(name)`` and
``where(name)``, which ``Config``, its scoped views and the plain mappings of tests all
provide; the negotiator's and the startd's configuration readers share these."""

from __future__ import annotations

from typing import Protocol

from ..classad import ClassAdSyntaxError, Expr
from ..errors import ConfigError

__all__ = ["KnobSource", "daemon_name", "knob_error", "knob_expr"]


class KnobSource(Protocol):
    def get(self, name: str) -> str | None: ...

    def where(self, name: str) -> tuple[str | None, int | None]: ...


def daemon_name(given: str | None, host: str) -> str:
    """A daemon's name as HTCondor composes it from MASTER_NAME, SCHEDD_NAME or
    STARTD_NAME: ``name@host`` (so that several daemons of one kind on one host differ),
    the name as given when it has an ``@``, the host's name when unset."""
    name = (given or "").strip()
    if not name:
        return host
    return name if "@" in name else f"{name}@{host}"


def knob_error(knobs: KnobSource, name: str, expected: str) -> ConfigError:
    """``NAME = 'value': expected ...`` at the place the knob was set."""
    source, line = knobs.where(name)
    return ConfigError(f"{name} = {knobs.get(name)!r}: expected {expected}", source, line, name)


def knob_expr(knobs: KnobSource, name: str) -> Expr | None:
    """The knob as a ClassAd expression; None when it is unset or blank."""
    text = knobs.get(name)
    if text is None or not text.strip():
        return None
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise knob_error(knobs, name, f"a ClassAd expression ({err.message})") from None
