"""ClassAd parser: tokens to a syntax tree (a Pratt parser; precedence in one table).

Precedence, loosest first: ``c ? a : b`` (right-associative), ``||``, ``&&``, ``|``, ``^``,
``&``, equality (``== != =?= =!= is isnt``), relational, shifts, additive, multiplicative,
unary, then the elvis ``a ?: b`` (whose right side is a primary: ``1 + x ?: 2`` is
``1 + (x ?: 2)``), selection ``.``, subscript ``[]`` and calls. Compatibility rules
HTCondor applies: function arguments may be separated by ``;``; ``-`` written directly
before a number is part of the literal (so ``-9223372036854775808`` fits); adjacent string
literals join; ``absTime("...")``/``relTime("...")`` with a literal string are converted
while parsing, and a bad literal is a syntax error.

Nesting is bounded: an expression whose syntax tree is more than ``MAX_NESTING`` levels
deep is a syntax error, so that the parser and every walk over a tree (evaluation,
compilation, unparsing) stay within Python's recursion limit. The parser counts its own
nesting as it goes (two or three Python frames per level) and, when the text has more
tokens than the limit, measures the finished tree once without recursion (a long chain
``a || b || ...`` nests without nesting the parser). HTCondor's parser refuses about 165
levels of parentheses; real ads nest fewer than 50 (docs/limits.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import ClassAdSyntaxError
from . import timefmt
from .nodes import (
    AdLit,
    AttrRef,
    Binary,
    Call,
    Cond,
    Elvis,
    ListLit,
    Literal,
    Node,
    Paren,
    Subscript,
    Unary,
    height,
)
from .tokens import Token, int_literal, scan

__all__ = ["MAX_NESTING", "parse_ad_literal", "parse_expr", "parse_old_value"]

MAX_NESTING = 200  # levels of the syntax tree (docs/limits.md)

_BINARY_POWER = {
    "||": 2,
    "&&": 3,
    "|": 4,
    "^": 5,
    "&": 6,
    "==": 7,
    "!=": 7,
    "=?=": 7,
    "=!=": 7,
    "is": 7,
    "isnt": 7,
    "<": 8,
    "<=": 8,
    ">": 8,
    ">=": 8,
    "<<": 9,
    ">>": 9,
    ">>>": 9,
    "+": 10,
    "-": 10,
    "*": 11,
    "/": 11,
    "%": 11,
}
_CANONICAL_OP = {"=?=": "is", "=!=": "isnt"}
_CONDITIONAL_POWER = 1
_UNARY_POWER = 12
_POSTFIX_POWER = 13
_UNARY_OPS = frozenset("-+!~")


def parse_expr(text: str, source: str | None = None) -> Node:
    """Parse exactly one expression; anything after it is a syntax error."""
    parser = _Parser(scan(text, source), text, source)
    node = parser.expression(0)
    parser.expect_end()
    return parser.bounded(node)


def parse_old_value(text: str, source: str | None = None, *, whole: bool = False) -> Node:
    """Parse the value of an old-syntax ``Name = value`` line.

    Old syntax keeps backslashes in strings, does not join adjacent strings, and reads the
    expression at the start of the text, ignoring anything after it (as HTCondor does);
    ``whole``: the expression must fill the text (HTCondor's ``$STRING`` reads it so).
    """
    parser = _Parser(scan(text, source, old_strings=True), text, source)
    node = parser.expression(0)
    if whole:
        parser.expect_end()
    return parser.bounded(node)


def parse_ad_literal(text: str, source: str | None = None) -> AdLit:
    """Parse a new-syntax ad ``[ name = expr; ... ]`` filling the whole text."""
    parser = _Parser(scan(text, source), text, source)
    token = parser.next()
    if token.text != "[" or token.kind != "op":
        raise parser.fail("expected '[' to start a ClassAd", token)
    node = parser.ad_literal()
    parser.expect_end()
    return parser.bounded(node)


class _Parser:
    def __init__(self, tokens: Iterator[Token], text: str, source: str | None) -> None:
        self.stream = tokens
        self.ahead = [next(tokens)]  # the next tokens, read from the stream as needed
        self.text = text
        self.source = source
        self.taken = 0  # tokens consumed
        self.depth = 0  # expression() calls in progress
        self.deepest = 0  # the most at once
        self.wraps = 0  # nodes that took the node before them as left operand

    # -- token stream ---------------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        buffered = self.ahead
        while len(buffered) <= ahead and buffered[-1].kind != "eof":
            buffered.append(next(self.stream))
        return buffered[min(ahead, len(buffered) - 1)]

    def next(self) -> Token:
        buffered = self.ahead
        token = buffered[0]
        if token.kind != "eof":
            self.taken += 1
            if len(buffered) > 1:
                del buffered[0]
            else:
                buffered[0] = next(self.stream)
        return token

    def fail(self, message: str, token: Token) -> ClassAdSyntaxError:
        return ClassAdSyntaxError(message, self.text, token.pos, self.source)

    def expect(self, op: str) -> Token:
        token = self.next()
        if token.kind != "op" or token.text != op:
            raise self.fail(f"expected {op!r} but found {_describe(token)}", token)
        return token

    def expect_end(self) -> None:
        token = self.peek()
        if token.kind != "eof":
            raise self.fail(f"unexpected {_describe(token)} after the expression", token)

    def at(self, op: str) -> bool:
        token = self.peek()
        return token.kind == "op" and token.text == op

    def bounded(self, node: Node) -> Node:
        """``node``, unless its tree is deeper than MAX_NESTING. A path down the tree enters
        at most ``deepest`` expression() calls and takes at most ``wraps`` left operands, and
        every node takes a token: only when both bounds exceed the limit is it measured."""
        bound = min(self.taken, self.deepest + self.wraps + 1)
        if bound > MAX_NESTING and height(node) > MAX_NESTING:
            raise ClassAdSyntaxError(_too_deep(), self.text, 0, self.source)
        return node

    # -- expressions ----------------------------------------------------------------
    def expression(self, min_power: int) -> Node:
        self.depth += 1
        if self.depth > self.deepest:
            self.deepest = self.depth
            if self.depth > MAX_NESTING:
                raise self.fail(_too_deep(), self.peek())
        node = self.operators(self.prefix(self.next()), min_power)
        self.depth -= 1
        return node

    def operators(self, left: Node, min_power: int) -> Node:
        """``left`` followed by the operators that bind tighter than ``min_power``."""
        while True:
            token = self.peek()
            if token.kind != "op":
                return left
            op = token.text
            if op in _BINARY_POWER:
                power = _BINARY_POWER[op]
                if power <= min_power:
                    return left
                self.next()
                right = self.expression(power)
                left = Binary(_CANONICAL_OP.get(op, op), left, right)
                self.wraps += 1
            elif op == "?" and self.peek(1).text == ":" and self.peek(1).kind == "op":
                self.next()
                self.next()
                left = Elvis(left, self.elvis_operand())
                self.wraps += 1
            elif op == "?":
                if min_power >= _CONDITIONAL_POWER:
                    return left
                self.next()
                left = self.conditional(left)
                self.wraps += 1
            elif op in (".", ".."):
                self.next()
                left = AttrRef(self.attribute_name(), scope=left)
                self.wraps += 1
            elif op == "[":
                self.next()
                index = self.expression(0)
                self.expect("]")
                left = Subscript(left, index)
                self.wraps += 1
            else:
                return left

    def elvis_operand(self) -> Node:
        """The right side of ``?:``, which binds like ``.`` and ``[]``: a primary with its
        selections and subscripts, no operator (``-x ?: 1`` is ``-(x ?: 1)``, ``0 ?: -x``
        does not parse), as in HTCondor's parser."""
        token = self.next()
        if token.kind == "op" and token.text in _UNARY_OPS:
            folded = self.negative_literal(token) if token.text == "-" else None
            if folded is None:
                raise self.fail(f"unexpected {_describe(token)} after '?:'", token)
            left = folded
        else:
            left = self.prefix(token)
        while self.peek().kind == "op" and self.peek().text in (".", "..", "["):
            if self.next().text == "[":
                index = self.expression(0)
                self.expect("]")
                left = Subscript(left, index)
            else:
                left = AttrRef(self.attribute_name(), scope=left)
            self.wraps += 1
        return left

    def conditional(self, cond: Node) -> Node:
        then = self.expression(0)
        self.expect(":")
        return Cond(cond, then, self.expression(_CONDITIONAL_POWER - 1))

    def prefix(self, token: Token) -> Node:
        kind = token.kind
        if kind in ("int", "real", "lit"):
            return Literal(token.value)
        if kind == "str":
            return Literal(token.value)
        if kind == "name":
            quoted = token.text.startswith("'")
            if not quoted and self.at("("):
                return self.call(token)
            return AttrRef(token.value)
        if kind != "op":
            raise self.fail("unexpected end of expression", token)
        op = token.text  # an operator in prefix position (inline: one frame per level)
        if op in _UNARY_OPS:
            if op == "-":
                folded = self.negative_literal(token)
                if folded is not None:
                    return folded
            return Unary(op, self.expression(_UNARY_POWER))
        if op == "(":
            inner = self.expression(0)
            self.expect(")")
            return Paren(inner)
        if op in (".", ".."):
            return AttrRef(self.attribute_name(), absolute=True)
        if op == "{":
            return self.list_literal()
        if op == "[":
            return self.ad_literal()
        raise self.fail(f"unexpected {_describe(token)}", token)

    def negative_literal(self, minus: Token) -> Node | None:
        """``-5`` written without a space is one literal, as HTCondor's lexer reads it."""
        number = self.peek()
        if number.kind not in ("int", "real") or number.pos != minus.end:
            return None
        self.next()
        if number.kind == "int":
            return Literal(int_literal("-" + number.text))
        return Literal(-number.value)

    def attribute_name(self) -> str:
        token = self.next()
        if token.kind != "name":
            raise self.fail(f"expected an attribute name but found {_describe(token)}", token)
        return token.value

    def call(self, name: Token) -> Node:
        self.expect("(")
        args: list[Node] = []
        if self.at(")"):
            self.next()
        else:
            while True:
                args.append(self.expression(0))
                token = self.next()
                if token.kind == "op" and token.text == ")":
                    break
                if token.kind != "op" or token.text not in (",", ";"):
                    raise self.fail(f"expected ',' or ')' but found {_describe(token)}", token)
        return self.time_literal(name, tuple(args)) or Call(name.value, tuple(args))

    def time_literal(self, name: Token, args: tuple[Node, ...]) -> Node | None:
        """absTime("...") and relTime("...") with a literal string are constants."""
        lname = name.value.lower()
        if lname not in ("abstime", "reltime") or len(args) != 1:
            return None
        arg = args[0]
        if type(arg) is not Literal or type(arg.value) is not str:
            return None
        if lname == "abstime":
            value = timefmt.parse_abstime(arg.value)
            if value is None:
                raise self.fail(f"invalid absolute time {arg.value!r}", name)
            return Literal(value)
        secs = timefmt.parse_reltime(arg.value)
        if secs is None:
            raise self.fail(f"invalid relative time {arg.value!r}", name)
        return Literal(secs, text=f'relTime("{timefmt.format_reltime_literal(secs)}")')

    def list_literal(self) -> Node:
        items: list[Node] = []
        if self.at("}"):
            self.next()
            return ListLit(())
        while True:
            items.append(self.expression(0))
            token = self.next()
            if token.kind == "op" and token.text == "}":
                return ListLit(tuple(items))
            if token.kind != "op" or token.text != ",":
                raise self.fail(f"expected ',' or '}}' but found {_describe(token)}", token)

    def ad_literal(self) -> AdLit:
        """The body of ``[ name = expr; ... ]`` after the '['; the last value of a name wins.
        Stray ``;`` are skipped, but an ad of nothing else (``[ ; ]``) does not parse, as
        in HTCondor's library (classad2 25.14.1)."""
        attrs: dict[str, tuple[str, Node]] = {}
        while True:
            token = self.next()
            stray = None
            while token.kind == "op" and token.text == ";":
                stray, token = stray or token, self.next()
            if token.kind == "op" and token.text == "]":
                if stray is not None and not attrs:
                    raise self.fail("expected an attribute name but found ';'", stray)
                return AdLit(tuple(attrs.values()))
            if token.kind != "name":
                raise self.fail(f"expected an attribute name but found {_describe(token)}", token)
            self.expect("=")
            value = self.expression(0)
            key = token.value.lower()
            spelling = attrs[key][0] if key in attrs else token.value
            attrs[key] = (spelling, value)
            token = self.next()
            if token.kind == "op" and token.text == "]":
                return AdLit(tuple(attrs.values()))
            if token.kind != "op" or token.text != ";":
                raise self.fail(f"expected ';' or ']' but found {_describe(token)}", token)


def _too_deep() -> str:
    return f"the expression nests more than {MAX_NESTING} levels deep"


def _describe(token: Token) -> str:
    if token.kind == "eof":
        return "the end of the text"
    return repr(token.text)
