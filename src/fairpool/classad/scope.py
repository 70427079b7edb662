"""How names are found: the evaluation state and the scoping rules both evaluators share.

Looking up ``name`` from an ad (HTCondor's library, old-ClassAd compatibility on):

1. the ad's own attribute;
2. else a special name, resolved at this first level: ``self`` and ``my`` (the ad),
   ``parent``, ``root``/``toplevel``, ``CurrentTime``;
3. else the enclosing ads, innermost first (a nested ad's parent is the ad it was written
   in; in a match the two ads sit inside a context ad ``[ad; my; other; target]``, and the
   contexts inside the match ad ``[LEFT; RIGHT; lCtx; rCtx; symmetricMatch; ...]``);
4. for an unscoped name evaluated in one of the two matched ads, the other ad (HTCondor's
   "alternate scope": ``Memory`` in a job's Requirements finds the slot's ``Memory``).

A reference back to an attribute that is being evaluated is UNDEFINED (circular
references), and nesting deeper than ``MAX_DEPTH`` is ERROR. So is an evaluation that takes
more than ``MAX_STEPS`` steps, each attribute evaluated costing the number of nodes of its
expression: ``A1 = A0 + A0; A2 = A1 + A1; ...`` doubles the work at each level, and
HTCondor's library also gives up (after about 4 million attribute evaluations).

Names are looked up from the current ad, but a nested ad or list written in an expression
belongs to the ad the expression was written in (its lexical scope). The two differ in
one place: a function that reads a list's elements (``sum``, ``member``, ``join``,
``evalInEachContext``...) and ``.name`` mapped over a list evaluate them in the ad they
are called from, while a subscript evaluates an element where it was written. With a
target ``[l = {n.p, a}; a = 2; n = [p = 7]]``, ``TARGET.l[0]`` is 7 but ``sum(TARGET.l)``
adds MY's ``n.p`` and ``a`` (classad2 25.14.1; tests/data/classad/regressions.jsonl).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .nodes import children
from .values import ERROR, MAX_STRING, UNDEFINED, AdBase, ClassAdList, Error

__all__ = [
    "MATCH_SCOPE_NAMES",
    "MAX_DEPTH",
    "MAX_STEPS",
    "NOT_CONST",
    "EvalState",
    "attribute_of",
    "building",
    "elements",
    "eval_attr",
    "lexical",
    "lookup",
    "select",
    "subscript",
    "value_of_absolute",
    "value_of_name",
]

MAX_DEPTH = 120
MAX_STEPS = 2_000_000  # nodes of the attributes evaluated in one evaluation (docs/limits.md)
MAX_BUILT = 1 << 26  # characters string functions build in one evaluation
SPECIAL_NAMES = frozenset({"self", "my", "parent", "root", "toplevel", "currenttime"})
# Every name the match ad and its two context ads define (match.py builds them and checks
# it uses no other): a name outside this set is never found in the scope chain of a match.
MATCH_SCOPE_NAMES = frozenset(
    {
        "ad",
        "my",
        "other",
        "target",
        "lctx",
        "rctx",
        "left",
        "right",
        "symmetricmatch",
        "leftmatchesright",
        "rightmatchesleft",
        "leftrankvalue",
        "rightrankvalue",
    }
)


class _NotConst:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_CONST"


NOT_CONST = _NotConst()


class EvalState:
    """Everything one evaluation needs: the current ad, the match (if any), the time.

    ``run(node, state)`` evaluates a syntax node; it is the interpreter or the compiled
    path, so attribute values are computed by whichever evaluator started the work.
    """

    __slots__ = (
        "ad",
        "built",
        "busy",
        "depth",
        "lctx",
        "lex",
        "lex_depth",
        "my",
        "now",
        "rctx",
        "root",
        "run",
        "steps",
        "target",
    )

    def __init__(
        self,
        run: Callable[[Any, EvalState], Any],
        now: float,
        ad: Any = None,
        root: Any = None,
        my: Any = None,
        target: Any = None,
        contexts: tuple[Any, Any] | None = None,
    ) -> None:
        self.run = run
        self.now = now
        self.ad = ad
        self.root = root
        self.my = my
        self.target = target
        self.lctx, self.rctx = contexts if contexts else (None, None)
        self.busy: set[tuple[int, int]] = set()
        self.depth = 0
        self.steps = 0  # nodes of the attribute expressions evaluated so far (MAX_STEPS)
        self.built = 0  # characters functions built so far (MAX_BUILT)
        # The lexical scope while a list element is evaluated from another ad (eval_from);
        # it holds only at that depth: an attribute evaluated inside is its own ad's.
        self.lex: Any = None
        self.lex_depth = -1

    def eval_in(self, ad: Any, node: Any) -> Any:
        """Evaluate a node as if it were written in ``ad`` (a list element, a context).
        Counts towards MAX_DEPTH: a list element can reach its own list again."""
        if self.depth >= MAX_DEPTH:
            return ERROR
        self.steps += 1
        if self.steps > MAX_STEPS:
            return Error("evaluation takes too many steps")
        saved = self.ad
        self.ad = ad
        self.depth += 1
        try:
            return self.run(node, self)
        finally:
            self.ad = saved
            self.depth -= 1

    def eval_from(self, lexical: Any, node: Any) -> Any:
        """Evaluate a list element written in ``lexical`` from the current ad, as a
        function reading the list does (module docstring)."""
        if self.depth >= MAX_DEPTH:
            return ERROR
        saved = self.lex, self.lex_depth
        self.depth += 1
        self.lex, self.lex_depth = lexical, self.depth
        try:
            return self.run(node, self)
        finally:
            self.lex, self.lex_depth = saved
            self.depth -= 1


def lexical(st: EvalState) -> Any:
    """The ad the expression being evaluated was written in: a nested ad literal's parent
    and a list literal's scope."""
    return st.lex if st.lex_depth == st.depth else st.ad


