"""A small, safe expression language for rule packs: parsed, checked and run by us, never `eval`.

A formula is arithmetic over a few named numbers (for MSV: `roll` and `cs`) with integer
literals, `+ - * / %`, comparisons, `and`/`or`/`not` and `min`/`max`/`ceil`/`floor`/`abs`.
Values are exact rationals: `/` divides exactly and `ceil`/`floor` round the result. A
comparison or a logical operator gives 1 or 0, so it counts inside arithmetic.

>>> damage = parse_formula("min(4, ceil(roll / 15))", "damage")
>>> damage.values(roll=[1, 15, 16, 47, 100], cs=[65] * 5)
[1, 1, 2, 4, 4]
>>> parse_formula("2 + (roll > cs - 10)", "damage").value(roll=60, cs=65)
Fraction(3, 1)
>>> str(parse_formula("ROLL<=cs", "success"))
'roll <= cs'
>>> parse_formula("roll <= cs +", "success")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
referee.systems.formula.FormulaError: formula 'success': unexpected end at column 13 in ...

Budgets (DESIGN: every loop a user can lengthen has a bound): a formula has at most
`MAX_LENGTH` characters, `MAX_NODES` parts (numbers, names and operations) and `MAX_DEPTH`
levels of nesting, and every value, numerator and denominator stays within `MAX_VALUE`;
evaluating one formula over n
points is O(nodes * n) operations on Python integers. It lives with the rule systems, which
read it (`referee.systems.msv.rules`, `referee.systems.srp.rules`), so it imports nothing but
`referee.errors`.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from referee.errors import RulePackError


class FormulaError(RulePackError):
    """A formula that does not parse, does not check, or fails where it is evaluated."""

    code = "bad_formula"


MAX_LENGTH = 500
MAX_NODES = 200
MAX_DEPTH = 40
MAX_VALUE = 10**9  # < 2**30: products of two values fit in int64

FUNCTIONS: dict[str, tuple[int, int]] = {  # name -> (least, most) arguments
    "min": (2, 8),
    "max": (2, 8),
    "ceil": (1, 1),
    "floor": (1, 1),
    "abs": (1, 1),
}
COMPARISONS = ("<=", ">=", "==", "!=", "<", ">")
_TOKEN = re.compile(r"\s*(?:([0-9]+)|([A-Za-z_][A-Za-z_0-9]*)|(<=|>=|==|!=|[-+*/%(),<>=!]))")


@dataclass(frozen=True, slots=True)
class Num:
    """An integer literal."""

    value: int


@dataclass(frozen=True, slots=True)
class Name:
    """A named number (`roll`, `cs`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Unary:
    """`-x` or `not x`."""

    op: str
    arg: Node


@dataclass(frozen=True, slots=True)
class Binary:
    """`a OP b` for arithmetic, comparison, `and`, `or`."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Call:
    """`min(a, b, ...)`, `max(...)`, `ceil(x)`, `floor(x)`, `abs(x)`."""

    name: str
    args: tuple[Node, ...]


Node = Num | Name | Unary | Binary | Call

_PRECEDENCE = {"or": 1, "and": 2, "not": 3, **dict.fromkeys(COMPARISONS, 4)}
_PRECEDENCE |= {"+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "neg": 7}


def render(node: Node, parent: int = 0) -> str:
    """The canonical text of a tree (lower case, one space around binary operators).

    >>> render(parse_formula("(1+2)*3", "x").tree)
    '(1 + 2) * 3'
    """
    if isinstance(node, Num):
        return str(node.value)
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Call):
        return f"{node.name}({', '.join(render(a) for a in node.args)})"
    if isinstance(node, Unary):
        level = _PRECEDENCE["neg" if node.op == "-" else "not"]
        text = f"-{render(node.arg, level)}" if node.op == "-" else f"not {render(node.arg, level)}"
    else:
        level = _PRECEDENCE[node.op]
        right_level = level + 1  # left-associative: a - (b - c) keeps its brackets
        left_level = right_level if node.op in COMPARISONS else level  # no chains: (a < b) < c
        text = f"{render(node.left, left_level)} {node.op} {render(node.right, right_level)}"
    return f"({text})" if level < parent else text


class _Parser:
    """Recursive descent over the tokens; every error names the column."""

    def __init__(self, text: str, column: str, names: Sequence[str]) -> None:
        self.text, self.column, self.names = text, column, tuple(names)
        self.tokens = self._tokenize()
        self.pos = 0
        self.nodes = 0

    def fail(self, message: str, hint: str = "", at: int | None = None) -> FormulaError:
        where = self.tokens[self.pos][1] if at is None else at
        tail = f" ({hint})" if hint else ""
        return FormulaError(
            f"formula {self.column!r}: {message} at column {where + 1} in {self.text!r}{tail}"
        )

    def _tokenize(self) -> list[tuple[str, int]]:
        tokens: list[tuple[str, int]] = []
        pos, text = 0, self.text
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                start = pos + len(text[pos:]) - len(text[pos:].lstrip())
                raise FormulaError(
                    f"formula {self.column!r}: unexpected {text[start]!r} at column {start + 1}"
                    f" in {text!r} (expected a number, a name, an operator or a bracket)"
                )
            token = match.group(match.lastindex or 0)
            tokens.append((token.lower(), match.start(match.lastindex or 0)))
            pos = match.end()
        tokens.append(("", len(text)))
        return tokens

    @property
    def peek(self) -> str:
        return self.tokens[self.pos][0]

    def take(self) -> str:
        token = self.tokens[self.pos][0]
        self.pos += 1
        return token

    def expect(self, token: str, hint: str) -> None:
        if self.peek != token:
            raise self.fail(self._got(), f"expected {hint}")
        self.take()

    def _got(self) -> str:
        return "unexpected end" if self.peek == "" else f"unexpected {self.peek!r}"

    def node(self, node: Node, depth: int) -> Node:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise FormulaError(
                f"formula {self.column!r} has more than {MAX_NODES} parts (numbers, names and "
                "operations: 'a + b' is 3)"
            )
        return node

    def deeper(self, depth: int) -> int:
        """Brackets, calls and prefix operators nest; each costs one level of the budget."""
        if depth + 1 > MAX_DEPTH:
            raise FormulaError(f"formula {self.column!r} nests deeper than {MAX_DEPTH} levels")
        return depth + 1

    def parse(self) -> Node:
        tree = self.or_(0)
        if self.peek != "":
            hint = "'==' to compare" if self.peek == "=" else "an operator or the end"
            raise self.fail(self._got(), f"expected {hint}")
        return tree

    def or_(self, depth: int) -> Node:
        left = self.and_(depth)
        while self.peek == "or":
            self.take()
            left = self.node(Binary("or", left, self.and_(depth)), depth)
        return left

    def and_(self, depth: int) -> Node:
        left = self.not_(depth)
        while self.peek == "and":
            self.take()
            left = self.node(Binary("and", left, self.not_(depth)), depth)
        return left

    def not_(self, depth: int) -> Node:
        if self.peek == "not":
            self.take()
            return self.node(Unary("not", self.not_(self.deeper(depth))), depth)
        return self.comparison(depth)

    def comparison(self, depth: int) -> Node:
        left = self.sum(depth)
        if self.peek in COMPARISONS:
            op = self.take()
            left = self.node(Binary(op, left, self.sum(depth)), depth)
            if self.peek in COMPARISONS:
                raise self.fail("a second comparison (join comparisons with 'and')")
        return left

    def sum(self, depth: int) -> Node:
        left = self.term(depth)
        while self.peek in ("+", "-"):
            op = self.take()
            left = self.node(Binary(op, left, self.term(depth)), depth)
        return left

    def term(self, depth: int) -> Node:
        left = self.unary(depth)
        while self.peek in ("*", "/", "%"):
            op = self.take()
            left = self.node(Binary(op, left, self.unary(depth)), depth)
        return left

    def unary(self, depth: int) -> Node:
        if self.peek in ("-", "+"):
            op = self.take()
            arg = self.unary(self.deeper(depth))
            return arg if op == "+" else self.node(Unary("-", arg), depth)
        return self.atom(depth)

    def atom(self, depth: int) -> Node:
        token, at = self.tokens[self.pos]
        if token.isdigit():
            self.take()
            if int(token) > MAX_VALUE:
                raise self.fail(f"the number {token} is larger than {MAX_VALUE}", at=at)
            return self.node(Num(int(token)), depth)
        if token == "(":
            self.take()
            inner = self.or_(self.deeper(depth))
            self.expect(")", "')'")
            return inner
        if token in FUNCTIONS:
            return self.call(depth)
        if token and (token[0].isalpha() or token[0] == "_") and token not in _KEYWORDS:
            if token not in self.names:
                known = ", ".join(self.names + tuple(FUNCTIONS))
                raise self.fail(f"unknown name {token!r}", f"known: {known}", at)
            self.take()
            return self.node(Name(token), depth)
        raise self.fail(self._got(), "expected a number, a name or '('")

    def call(self, depth: int) -> Node:
        name, at = self.tokens[self.pos]
        self.take()
        self.expect("(", f"'(' after {name}")
        inner = self.deeper(depth)
        args = [self.or_(inner)]
        while self.peek == ",":
            self.take()
            args.append(self.or_(inner))
        self.expect(")", "',' or ')'")
        least, most = FUNCTIONS[name]
        if not least <= len(args) <= most:
            count = str(least) if least == most else f"{least}..{most}"
            raise self.fail(f"{name} takes {count} arguments, got {len(args)}", at=at)
        return self.node(Call(name, tuple(args)), depth)


_KEYWORDS = frozenset({"and", "or", "not"})

#: An exact value at each point: numerators, and denominators (None where all are 1).
Value = tuple[list[int], list[int] | None]


@dataclass(frozen=True, slots=True)
class Formula:
    """A parsed, checked formula; `str()` is its canonical text, `column` names it in errors."""

    column: str
    tree: Node
    names: tuple[str, ...]

    def __str__(self) -> str:
        return render(self.tree)

    def evaluate(self, points: Mapping[str, Sequence[int]]) -> Value:
        """Exact values at every point (sequences of integers of equal length, one per name).

        A problem (a division by zero, a value past `MAX_VALUE`) is reported at the first
        point where the first operation to meet it fails, whatever else fails later.

        >>> parse_formula("roll / 4", "x").evaluate({"roll": [2, 8]})
        ([1, 2], [2, 1])
        """
        return _Evaluator(self.column, points).run(self.tree)

    @property
    def reads(self) -> frozenset[str]:
        """The names the formula reads.

        >>> sorted(parse_formula("min(4, ceil(roll / 15))", "damage").reads)
        ['roll']
        """
        return frozenset(_names_in(self.tree))

    def values(self, **points: Sequence[int]) -> list[Fraction | int]:
        """Exact values as Python numbers (ints where whole).

        >>> parse_formula("roll / 2", "x").values(roll=[3, 4])
        [Fraction(3, 2), 2]
        """
        num, den = self.evaluate(points)
        if den is None:
            return list(num)
        return [n if d == 1 else Fraction(n, d) for n, d in zip(num, den, strict=True)]

    def value(self, **point: int) -> Fraction:
        """The exact value at one point.

        >>> parse_formula("ceil(roll / 15)", "damage").value(roll=16)
        Fraction(2, 1)
        """
        return Fraction(self.values(**{k: [v] for k, v in point.items()})[0])


def parse_formula(text: str, column: str, names: Sequence[str] = ("roll", "cs")) -> Formula:
    """Parse and check `text`; any problem is one FormulaError naming `column`.

    >>> parse_formula("max(roll, cs, 3)", "x").names
    ('roll', 'cs')
    >>> parse_formula("rol + 1", "damage")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.systems.formula.FormulaError: formula 'damage': unknown name 'rol' at column 1 ...
    """
    if not isinstance(text, str):
        raise FormulaError(f"formula {column!r} must be a string, got {text!r}")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula {column!r} is longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise FormulaError(f"formula {column!r} is empty")
    return Formula(column, _Parser(text, column, names).parse(), tuple(names))


def _names_in(node: Node) -> Iterator[str]:
    if isinstance(node, Name):
        yield node.name
    elif isinstance(node, Unary):
        yield from _names_in(node.arg)
    elif isinstance(node, Binary):
        yield from _names_in(node.left)
        yield from _names_in(node.right)
    elif isinstance(node, Call):
        for arg in node.args:
            yield from _names_in(arg)


class _Evaluator:
    """Walks a tree once, each node one pass over every point (column by column, so a problem
    is found at the same node and point whatever the number of points)."""

    def __init__(self, column: str, points: Mapping[str, Sequence[int]]) -> None:
        self.column = column
        self.points = {k: list(map(int, v)) for k, v in points.items()}
        self.size = len(next(iter(self.points.values()))) if self.points else 1

    def fail(self, message: str, where: list[bool]) -> FormulaError:
        index = where.index(True)
        at = ", ".join(f"{k} = {v[index]}" for k, v in self.points.items())
        return FormulaError(f"formula {self.column!r}: {message} (at {at})")

    def check(self, value: Value) -> Value:
        num, den = value
        if den is not None:
            gcds = list(map(math.gcd, num, den))
            if gcds.count(1) != len(gcds):
                num = [n // g for n, g in zip(num, gcds, strict=True)]
                den = [d // g for d, g in zip(den, gcds, strict=True)]
            if den.count(1) == len(den):
                den = None
            elif max(den) > MAX_VALUE:
                big = [d > MAX_VALUE for d in den]
                raise self.fail(f"a fraction's denominator grew past {MAX_VALUE}", big)
        if num and (max(num) > MAX_VALUE or min(num) < -MAX_VALUE):
            big = [abs(n) > MAX_VALUE for n in num]
            raise self.fail(f"a value grew past {MAX_VALUE} in size", big)
        return num, den

    def run(self, node: Node) -> Value:
        if isinstance(node, Num):
            return [node.value] * self.size, None
        if isinstance(node, Name):
            if node.name not in self.points:
                raise FormulaError(f"formula {self.column!r} needs a value for {node.name!r}")
            return self.check((list(self.points[node.name]), None))
        if isinstance(node, Unary):
            num, den = self.run(node.arg)
            if node.op == "-":
                return [-n for n in num], den
            return [int(n == 0) for n in num], None
        if isinstance(node, Call):
            return self.call(node)
        return self.binary(node.op, self.run(node.left), self.run(node.right))

    def call(self, node: Call) -> Value:
        args = [self.run(a) for a in node.args]
        if node.name in ("min", "max"):
            best = args[0]
            for other in args[1:]:
                smaller = _less(other, best) if node.name == "min" else _less(best, other)
                best = _where(smaller, other, best)
            return best
        num, den = args[0]
        if node.name == "abs":
            return [abs(n) for n in num], den
        if den is None:
            return num, None
        if node.name == "floor":
            return list(map(operator.floordiv, num, den)), None
        return [-(-n // d) for n, d in zip(num, den, strict=True)], None

    def binary(self, op: str, left: Value, right: Value) -> Value:
        if op in ("and", "or"):
            both = zip(left[0], right[0], strict=True)
            if op == "and":
                return [int(a != 0 and b != 0) for a, b in both], None
            return [int(a != 0 or b != 0) for a, b in both], None
        if op in COMPARISONS:
            return _compare(op, left, right), None
        (n1, d1), (n2, d2) = left, right
        if op == "*":
            return self.check(([a * b for a, b in zip(n1, n2, strict=True)], _mul(d1, d2)))
        if op in ("+", "-"):
            a = n1 if d2 is None else _times(n1, d2)
            b = n2 if d1 is None else _times(n2, d1)
            pairs = zip(a, b, strict=True)
            summed = [x + y for x, y in pairs] if op == "+" else [x - y for x, y in pairs]
            return self.check((summed, _mul(d1, d2)))
        if 0 in n2:
            what = "division" if op == "/" else "remainder"
            raise self.fail(f"{what} by zero", [n == 0 for n in n2])
        quotient = self.check(_divide(left, right))
        if op == "/":
            return quotient
        q, qd = quotient
        whole = q if qd is None else [n // d for n, d in zip(q, qd, strict=True)]
        product = self.check((_times(n2, whole), d2))
        return self.binary("-", left, product)


def _times(a: list[int], b: list[int]) -> list[int]:
    return list(map(operator.mul, a, b))


def _mul(a: list[int] | None, b: list[int] | None) -> list[int] | None:
    if a is None:
        return b
    return a if b is None else _times(a, b)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _divide(left: Value, right: Value) -> Value:
    """left / right as (numerators, positive denominators), not yet reduced."""
    (n1, d1), (n2, d2) = left, right
    top = n1 if d2 is None else _times(n1, d2)
    if n2 and min(n2) < 0:  # the sign goes to the numerator
        top = _times(top, list(map(_sign, n2)))
        n2 = list(map(abs, n2))
    return top, (n2 if d1 is None else _times(d1, n2))


def _cross(left: Value, right: Value) -> tuple[list[int], list[int]]:
    (n1, d1), (n2, d2) = left, right
    return (n1 if d2 is None else _times(n1, d2)), (n2 if d1 is None else _times(n2, d1))


def _less(left: Value, right: Value) -> list[bool]:
    a, b = _cross(left, right)
    return list(map(operator.lt, a, b))


def _compare(op: str, left: Value, right: Value) -> list[int]:
    a, b = _cross(left, right)
    return list(map(int, map(_COMPARE[op], a, b)))


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def _where(pick: list[bool], yes: Value, no: Value) -> Value:
    choices = zip(pick, yes[0], no[0], strict=True)
    num = [y if p else n for p, y, n in choices]
    if yes[1] is None and no[1] is None:
        return num, None
    ones = [1] * len(pick)
    dy = ones if yes[1] is None else yes[1]
    dn = ones if no[1] is None else no[1]
    return num, [y if p else n for p, y, n in zip(pick, dy, dn, strict=True)]
