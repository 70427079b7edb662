"""``ClassAd`` (a case-insensitive record of expressions) and ``Expr`` (one expression).

Both are shaped like HTCondor's Python binding (``classad2``) where they name the same
thing: ``ad["Memory"]``, ``ad.eval("Rank")``, ``ad.lookup("Requirements")``,
``ad.symmetricMatch(other)``, ``ExprTree("1 + 2").eval()``.

An ad written inside an expression (``[a = 1; b = a + 1]``) becomes a *view* when it is
evaluated: a ClassAd sharing the literal's attribute table, whose parent is the ad it was
written in. Views are cached per (literal, parent), so repeated evaluation yields the same
object, as in HTCondor's library where nested ads are objects of their own.
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from functools import lru_cache
from typing import Any

from .nodes import AdLit, ListLit, Literal, Node
from .parser import parse_ad_literal, parse_expr
from .scope import MAX_DEPTH, NOT_CONST, EvalState
from .values import (
    ERROR,
    UNDEFINED,
    AbsTime,
    AdBase,
    ClassAdList,
    Error,
    RelTime,
    Undefined,
    from_text,
    to_text,
)

__all__ = ["ClassAd", "Expr", "ExprTree", "node_of", "to_python", "view"]

_SCALARS = (bool, int, float, str, AbsTime, RelTime, Undefined, Error)


class Expr:
    """An immutable ClassAd expression (HTCondor's ``ExprTree``).

    ``Expr(text)`` parses new-syntax text (cached per distinct text). ``const`` is the value
    when the expression is a scalar literal, so lookups of plain attributes cost nothing.
    ``size`` (its number of nodes, 0 until an evaluation first needs it) is what evaluating
    it once costs towards scope.MAX_STEPS.
    """

    __slots__ = ("const", "node", "size")

    def __new__(cls, source: str | Node) -> Expr:
        if isinstance(source, str):
            return _parse_cached(source)
        return cls._from_node(source)

    @classmethod
    def _from_node(cls, node: Node) -> Expr:
        self = object.__new__(cls)
        self.node = node
        const = NOT_CONST
        if type(node) is Literal and isinstance(node.value, _SCALARS):
            const = node.value
        self.const = const
        self.size = 0
        return self

    def eval(
        self,
        scope: ClassAd | None = None,
        target: ClassAd | None = None,
        *,
        now: float | None = None,
    ) -> Any:
        """Evaluate with ``scope`` as MY (and ``target`` as TARGET); Python value back."""
        return to_python(_match.evaluate(self, scope, target, now=_now(now)))

    def __str__(self) -> str:
        from .unparse import unparse

        return unparse(self.node)

    def __repr__(self) -> str:
        return f"ExprTree({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self):
        return (Expr, (str(self),))


ExprTree = Expr


@lru_cache(maxsize=1 << 16)
def _parse_cached(text: str) -> Expr:
    return Expr._from_node(parse_expr(text))


class ClassAd(AdBase, MutableMapping):
    """A ClassAd: attribute names (case-insensitive, spelling kept) mapped to expressions.

    ``ClassAd("[a = 1; b = a + 1]")`` parses new syntax; ``ClassAd({"a": 1})`` converts
    Python values. Reading ``ad[name]`` gives the Python value of a constant and the
    ``Expr`` otherwise; ``ad.eval(name)`` always evaluates.
    """

    __slots__ = ("_exprs", "_names", "_shared", "_views", "parent")

    def __init__(self, source: str | Mapping[str, Any] | None = None) -> None:
        self._exprs: dict[str, Expr] = {}
        self._names: dict[str, str] = {}
        self._shared = False
        self._views: dict[Node, ClassAd] | None = None
        self.parent: ClassAd | None = None
        if isinstance(source, str):
            self._load(parse_ad_literal(source))
        elif source is not None:
            for name, value in source.items():
                self[name] = value

    @classmethod
    def _from_tables(
        cls,
        exprs: dict[str, Expr],
        names: dict[str, str],
        shared: bool,
        parent: ClassAd | None = None,
    ) -> ClassAd:
        """An ad over attribute tables made elsewhere; ``shared``: they are someone
        else's too, copied before the first change (``_own``)."""
        ad = cls.__new__(cls)
        ad._exprs, ad._names, ad._shared, ad._views, ad.parent = exprs, names, shared, None, parent
        return ad

    def _load(self, literal: AdLit) -> None:
        for name, node in literal.attrs:
            self.insert_node(name, node)

    # -- mapping protocol -------------------------------------------------------------
    def get(self, name: str, default: Any = None) -> Any:
        """``self[name]``, or ``default`` when absent: one lookup of the table, not a
        membership test and then ``self[name]``'s (everything reads ads this way; the
        simulator's stories ran 4-5% faster)."""
        expr = self._exprs.get(name.lower())
        if expr is None:
            return default
        const = expr.const
        if const is not NOT_CONST:  # a scalar: to_python's answer, without the call
            return to_text(const) if type(const) is str else const
        return self._value(name, expr)

    def __getitem__(self, name: str) -> Any:
        expr = self._exprs[name.lower()]
        const = expr.const
        if const is not NOT_CONST:
            return to_text(const) if type(const) is str else const
        return self._value(name, expr)

    def _value(self, name: str, expr: Expr) -> Any:
        """What ``ad[name]`` gives for an expression that is no scalar literal."""
        if type(expr.node) in (ListLit, AdLit):
            return self.eval(name)
        return expr

    def __setitem__(self, name: str, value: Any) -> None:
        kind = type(value)
        if kind is int or kind is bool or kind is str or kind is float:
            self.insert_expr(name, _literal_expr(kind, value))
        else:
            self.insert_node(name, node_of(value))

    def update(self, other: Any = (), /, **more: Any) -> None:
        """MutableMapping's update, with a plain dict (how the pool sets a slot's or a
        job's attributes) set item by item without the generic protocol's checks."""
        if type(other) is dict and not more:
            self._own()
            exprs, names = self._exprs, self._names
            for name, value in other.items():
                kind = type(value)
                if kind is int or kind is bool or kind is str or kind is float:
                    key = name.lower()  # __setitem__ and insert_expr, without the calls
                    names.setdefault(key, name)
                    exprs[key] = _literal_expr(kind, value)
                else:
                    self.insert_node(name, node_of(value))
            return
        super().update(other, **more)

    def __delitem__(self, name: str) -> None:
        self._own()
        key = name.lower()
        del self._exprs[key]
        del self._names[key]

    def discard(self, names: Iterable[str]) -> None:
        """Remove each of ``names`` that the ad has (a slot's claim ending: several at
        once, without a membership test and a deletion call for each)."""
        exprs = self._exprs
        for name in names:
            key = name.lower()
            if key in exprs:
                self._own()  # a shared table is copied before the first change only
                exprs = self._exprs
                del exprs[key]
                del self._names[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names.values()))

    def __len__(self) -> int:
        return len(self._exprs)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._exprs

    # -- HTCondor-shaped API ------------------------------------------------------------
    def insert_node(self, name: str, node: Node) -> None:
        """Set an attribute to a parsed expression (the first spelling of a name is kept)."""
        self._own()
        key = name.lower()
        self._names.setdefault(key, name)
        self._exprs[key] = Expr._from_node(node)

    def insert_expr(self, name: str, expr: Expr) -> None:
        """Set an attribute to an existing Expr (shared, as expressions are immutable)."""
        self._own()
        key = name.lower()
        self._names.setdefault(key, name)
        self._exprs[key] = expr

    def lookup(self, name: str) -> Expr:
        """The attribute's expression, unevaluated (KeyError if absent)."""
        return self._exprs[name.lower()]

    def spelling(self, name: str) -> str:
        """The attribute's name as it was first written."""
        return self._names[name.lower()]

    def eval(self, name: str, target: ClassAd | None = None, *, now: float | None = None) -> Any:
        """Evaluate an attribute in this ad (against ``target``); Python value back."""
        expr = self._exprs.get(name.lower())
        if expr is None:
            return UNDEFINED  # absent: nothing to evaluate
        if expr.const is not NOT_CONST:
            return to_python(expr.const)  # a literal reads nothing: no evaluation needed
        return to_python(_match.evaluate_attribute(self, name, target, now=_now(now)))

    def matches(self, other: ClassAd, *, now: float | None = None) -> bool:
        """classad2's ``matches``: ``other``'s Requirements hold with MY=other, TARGET=self."""
        return _match.requirements_met(other, self, now=_now(now))

    def symmetricMatch(self, other: ClassAd, *, now: float | None = None) -> bool:
        """Both ads' Requirements hold against each other."""
        return _match.symmetric_match(self, other, now=_now(now))

    symmetric_match = symmetricMatch

    def externalRefs(self, expr: Expr | str) -> list[str]:
        """References an expression makes that this ad cannot resolve (``TARGET.Memory``,
        names it lacks), sorted without case, as classad2 lists them."""
        from .refs import references

        return sorted(references(_as_expr(expr).node, self).unresolved, key=str.lower)

    def internalRefs(self, expr: Expr | str) -> list[str]:
        """Attributes of this ad an expression reads, directly or through other attributes."""
        from .refs import references

        return sorted(references(_as_expr(expr).node, self).internal, key=str.lower)

    def printOld(self) -> str:
        """The ad in old syntax, one ``Name = expr`` per line (as condor_status -l prints)."""
        from .formats import write_old

        return write_old(self)

    def printJson(self) -> str:
        """The ad in HTCondor's JSON ad format."""
        from .formats import write_json

        return write_json(self)

    def copy(self) -> ClassAd:
        """A shallow copy (expressions are immutable and shared)."""
        ad = ClassAd()
        ad._exprs = dict(self._exprs)
        ad._names = dict(self._names)
        return ad

    def __str__(self) -> str:
        from .unparse import unparse_ad

        return unparse_ad(self)

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassAd):
            return NotImplemented
        return self._exprs.keys() == other._exprs.keys() and all(
            self._exprs[k] == other._exprs[k] for k in self._exprs
        )

    __hash__ = None  # type: ignore[assignment]

    def detached_copy(self) -> ClassAd:
        """The ad as ``ad["name"]`` yields it in HTCondor 25's library: its attributes can
        be subscripted but ``.name`` on it is undefined (docs/compat.md)."""
        return _DetachedAd._from_tables(self._exprs, self._names, True, self.parent)

    def _own(self) -> None:
        """Copy a shared attribute table before changing it."""
        if self._shared:
            self._exprs = dict(self._exprs)
            self._names = dict(self._names)
            self._shared = False
        self._views = None


