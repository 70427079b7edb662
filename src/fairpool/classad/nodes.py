"""The ClassAd syntax tree.

Nodes are immutable after parsing, except for ``_compiled``: the compile module caches the
node's closure there so that every evaluation of a shared tree reuses it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AdLit",
    "AttrRef",
    "Binary",
    "Call",
    "Cond",
    "Elvis",
    "ListLit",
    "Literal",
    "MatchSide",
    "Node",
    "Paren",
    "Subscript",
    "Unary",
    "children",
    "height",
]


class Node:
    __slots__ = ("_compiled",)

    def __init__(self) -> None:
        self._compiled = None

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Literal(Node):
    """A constant. ``text`` overrides how it prints (parse-time ``relTime("1:00")``)."""

    __slots__ = ("text", "value")

    def __init__(self, value: Any, text: str | None = None) -> None:
        super().__init__()
        self.value = value
        self.text = text


class AttrRef(Node):
    """``name`` (scope None), ``.name`` (absolute) or ``scope.name``."""

    __slots__ = ("absolute", "lname", "name", "scope")

    def __init__(self, name: str, scope: Node | None = None, absolute: bool = False) -> None:
        super().__init__()
        self.name = name
        self.lname = name.lower()
        self.scope = scope
        self.absolute = absolute


class Unary(Node):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Node) -> None:
        super().__init__()
        self.op = op
        self.operand = operand


class Binary(Node):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Node, right: Node) -> None:
        super().__init__()
        self.op = op
        self.left = left
        self.right = right


class Cond(Node):
    """``cond ? then : other``."""

    __slots__ = ("cond", "other", "then")

    def __init__(self, cond: Node, then: Node, other: Node) -> None:
        super().__init__()
        self.cond = cond
        self.then = then
        self.other = other


class Elvis(Node):
    """``left ?: right``: right replaces left only when left is undefined."""

    __slots__ = ("left", "right")

    def __init__(self, left: Node, right: Node) -> None:
        super().__init__()
        self.left = left
        self.right = right


class Call(Node):
    __slots__ = ("args", "lname", "name")

    def __init__(self, name: str, args: tuple[Node, ...]) -> None:
        super().__init__()
        self.name = name
        self.lname = name.lower()
        self.args = args


class Subscript(Node):
    __slots__ = ("base", "index")

    def __init__(self, base: Node, index: Node) -> None:
        super().__init__()
        self.base = base
        self.index = index


class ListLit(Node):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Node, ...]) -> None:
        super().__init__()
        self.items = items


class AdLit(Node):
    """A nested ad. ``attrs`` holds (name as written, expression); names are unique."""

    __slots__ = ("attrs", "template")

    def __init__(self, attrs: tuple[tuple[str, Node], ...]) -> None:
        super().__init__()
        self.attrs = attrs
        self.template: Any = None  # the ad's attribute table, built once by ad.py


class MatchSide(Node):
    """One of the two matched ads (``LEFT`` or ``RIGHT`` of the match ad); not syntax."""

    __slots__ = ("side",)

    def __init__(self, side: str) -> None:
        super().__init__()
        self.side = side


class Paren(Node):
    """Parentheses as written; kept so that unparsing reproduces them."""

    __slots__ = ("inner",)

    def __init__(self, inner: Node) -> None:
        super().__init__()
        self.inner = inner


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of a node, for tree walks."""
    t = type(node)
    if t is Binary:
        return (node.left, node.right)
    if t is Unary:
        return (node.operand,)
    if t is Paren:
        return (node.inner,)
    if t is Cond:
        return (node.cond, node.then, node.other)
    if t is Elvis:
        return (node.left, node.right)
    if t is Call:
        return node.args
    if t is Subscript:
        return (node.base, node.index)
    if t is ListLit:
        return node.items
    if t is AdLit:
        return tuple(expr for _, expr in node.attrs)
    if t is AttrRef and node.scope is not None:
        return (node.scope,)
    return ()


def height(node: Node) -> int:
    """Levels of the tree under ``node`` (a literal is 1), found without recursion so that
    it can measure a tree too deep to walk recursively."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        if level > deepest:
            deepest = level
        for child in children(current):
            stack.append((child, level + 1))
    return deepest
