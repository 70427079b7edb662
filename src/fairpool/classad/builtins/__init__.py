"""Every builtin function of HTCondor's ClassAd library and of HTCondor's own extra set.

Importing this package registers them all in ``FUNCTIONS`` (names without case).
"""

from . import convert, environment, lists, logic, regex, stringlists, times, versions
from .registry import FUNCTIONS, Builtin, arity_ok, builtin, call

__all__ = ["FUNCTIONS", "Builtin", "arity_ok", "builtin", "call"]

_MODULES = (convert, environment, lists, logic, regex, stringlists, times, versions)
