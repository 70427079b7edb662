"""Who made a request, as authentication found out: an identity and how it was proved."""

from __future__ import annotations

from dataclasses import dataclass

from .levels import Level

__all__ = ["UNAUTHENTICATED", "Principal"]

UNAUTHENTICATED = "unauthenticated@unmapped"  # HTCondor's name for a caller no method proved


@dataclass(frozen=True)
class Principal:
    """An identity (``alice@example.org``), the method that proved it (``IDTOKENS``,
    ``FS``, or empty: none did), the client's address, a token's scope (None: no
    restriction) and, for a local user, the uid."""

    identity: str
    method: str
    host: str | None
    scope: frozenset[Level] | None = None
    uid: int | None = None

    @property
    def authenticated(self) -> bool:
        return bool(self.method)

    @property
    def user(self) -> str | None:
        """The user part of the identity: who owns the jobs it submits."""
        return self.identity.rpartition("@")[0] if self.authenticated else None

    @classmethod
    def nobody(cls, host: str | None) -> Principal:
        """A caller no method proved."""
        return cls(UNAUTHENTICATED, "", host)