class _DetachedAd(ClassAd):
    __slots__ = ()
    detached = True


def view(literal: AdLit, parent: ClassAd | None) -> ClassAd:
    """The ad a nested literal stands for, inside ``parent`` (cached per parent)."""
    views = None
    if parent is not None:
        views = parent._views
        if views is None:
            views = parent._views = {}
        found = views.get(literal)
        if found is not None:
            return found
    table = literal.template
    if table is None:
        exprs = {name.lower(): Expr._from_node(node) for name, node in literal.attrs}
        names = {name.lower(): name for name, _ in literal.attrs}
        table = literal.template = (exprs, names)
    ad = ClassAd._from_tables(*table, shared=True, parent=parent)
    if views is not None:
        views[literal] = ad
    return ad


# shared expressions of plain Python values, one table per type (1, 1.0 and True are
# equal keys); a float is its own key but for zeros and NaNs (-0.0 == 0.0), keyed by hex
_LITERALS: dict[type, dict[Any, Expr]] = {int: {}, bool: {}, str: {}, float: {}}
_LITERALS_HELD = 200_000  # per type, before a table is emptied


def _literal_expr(kind: type, value: Any) -> Expr:
    """The expression of an int, bool, str or float (shared: expressions are immutable)."""
    table = _LITERALS[kind]
    key = float.hex(value) if kind is float and (value == 0.0 or value != value) else value
    expr = table.get(key)
    if expr is None:
        if len(table) >= _LITERALS_HELD:
            table.clear()
        expr = table[key] = Expr._from_node(Literal(from_text(value) if kind is str else value))
    return expr