def elements(st: EvalState, items: ClassAdList) -> Any:
    """A list's element values as a function called from the current ad reads them."""
    scope, nodes = items.scope, items.nodes
    if nodes is None or scope is st.ad:
        return items
    return [st.eval_from(scope, node) for node in nodes]


def building(st: EvalState, length: int) -> Error | None:
    """Count a string of ``length`` characters a function is about to build: an Error if
    it is longer than MAX_STRING or the evaluation has built more than MAX_BUILT (so that
    ``strcat(A, A, ...)`` doubling through attributes ends soon and in bounded memory)."""
    st.built += length
    if length > MAX_STRING or st.built > MAX_BUILT:
        return Error("string too long")
    return None


def parent_of(st: EvalState, ad: Any) -> Any:
    """The next enclosing scope of an ad, or None."""
    parent = ad.parent
    if parent is not None:
        return parent
    if st.target is not None:
        if ad is st.my:
            return st.lctx
        if ad is st.target:
            return st.rctx
        if ad is st.lctx or ad is st.rctx:
            return st.root
    return None


def _special(st: EvalState, ad: Any, lname: str) -> Any:
    if lname == "self" or lname == "my":
        return ad
    if lname == "parent":
        parent = parent_of(st, ad)
        return UNDEFINED if parent is None else parent
    if lname == "currenttime":
        return int(st.now)
    return UNDEFINED if st.root is None else st.root


def lookup(st: EvalState, ad: Any, lname: str) -> tuple[Any, Any] | None:
    """Find a name from ``ad``: (ad it was found in, Expr), (None, value) for a special
    name, or None when it is nowhere (rules 1-3 of the module docstring)."""
    expr = ad._exprs.get(lname)
    if expr is not None:
        return ad, expr
    if lname in SPECIAL_NAMES:
        return None, _special(st, ad, lname)
    scope = parent_of(st, ad)
    while scope is not None:
        expr = scope._exprs.get(lname)
        if expr is not None:
            return scope, expr
        scope = parent_of(st, scope)
    return None


