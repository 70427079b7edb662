"""Security, HTCondor's model with modern parts (docs/security.md).

``tokens`` (IDTOKENS-style signed JWTs and their signing keys), ``levels`` (READ, WRITE,
ADMINISTRATOR, DAEMON, NEGOTIATOR and what each implies), ``authorization`` (the
ALLOW_<LEVEL> and DENY_<LEVEL> lists), ``settings`` (one process's decision: who a
caller is and what it may do), ``routes`` (the level of every HTTP route and CEDAR
command), ``middleware`` (the HTTP gate), ``credentials`` (what a client presents) and
``tls`` (HTTPS for the pool's server).
"""

from .levels import Level

__all__ = ["Level"]