def node_of(value: Any) -> Node:
    """The syntax node for a Python value (expressions pass through)."""
    if isinstance(value, Expr):
        return value.node
    if isinstance(value, Node):
        return value
    if value is None:
        return Literal(UNDEFINED)
    if isinstance(value, str):
        return Literal(from_text(value))
    if isinstance(value, _SCALARS):
        return Literal(value)
    if isinstance(value, _dt.datetime):
        return Literal(AbsTime(int(value.timestamp()), _offset_of(value)))
    if isinstance(value, ClassAd):
        return AdLit(tuple((value._names[k], e.node) for k, e in value._exprs.items()))
    if isinstance(value, Mapping):
        return AdLit(tuple((str(k), node_of(v)) for k, v in value.items()))
    if isinstance(value, list | tuple | ClassAdList):
        return ListLit(tuple(node_of(v) for v in value))
    raise TypeError(f"cannot store a {type(value).__name__} in a ClassAd")


def _offset_of(moment: _dt.datetime) -> int:
    delta = moment.utcoffset()
    return int(delta.total_seconds()) if delta is not None else 0


def to_python(value: Any, depth: int = 0) -> Any:
    """A ClassAd value as plain Python: lists materialised, strings as text.

    Lists are evaluated lazily, so a list that holds itself (``b = {B}``) never ends: past
    ``MAX_DEPTH`` levels of nesting the element is ERROR, as deep evaluation is. The walk
    keeps its own stack, leaving Python's to the evaluation of each element."""
    t = type(value)
    if t is str:
        return to_text(value)
    if t is not ClassAdList:
        return value
    if depth >= MAX_DEPTH:
        return ERROR
    root: list[Any] = []
    stack = [(iter(value), root, depth + 1)]
    while stack:
        items, out, level = stack[-1]
        for item in items:
            kind = type(item)
            if kind is str:
                out.append(to_text(item))
            elif kind is not ClassAdList:
                out.append(item)
            elif level >= MAX_DEPTH:
                out.append(ERROR)
            else:
                child: list[Any] = []
                out.append(child)
                stack.append((iter(item), child, level + 1))
                break
        else:
            stack.pop()
    return root


def _as_expr(expr: Expr | str) -> Expr:
    return expr if isinstance(expr, Expr) else Expr(expr)


def _now(now: float | None) -> float:
    """The evaluation time: given by the caller, or the clock at this public edge."""
    return time.time() if now is None else now


def new_state(run: Any, my: ClassAd | None, target: ClassAd | None, now: float) -> EvalState:
    """The state for evaluating in ``my`` (and a match with ``target``)."""
    if my is None:
        return EvalState(run, now)
    if target is None:
        return EvalState(run, now, ad=my, root=my)
    root, contexts = _match.match_scopes()
    return EvalState(run, now, ad=my, root=root, my=my, target=target, contexts=contexts)


# match.py builds on this module, so it is bound last: either may be imported first, and
# the hot paths (eval, new_state) skip an import statement per call.
from . import match as _match  # noqa: E402
