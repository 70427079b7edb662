"""The table of builtin functions and how a call reaches one.

A builtin is registered under one or more names (looked up without case) with the number
of arguments it takes. Most receive evaluated arguments; ``lazy`` ones receive the argument
nodes and decide what to evaluate (``ifThenElse``, ``unparse``, ``countMatches``...).
``pure`` marks functions whose result depends only on their arguments, which the compiler
may fold. An unknown function or a wrong number of arguments is ERROR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..values import ERROR

__all__ = ["FUNCTIONS", "Builtin", "arity_ok", "builtin", "call"]


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    fn: Callable[..., Any]
    min_args: int
    max_args: int | None
    lazy: bool
    pure: bool


FUNCTIONS: dict[str, Builtin] = {}


def builtin(
    *names: str, args: int | tuple[int, int | None] = 1, lazy: bool = False, pure: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a function ``fn(state, args)`` under ``names``; ``args`` is n or (min, max)."""
    low, high = (args, args) if isinstance(args, int) else args

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for name in names:
            FUNCTIONS[name.lower()] = Builtin(name, fn, low, high, lazy, pure)
        return fn

    return register


def arity_ok(spec: Builtin, count: int) -> bool:
    return count >= spec.min_args and (spec.max_args is None or count <= spec.max_args)


def call(node: Any, st: Any) -> Any:
    """Evaluate a call node with the state's evaluator (the interpreter's path)."""
    spec = FUNCTIONS.get(node.lname)
    if spec is None or not arity_ok(spec, len(node.args)):
        return ERROR
    if spec.lazy:
        return spec.fn(st, node.args)
    return spec.fn(st, [st.run(arg, st) for arg in node.args])