def eval_attr(st: EvalState, ad: Any, expr: Any) -> Any:
    """The value of an attribute's expression, evaluated inside the ad that holds it."""
    const = expr.const
    if const is not NOT_CONST:
        return const
    key = (id(ad), id(expr))
    busy = st.busy
    if key in busy:
        return UNDEFINED
    if st.depth >= MAX_DEPTH:
        return ERROR
    size = expr.size or _measure(expr)
    st.steps += size
    if st.steps > MAX_STEPS:
        return Error("evaluation takes too many steps")
    busy.add(key)
    saved = st.ad
    st.ad = ad
    st.depth += 1
    try:
        return st.run(expr.node, st)
    finally:
        busy.discard(key)
        st.ad = saved
        st.depth -= 1


def _measure(expr: Any) -> int:
    """The number of nodes of ``expr`` (kept on it: its cost towards MAX_STEPS)."""
    count, stack = 0, [expr.node]
    while stack:
        count += 1
        stack.extend(children(stack.pop()))
    expr.size = count
    return count


def _value(st: EvalState, found: tuple[Any, Any] | None) -> Any:
    if found is None:
        return UNDEFINED
    ad, expr = found
    return expr if ad is None else eval_attr(st, ad, expr)


def attribute_of(st: EvalState, ad: Any, lname: str) -> Any:
    """``ad.name``: the value of a name looked up from ``ad`` (rules 1-3)."""
    return _value(st, lookup(st, ad, lname))


def value_of_name(st: EvalState, lname: str) -> Any:
    """An unscoped name, with the fall-back to the other ad of a match (rule 4)."""
    ad = st.ad
    if ad is None:
        return UNDEFINED
    found = lookup(st, ad, lname)
    if found is None and st.target is not None:
        if ad is st.my:
            found = lookup(st, st.target, lname)
        elif ad is st.target:
            found = lookup(st, st.my, lname)
    return _value(st, found)


def value_of_absolute(st: EvalState, lname: str) -> Any:
    """``.name``: looked up from the root ad."""
    root = st.root
    if root is None:
        return UNDEFINED
    return _value(st, lookup(st, root, lname))


def select(st: EvalState, base: Any, lname: str) -> Any:
    """``base.name``: from an ad (and its enclosing ads), mapped over a list whose
    elements are read as a function reads them, from the current ad (classad2 25.14.1:
    with MY ``[a = [x = 1]]`` and TARGET ``[l = {MY.a}; a = [x = 2]]``, ``TARGET.l.x`` is
    ``{1}`` where ``TARGET.l[0].x`` is 2). Each level of lists counts towards MAX_DEPTH:
    an element can be its own list again (TARGET ``[b = {b}]``)."""
    if isinstance(base, AdBase):
        return UNDEFINED if base.detached else attribute_of(st, base, lname)
    if base is UNDEFINED:
        return UNDEFINED
    if type(base) is ClassAdList:
        if st.depth >= MAX_DEPTH:
            return ERROR
        st.depth += 1
        try:
            return ClassAdList([select(st, item, lname) for item in elements(st, base)])
        finally:
            st.depth -= 1
    return ERROR


def subscript(st: EvalState, base: Any, index: Any) -> Any:
    """``list[i]`` (integer i in range) and ``ad["name"]`` (the ad's own attribute)."""
    tb, ti = type(base), type(index)
    if tb is Error or ti is Error:
        return ERROR
    if base is UNDEFINED or index is UNDEFINED:
        return UNDEFINED
    if tb is ClassAdList:
        if ti is int:
            # HTCondor reads the index as a C int: 2**32 + 1 is element 1 (spec §5 lists).
            index = ((index + 0x80000000) & 0xFFFFFFFF) - 0x80000000
            if 0 <= index < len(base):
                return base[index]
        return ERROR
    if isinstance(base, AdBase) and ti is str:
        expr = base._exprs.get(index.lower())
        if expr is None:
            return UNDEFINED
        value = eval_attr(st, base, expr)
        return value.detached_copy() if isinstance(value, AdBase) else value
    return ERROR
