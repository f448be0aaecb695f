"""Dice notation -> frozen expression tree: a small hand-written recursive-descent parser.

Grammar (docs/dice.md has it in EBNF): sums of products of signed atoms; an atom
is a number, a dice group or a parenthesized expression. Spaces are allowed
between tokens, not inside a dice group. Letters may be upper or lower case.

>>> parse("2d20 + 1d6")
parse('2d20+1d6')
>>> try:
...     parse("3d6x2")
... except NotationError as err:
...     print(err)
unexpected 'x' at column 4 in '3d6x2' (expected an operator or end of input)
"""

from __future__ import annotations

import functools
import re
from typing import NoReturn

from referee.dice.expr import (
    BinOp,
    Compare,
    Const,
    Dice,
    Expr,
    Keep,
    KeepMode,
    Neg,
    Op,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.errors import LimitError, NotationError

_SPACE = " \t"
_KEEP = {
    "k": KeepMode.HIGHEST,
    "kh": KeepMode.HIGHEST,
    "kl": KeepMode.LOWEST,
    "dh": KeepMode.DROP_HIGHEST,
    "dl": KeepMode.DROP_LOWEST,
}
# Lower-cases ASCII letters only, so that every column still points at the same character.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_COMPARE = {c.value: c for c in Compare}
# One number, or one whole dice group with its modifiers in their fixed order.
_ATOM_RE = re.compile(
    r"([0-9]+)?(?:d(?:([0-9]+)|(%))(!)?(?:(k[hl]?|d[hl])([0-9]+))?(?:([<>]=?)([0-9]+))?)?"
)
# After a fast match, these mean a malformed group: the careful path says exactly what is wrong.
_SUSPECT = "d%!k<>"
_AFTER_EXPR = "an operator or end of input"
_ATOM = "a number, a die or '('"


def parse(text: str, limits: Limits = DEFAULT_LIMITS) -> Expr:
    """Read dice notation into a frozen tree; `NotationError` or `LimitError` if it cannot be.

    >>> parse("4d6kh3").maximum
    18
    """
    if not isinstance(text, str):
        raise NotationError(f"dice notation must be text, got {text!r}")
    if len(text) > limits.max_length:
        raise LimitError(
            f"expression {_clip(text)!r} is {len(text)} characters long "
            f"(at most {limits.max_length})"
        )
    low = _lower(text)
    lone = _ATOM_RE.match(low)
    if lone is not None and 0 < lone.end() == len(low):  # the commonest text: one atom
        node, dice = _atom(lone, text, limits)
        _check_budget(text, dice, limits)
        return node
    return _parse(text, limits, fast=True)


def _parse(text: str, limits: Limits, fast: bool) -> Expr:
    """`parse` itself; `fast=False` reads every atom the careful way (tests compare the two)."""
    parser = _Parser(text, limits, fast)
    node = parser.expr()
    if parser.peek():
        parser.fail(_AFTER_EXPR)
    _check_budget(text, parser.dice, limits)
    return node


def _check_budget(text: str, dice: int, limits: Limits) -> None:
    if dice > limits.max_dice:
        raise LimitError(
            f"{_clip(text)!r} could throw {dice} dice in one roll, explosions included "
            f"(at most {limits.max_dice})"
        )


def _atom(match: re.Match[str], text: str, limits: Limits) -> tuple[Expr, int]:
    """A number or a whole, well-formed dice group read by `_ATOM_RE`, and its most dice."""
    count, sides, percent, bang, keep, kept, compare, target = match.groups()
    if sides is None and percent is None:
        return Const(int(count)), 0
    number = int(count) if count else 1
    size = 100 if percent else int(sides)
    if not (1 <= number <= limits.max_dice and 2 <= size <= limits.max_sides):
        stop = match.end(4) if bang else max(match.end(2), match.end(3))
        check_group(text, match.start(), stop, number, size, bang is not None, limits)
    group = Dice(
        number,
        size,
        bang is not None,
        None if keep is None else Keep(_KEEP[keep], int(kept)),
        None if compare is None else Success(_COMPARE[compare], int(target)),
    )
    return group, number if bang is None else number * (limits.max_explode_depth + 1)


def check_group(
    text: str, start: int, stop: int, count: int, sides: int, explode: bool, limits: Limits
) -> None:
    """Raise unless a group's count and sides are within bounds (a d1 may not explode).

    `text[start:stop]` is the group up to its '!', quoted in the message.

    >>> check_group("1d0", 0, 3, 1, 0, False, DEFAULT_LIMITS)
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: a die needs at least 1 side, got '1d0' at column 1 in '1d0'
    """
    if 1 <= count <= limits.max_dice and 1 < sides <= limits.max_sides:
        return
    if sides == 1 and count >= 1 and not explode:
        return
    where = f"{text[start:stop]!r} at column {start + 1} in {text!r}"
    if sides == 1 and count >= 1:
        raise NotationError(f"a d1 cannot explode (it always shows its maximum): {where}")
    if count < 1:
        raise NotationError(f"a dice group needs at least 1 die, got {where}")
    if sides < 1:
        raise NotationError(f"a die needs at least 1 side, got {where}")
    if count > limits.max_dice:
        raise LimitError(f"too many dice: {where} (at most {limits.max_dice})")
    raise LimitError(f"too many sides: {where} (at most {limits.max_sides})")


def parse_cached(text: str, limits: Limits = DEFAULT_LIMITS) -> Expr:
    """`parse`, remembering the last 512 texts (trees are frozen, so sharing them is safe).

    >>> parse_cached("1d100") is parse_cached("1d100")
    True
    """
    if not isinstance(text, str):
        raise NotationError(f"dice notation must be text, got {text!r}")
    if limits is DEFAULT_LIMITS:
        return _parse_default(text)
    return _parse_limited(text, limits)


@functools.lru_cache(maxsize=512)
def _parse_default(text: str) -> Expr:
    return parse(text)


@functools.lru_cache(maxsize=128)
def _parse_limited(text: str, limits: Limits) -> Expr:
    return parse(text, limits)


def _lower(text: str) -> str:
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


class _Parser:
    """One pass over one text; `pos` is the index of the next unread character."""

    __slots__ = ("dice", "end", "fast", "limits", "low", "nesting", "pos", "text")

    def __init__(self, text: str, limits: Limits, fast: bool = True) -> None:
        self.fast = fast
        self.text = text
        self.low = _lower(text)
        self.end = len(text)
        self.pos = 0
        self.limits = limits
        self.nesting = 0
        self.dice = 0

    def fail(self, expected: str, pos: int | None = None) -> NoReturn:
        at = self.pos if pos is None else pos
        got = repr(self.text[at]) if at < self.end else "end of input"
        raise NotationError(
            f"unexpected {got} at column {at + 1} in {self.text!r} (expected {expected})"
        )

    def peek(self) -> str:
        """Skip spaces; the next character, or '' at the end."""
        pos, low, end = self.pos, self.low, self.end
        while pos < end and low[pos] in _SPACE:
            pos += 1
        self.pos = pos
        return low[pos] if pos < end else ""

    def expr(self) -> Expr:
        """Sums of products: `product (('+' | '-') product)*`, a product being
        `factor ('*' factor)*`; both loops in one, so each operator costs one look."""
        total: Expr | None = None
        adding = Op.ADD
        product = self.factor()
        while True:
            char = self.low[self.pos : self.pos + 1]
            if char == " " or char == "\t":
                char = self.peek()
            if char == "*":
                self.pos += 1
                product = BinOp(Op.MUL, product, self.factor())
                continue
            total = product if total is None else BinOp(adding, total, product)
            if char == "+":
                adding = Op.ADD
            elif char == "-":
                adding = Op.SUB
            else:
                return total
            self.pos += 1
            product = self.factor()

    def factor(self) -> Expr:
        """A signed atom: '-' factor | '(' expr ')' | number | dice group."""
        pos, low = self.pos, self.low
        char = low[pos : pos + 1]
        if char == " " or char == "\t":
            char = self.peek()
            pos = self.pos
        if char == "-" or char == "(":
            return self.signed_or_grouped(char)
        if self.fast:  # one regex reads a whole well-formed atom
            match = _ATOM_RE.match(low, pos)
            after = pos if match is None else match.end()
            if after > pos and (after == self.end or low[after] not in _SUSPECT):
                node, dice = _atom(match, self.text, self.limits)  # type: ignore[arg-type]
                self.pos = after
                self.dice += dice
                return node
        return self.atom()

    def signed_or_grouped(self, char: str) -> Expr:
        self.enter()
        self.pos += 1
        if char == "-":
            node: Expr = Neg(self.factor())
        else:
            node = self.expr()
            if self.peek() != ")":
                self.fail("an operator or ')'")
            self.pos += 1
        self.nesting -= 1
        return node

    def atom(self) -> Expr:
        """The careful path: a number or dice group read character by character."""
        char = self.peek()
        start = self.pos
        if "0" <= char <= "9":
            value = self.number("a number")
            if self.pos < self.end and self.low[self.pos] == "d":
                return self.group(start, value)
            return Const(value)
        if char == "d":
            return self.group(start, 1)
        self.fail(_ATOM)

    def enter(self) -> None:
        self.nesting += 1
        if self.nesting > self.limits.max_nesting:
            raise LimitError(
                f"{_clip(self.text)!r} nests more than {self.limits.max_nesting} parentheses "
                f"and signs deep (at column {self.pos + 1})"
            )

    def number(self, expected: str) -> int:
        start = pos = self.pos
        low, end = self.low, self.end
        while pos < end and "0" <= low[pos] <= "9":
            pos += 1
        if pos == start:
            self.fail(expected)
        self.pos = pos
        return int(self.text[start:pos])

    def group(self, start: int, count: int) -> Dice:
        """A dice group from its 'd' on: sides, then '!', keep/drop, success test, in that order."""
        self.pos += 1
        if self.pos < self.end and self.low[self.pos] == "%":
            self.pos += 1
            sides = 100
        else:
            sides = self.number("a number of sides or '%'")
        explode = self.pos < self.end and self.low[self.pos] == "!"
        self.pos += explode
        check_group(self.text, start, self.pos, count, sides, explode, self.limits)
        group = Dice(count, sides, explode, self.keep(), self.success())
        self.dice += group.most_dice(self.limits.max_explode_depth)
        return group

    def keep(self) -> Keep | None:
        pos, low = self.pos, self.low
        char = low[pos] if pos < self.end else ""
        if char not in ("k", "d"):
            return None
        two = low[pos : pos + 2]
        mode = _KEEP.get(two) if len(two) == 2 else None
        if mode is not None:
            self.pos = pos + 2
        elif char == "k":
            mode = KeepMode.HIGHEST
            self.pos = pos + 1
        else:
            self.fail("'h' or 'l' after 'd'", pos + 1)
        return Keep(mode, self.number("a number of dice"))

    def success(self) -> Success | None:
        pos, low = self.pos, self.low
        char = low[pos] if pos < self.end else ""
        if char not in ("<", ">"):
            return None
        if low[pos + 1 : pos + 2] == "=":
            compare = Compare.GE if char == ">" else Compare.LE
            self.pos = pos + 2
        else:
            compare = Compare.GT if char == ">" else Compare.LT
            self.pos = pos + 1
        return Success(compare, self.number("a target number"))
