"""HTTPS for a pool process: the certificate it serves with, when it is given one.

With ``AUTH_SSL_SERVER_CERTFILE`` and ``AUTH_SSL_SERVER_KEYFILE`` set (as HTCondor's
SSL method reads them: each a list of files, the first existing one used) the master
serves its API over TLS and its addresses are ``https://``; clients check the
certificate against ``AUTH_SSL_CLIENT_CAFILE`` (credentials.py). Set one without the
other, or name files that are not there, and the pool does not start.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from ..config.knob_values import KnobSource, knob_error

__all__ = ["scheme", "server_certificate"]

_CERT, _KEY = "AUTH_SSL_SERVER_CERTFILE", "AUTH_SSL_SERVER_KEYFILE"


def server_certificate(config: KnobSource) -> tuple[str, str] | None:
    """The certificate and key files to serve with (None: plain HTTP)."""
    cert, key = _first(config, _CERT), _first(config, _KEY)
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        missing = _CERT if cert is None else _KEY
        raise knob_error(config, missing, f"a file, as {_CERT} and {_KEY} go together")
    try:  # read now, so that a bad file stops the start with its knob named
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as err:
        expected = f"a PEM certificate that {key} is the key of ({err})"
        raise knob_error(config, _CERT, expected) from None
    return cert, key


def scheme(config: KnobSource) -> str:
    """``https`` when the pool serves with a certificate, else ``http``."""
    return "https" if server_certificate(config) is not None else "http"


def _first(config: KnobSource, name: str) -> str | None:
    files = [f for f in (config.get(name) or "").replace(",", " ").split() if f]
    if not files:
        return None
    found = next((f for f in files if Path(f).is_file()), None)
    if found is None:
        raise knob_error(config, name, "an existing PEM file")
    return found
