"""A startd's policy: its knobs read, checked and typed, over a behaviour profile.

``Knobs`` is any case-insensitive view of an HTCondor configuration with macros already
expanded: ``get(name)`` gives the text or None; ``where(name)``, if present, the file and
line that set it (for messages). A plain mapping works too
(``StartdPolicy.from_knobs({"START": "True"})``). So ``fairpool.config``, or any other
reader, plugs in. Knobs left unset take the profile's defaults (``knobs.py``); so do knobs
that only the parameter table sets (``where`` gives ``<default>``), so that the MODERN
profile keeps current HTCondor's defaults under ``fairpool.config``, whose table holds
the seed's.

A knob whose text does not parse, or that is not the number or boolean it must be, is a
``ConfigError`` naming the knob and where it was set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

from ..classad import ClassAdSyntaxError, Expr
from ..errors import ConfigError
from .knobs import KNOBS, POLICY_EXPRESSIONS, Knob
from .profile import SEED, Profile

__all__ = ["Knobs", "MappingKnobs", "StartdPolicy"]


class Knobs(Protocol):
    """Any configuration: ``get`` gives a knob's macro-expanded text, or None when unset.

    ``where(name) -> (file, line)``, when the object has it, makes messages point at the
    place a bad knob was set (``fairpool.config.Config`` and ``tests/knobs.TextKnobs``)."""

    def get(self, name: str) -> str | None: ...


class MappingKnobs:
    """A ``Knobs`` view of a plain mapping (names without case), for code and tests."""

    def __init__(self, values: Mapping[str, str], source: str | None = None) -> None:
        self.values = {name.lower(): (name, str(text)) for name, text in values.items()}
        self.source = source

    def get(self, name: str) -> str | None:
        found = self.values.get(name.lower())
        return found[1] if found else None

    def where(self, name: str) -> tuple[str | None, int | None]:
        return (self.source, None)


@dataclass(frozen=True)
class StartdPolicy:
    """Everything the state machine reads from the configuration.

    ``expressions`` maps slot-ad attribute names to the policy expressions copied into
    every slot ad; ``texts`` keeps each one's text as configured, for traces.
    """

    profile: Profile = SEED
    expressions: dict[str, Expr] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    match_timeout: int = 300
    killing_timeout: int = 30
    polling_interval: int = 5
    update_interval: int = 300
    claim_worklife: int | None = None
    modifiers: dict[str, Expr] = field(default_factory=dict)
    draining_start: Expr | None = None

    @classmethod
    def from_knobs(
        cls, knobs: Knobs | Mapping[str, str] | None = None, profile: Profile = SEED
    ) -> StartdPolicy:
        """Read ``knobs`` (unset ones take ``profile``'s defaults)."""
        reader = _Reader(_as_knobs(knobs), profile)
        expressions, texts = reader.policy_expressions()
        profile = replace(
            profile,
            matched_checks_start=reader.value("MATCHED_CHECKS_START"),
            stale_ad_in_enter_action=reader.value("STALE_AD_IN_ENTER_ACTION"),
            unclaimed_current_rank=float(reader.value("UNCLAIMED_CURRENT_RANK")),
        )
        return cls(
            profile=profile,
            expressions=expressions,
            texts=texts,
            match_timeout=reader.value("MATCH_TIMEOUT"),
            killing_timeout=reader.value("KILLING_TIMEOUT"),
            polling_interval=max(1, reader.value("POLLING_INTERVAL")),
            update_interval=max(1, reader.value("UPDATE_INTERVAL")),
            claim_worklife=reader.value("CLAIM_WORKLIFE"),
            modifiers={
                f"Request{r}": reader.value(f"MODIFY_REQUEST_EXPR_REQUEST{r.upper()}")
                for r in ("Cpus", "Memory", "Disk")
            },
            draining_start=reader.value("DEFAULT_DRAINING_START_EXPR"),
        )

    def text(self, attribute: str) -> str:
        """The configured text of a policy attribute (for messages)."""
        return self.texts.get(attribute.lower(), "")


def _as_knobs(knobs: Knobs | Mapping[str, str] | None) -> Knobs:
    if knobs is None:
        return MappingKnobs({})
    if isinstance(knobs, Mapping):
        return MappingKnobs(knobs)
    return knobs


_BY_NAME = {name.lower(): knob for knob in KNOBS for name in (knob.name, *knob.aliases)}


class _Reader:
    """Reads knobs by their table entry: text from the config, else the profile default."""

    def __init__(self, knobs: Knobs, profile: Profile) -> None:
        self.knobs = knobs
        self.modern = profile.name == "MODERN"

    def _text(self, knob: Knob) -> tuple[str | None, str]:
        for name in (knob.name, *knob.aliases):
            text = self.knobs.get(name)
            if text is not None and text.strip() and not self._table_default(name):
                return text.strip(), name
        return (knob.modern if self.modern else knob.seed), knob.name

    def _table_default(self, name: str) -> bool:
        """Set by no file, only by the parameter table (``Config.where`` says
        ``<default>``): the profile's default applies instead."""
        where = getattr(self.knobs, "where", None)
        return where is not None and where(name)[0] == "<default>"

    def _expr(self, knob: Knob) -> tuple[Expr | None, str | None]:
        text, name = self._text(knob)
        if text is None:
            return None, None
        try:
            return Expr(text), text
        except ClassAdSyntaxError as err:
            raise self._error(name, f"a ClassAd expression ({err.message})") from None

    def _error(self, name: str, expected: str) -> ConfigError:
        where = getattr(self.knobs, "where", None)
        source, line = where(name) if where is not None else (None, None)
        text = self.knobs.get(name)
        return ConfigError(f"{name} = {text!r}: expected {expected}", source, line, name)

    def value(self, name: str) -> object:
        knob = _BY_NAME[name.lower()]
        expr, _ = self._expr(knob)
        if knob.kind == "expr" or expr is None:
            return expr
        value = expr.eval(now=0)
        if knob.kind == "bool" and type(value) is bool:
            return value
        if knob.kind == "int" and type(value) is int:
            return value
        if knob.kind == "float" and type(value) in (int, float):
            return float(value)
        raise self._error(knob.name, {"bool": "True or False"}.get(knob.kind, f"an {knob.kind}"))

    def policy_expressions(self) -> tuple[dict[str, Expr], dict[str, str]]:
        exprs: dict[str, Expr] = {}
        texts: dict[str, str] = {}
        for name, attribute in POLICY_EXPRESSIONS.items():
            expr, text = self._expr(_BY_NAME[name.lower()])
            if expr is not None and text is not None:
                exprs[attribute] = expr
                texts[attribute.lower()] = text
        for name in self._extra_attribute_names():
            text = self.knobs.get(name)
            if text is not None and name.lower() not in _BY_NAME:
                try:
                    exprs[name] = Expr(text)
                except ClassAdSyntaxError as err:
                    raise self._error(name, f"a ClassAd expression ({err.message})") from None
                texts[name.lower()] = text
        return exprs, texts

    def _extra_attribute_names(self) -> list[str]:
        names: list[str] = []
        for knob in ("STARTD_ATTRS", "STARTD_EXPRS"):
            text = self.knobs.get(knob) or ""
            names.extend(n for n in text.replace(",", " ").split() if n)
        return names
