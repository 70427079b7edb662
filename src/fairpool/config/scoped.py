"""A daemon's view of a configuration: ``LOCALNAME.KNOB``, then ``SUBSYS.KNOB``, then ``KNOB``.

HTCondor lets one file configure several daemons: ``NEGOTIATOR.PRIORITY_HALFLIFE`` is read
only by negotiators, ``NEGOTIATOR_ALLOCATED.NEGOTIATOR_SLOT_CONSTRAINT`` only by the
negotiator whose local name is NEGOTIATOR_ALLOCATED. ``Scoped`` reads a knob through those
prefixes (the first one set wins) and satisfies negotiator.configure.Knobs. The chosen
knob's text is expanded as the plain configuration expands it (its ``$(X)`` references are
not themselves looked up with the prefixes).
"""

from __future__ import annotations

from .configuration import Config

__all__ = ["Scoped"]


class Scoped:
    """``config`` as seen by one daemon: prefixes tried in order, then the bare name."""

    def __init__(self, config: Config, *prefixes: str) -> None:
        self.config = config
        self.prefixes = tuple(p for p in prefixes if p)

    def _name(self, name: str) -> str:
        for prefix in self.prefixes:
            qualified = f"{prefix}.{name}"
            if self.config.is_set(qualified):
                return qualified
        return name

    def get(self, name: str) -> str | None:
        return self.config.get(self._name(name))

    def where(self, name: str) -> tuple[str | None, int | None]:
        return self.config.where(self._name(name))

    def names(self) -> list[str]:
        """Names set, a knob under one of our prefixes under its bare name.

        Other dotted names stay as they are (``license.matlab_LIMIT`` is a concurrency
        limit, not a knob for a daemon called ``license``).
        """
        bare: dict[str, str] = {}
        wanted = {p.upper() for p in self.prefixes}
        for name in self.config.names():
            prefix, _, rest = name.partition(".")
            shown = rest if rest and prefix.upper() in wanted else name
            bare.setdefault(shown.upper(), shown)
        return list(bare.values())
