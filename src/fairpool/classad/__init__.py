"""The ClassAd language: values, expressions, ads, matching and the ad file formats.

Shaped like HTCondor's Python binding where it names the same thing::

    from fairpool.classad import ClassAd, ExprTree
    slot = ClassAd('[ Memory = 2048; Requirements = TARGET.RequestMemory <= Memory ]')
    job = ClassAd('[ RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]')
    slot.symmetricMatch(job)          # True
    ExprTree("1 + 2").eval()          # 3
"""

from ..errors import ClassAdSyntaxError
from .ad import ClassAd, Expr, ExprTree
from .formats import parse_ad, parse_ads, write_json, write_new, write_old
from .match import rank, requirements_met, symmetric_match
from .values import ERROR, UNDEFINED, AbsTime, ClassAdList, Error, RelTime, Undefined

__all__ = [
    "ERROR",
    "UNDEFINED",
    "AbsTime",
    "ClassAd",
    "ClassAdList",
    "ClassAdSyntaxError",
    "Error",
    "Expr",
    "ExprTree",
    "RelTime",
    "Undefined",
    "parse_ad",
    "parse_ads",
    "rank",
    "requirements_met",
    "symmetric_match",
    "write_json",
    "write_new",
    "write_old",
]
