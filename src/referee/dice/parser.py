"""Dice notation -> frozen expression tree: one hand-written recursive-descent grammar.

The grammar (docs/dice.md has it in EBNF) is shared by every dialect; what a dialect
spells and means differently is data in dialects.py. Spaces are allowed between tokens,
not inside a dice group. Letters may be upper or lower case; numbers are ASCII digits.
`parse` asks the scanner (`referee.dice.scan`) first, which reads most texts at once or
declines; what it declines the grammar reads, and says what is wrong with it.

>>> parse("2d20 + 1d6")
parse('2d20+1d6')
>>> try:
...     parse("6/x")
... except NotationError as err:
...     print(str(err)[:62])
unexpected 'x' at column 3 in '6/x' (expected a number, a die,
>>> parse("4d6k3", dialect="d20") == parse("4d6k3")
False
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any, NoReturn

from referee.dice.bounds import bounds
from referee.dice.dialects import (
    APPLIED_ORDER,
    DEFAULT_DIALECT,
    DIALECTS,
    Arg,
    Dialect,
    Kind,
    Modifier,
    dialect,
    written_order_conflict,
)
from referee.dice.expr import (
    FUNCTIONS,
    BinOp,
    Call,
    Compare,
    Const,
    Degrees,
    Dice,
    Explode,
    Expr,
    Keep,
    KeepMode,
    Label,
    Neg,
    Op,
    Pool,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.scan import scan
from referee.errors import LimitError, NotationError

_SPACE = " \t"
# Lower-cases ASCII letters only, so that every column still points at the same character.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_OPS = {op.value: op for op in Op}
_COMPARE_OPS = ("==", "!=", ">=", "<=", ">", "<")
_COMPARE_FIRST = frozenset("=!<>")
_PRODUCT_OPS = frozenset("*/%")
#: The operators whose right side must not be 0.
_DIVIDING = frozenset({Op.DIV, Op.FLOORDIV, Op.MOD})
_AFTER_GROUP = frozenset(" \t+-*/%)],}")  # what may follow a plain group at once
_LABEL_OR_SPACE = frozenset("[ \t")
_END = "end of input"
_SORTED: dict[tuple[str, bool], tuple[Modifier, ...]] = {}
_REPEATABLE = frozenset({Kind.REROLL, Kind.REROLL_ONCE})  # `r1r3`, `ro1ro2`: either test
_ADD, _SUB, _MOD = Op.ADD, Op.SUB, Op.MOD
_KEEP, _EXPLODE, _EACH = Kind.KEEP, Kind.EXPLODE, Explode.EACH


def parse(
    text: str, limits: Limits = DEFAULT_LIMITS, *, dialect: str | Dialect = DEFAULT_DIALECT
) -> Expr:
    """Read dice notation into a frozen tree; `NotationError` or `LimitError` if it cannot be.

    >>> parse("4d6kh3").maximum
    18
    >>> parse("4d6k3", dialect="d20")
    parse('4d6k3', dialect='d20')
    """
    found, low = _prepared(text, limits, dialect)
    scanned = scan(text, low, limits, found)
    if scanned is not None:
        return scanned
    return _Parser(text, low, limits, found).whole()


def grammar(
    text: str, limits: Limits = DEFAULT_LIMITS, *, dialect: str | Dialect = DEFAULT_DIALECT
) -> Expr:
    """`parse` without the scanner: the grammar alone reads the text (the same tree or the
    same error as `parse`; the tests hold the scanner to it).

    >>> grammar("3d6 [fire] + 1d4", dialect="d20") == parse("3d6 [fire] + 1d4", dialect="d20")
    True
    """
    found, low = _prepared(text, limits, dialect)
    return _Parser(text, low, limits, found).whole()


def _prepared(text: str, limits: Limits, dialect: str | Dialect) -> tuple[Dialect, str]:
    """The dialect and the lower-cased text, once the text is one `parse` may read: text, not
    too long, in a dialect there is (an unknown one is an error even for the plainest text),
    without a `d%` where the dialect refuses it."""
    if not isinstance(text, str):
        raise NotationError(f"dice notation must be text, got {text!r}")
    if len(text) > limits.max_length:
        raise LimitError(
            f"expression {_clip(text)!r} is {len(text)} characters long "
            f"(at most {limits.max_length})"
        )
    found = DIALECTS.get(dialect) if type(dialect) is str else None
    if found is None:
        found = _dialect(dialect)
    low = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
    if not found.percent_die and "d%" in low:
        _refuse_percent_die(text, low, found)
    return found, low


def _inline_roll(text: str, low: str, dialect: Dialect) -> str:
    """roll20's inline roll: a whole text `[[ expression ]]` is the expression, read with the
    brackets blanked (so every column still points at the same character); one anywhere
    else, or in another dialect, is refused naming it."""
    start = len(low) - len(low.lstrip(_SPACE))
    stop = len(low.rstrip(_SPACE))
    inner = low[start + 2 : stop - 2]
    if (
        dialect.inline_rolls
        and low.startswith("[[", start)
        and low.endswith("]]", 0, stop)
        and stop - start >= 4
        and "[[" not in inner
        and "]]" not in inner
    ):
        return f"{low[:start]}  {inner}  {low[stop:]}"
    column = low.index("[[") + 1
    where = "a whole text" if dialect.inline_rolls else "roll20's"
    raise NotationError(
        f"'[[' at column {column} in {text!r}: an inline roll is read only as {where} "
        "'[[ expression ]]'"
        + ("" if dialect.inline_rolls else f", not in the {dialect.name} dialect")
    )


def _refuse_percent_die(text: str, low: str, dialect: Dialect) -> NoReturn:
    column = low.index("d%") + 1
    raise NotationError(
        f"'d%' at column {column} in {text!r}: {dialect.name}'s d% is a tens die (0, 10, ..., "
        "90), not the d100 the other dialects mean; write 10*(1d10-1) for the tens die or "
        "1d100"
    )


def _dialect(name: str | Dialect) -> Dialect:
    if isinstance(name, Dialect):
        return name
    found = DIALECTS.get(name) if type(name) is str else None
    return found or dialect(name)


def _check_budget(text: str, dice: int, limits: Limits) -> None:
    if dice > limits.max_dice:
        raise LimitError(
            f"{_clip(text)!r} could throw {dice} dice in one roll, rerolls and explosions "
            f"included (at most {limits.max_dice})"
        )


def check_group(
    text: str, start: int, stop: int, count: int, sides: int, explode: bool, limits: Limits
) -> None:
    """Raise unless a group's count and sides are within bounds.

    `text[start:stop]` is the group, quoted in the message.

    >>> check_group("1d0", 0, 3, 1, 0, False, DEFAULT_LIMITS)
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: a die needs at least 1 side, got '1d0' at column 1 in '1d0'
    """
    if 1 <= count <= limits.max_dice and 1 <= sides <= limits.max_sides:
        return
    where = f"{text[start:stop]!r} at column {start + 1} in {text!r}"
    if count < 1:
        raise NotationError(f"a dice group needs at least 1 die, got {where}")
    if sides < 1:
        raise NotationError(f"a die needs at least 1 side, got {where}")
    if count > limits.max_dice:
        raise LimitError(f"too many dice: {where} (at most {limits.max_dice})")
    raise LimitError(f"too many sides: {where} (at most {limits.max_sides})")


def parse_cached(
    text: str, limits: Limits = DEFAULT_LIMITS, *, dialect: str | Dialect = DEFAULT_DIALECT
) -> Expr:
    """`parse`, remembering the last 512 texts (trees are frozen, so sharing them is safe).

    >>> parse_cached("1d100") is parse_cached("1d100")
    True
    """
    if not isinstance(text, str):
        raise NotationError(f"dice notation must be text, got {text!r}")
    if limits is DEFAULT_LIMITS:
        if dialect is DEFAULT_DIALECT:
            return _parse_default(text)
        return _parse_in(text, dialect if isinstance(dialect, str) else dialect.name)
    return _parse_limited(text, limits, _dialect(dialect))


@functools.lru_cache(maxsize=512)
def _parse_in(text: str, name: str) -> Expr:
    return parse(text, dialect=name)


@functools.lru_cache(maxsize=512)
def _parse_default(text: str) -> Expr:
    return parse(text)


@functools.lru_cache(maxsize=256)
def _parse_limited(text: str, limits: Limits, dialect: Dialect) -> Expr:
    return parse(text, limits, dialect=dialect)


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def shown_character(char: str) -> str:
    """A character as an error message names it; a digit that is not ASCII says so.

    >>> shown_character("x"), shown_character("²")
    ("'x'", "'²' (U+00B2 SUPERSCRIPT TWO, not an ASCII digit 0-9)")
    """
    if char.isascii():
        return repr(char)
    name = unicodedata.name(char, "unnamed character")
    note = ", not an ASCII digit 0-9" if char.isdigit() or char.isnumeric() else ""
    return f"{char!r} (U+{ord(char):04X} {name}{note})"


_FIRSTS: dict[tuple[str, bool], str] = {}


def _firsts(dialect: Dialect, pool: bool) -> str:
    key = (dialect.name, pool)
    found = _FIRSTS.get(key)
    if found is None:
        found = _FIRSTS[key] = "".join({m.letters[0] for m in _modifiers(dialect, pool)})
    return found


def _modifiers(dialect: Dialect, pool: bool) -> tuple[Modifier, ...]:
    key = (dialect.name, pool)
    found = _SORTED.get(key)
    if found is None:
        mods = dialect.pool if pool else dialect.dice
        found = _SORTED[key] = tuple(sorted(mods, key=lambda m: -len(m.letters)))
    return found


_BY_FIRST: dict[tuple[str, bool], dict[str, tuple[Modifier, ...]]] = {}


def _by_first(dialect: Dialect, pool: bool) -> dict[str, tuple[Modifier, ...]]:
    """`_modifiers` by first letter (longest spelling first within each letter)."""
    key = (dialect.name, pool)
    found = _BY_FIRST.get(key)
    if found is None:
        found = {}
        for mod in _modifiers(dialect, pool):
            found[mod.letters[0]] = (*found.get(mod.letters[0], ()), mod)
        _BY_FIRST[key] = found
    return found


class _Group:
    """The modifiers of one group or pool as they are read (each kind at most once)."""

    __slots__ = ("fields", "last", "seen")

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.seen: set[Kind] = set()
        self.last: Modifier | None = None
        """The modifier read last (for a dialect that applies them in the order written)."""


class _Parser:
    """One pass over one text; `pos` is the index of the next unread character."""

    __slots__ = (
        "d",
        "dice",
        "end",
        "firsts",
        "hint",
        "limits",
        "low",
        "nesting",
        "pos",
        "text",
    )

    def __init__(
        self,
        text: str,
        low: str,
        limits: Limits,
        dialect: Dialect,
        hint: bool = True,
    ) -> None:
        self.text = text
        self.low = low
        self.end = len(text)
        self.pos = 0
        self.limits = limits
        self.d = dialect
        self.nesting = 0
        self.dice = 0
        self.hint = hint
        self.firsts = _firsts(dialect, False)

    # -- errors -----------------------------------------------------------------------

    def fail(self, expected: str, pos: int | None = None) -> NoReturn:
        at = self.pos if pos is None else pos
        got = shown_character(self.text[at]) if at < self.end else _END
        message = f"unexpected {got} at column {at + 1} in {self.text!r} (expected {expected})"
        raise NotationError(message + self.elsewhere())

    def elsewhere(self) -> str:
        """Which other dialects read this text, for the end of an error message."""
        if not self.hint:
            return ""
        readers = []
        for other in DIALECTS.values():
            if other is self.d:
                continue
            try:
                _Parser(self.text, self.low, self.limits, other, hint=False).whole()
            except (NotationError, LimitError):
                continue
            readers.append(other.name)
        if not readers:
            return ""
        return f"; this is {' and '.join(readers)} notation (dialect={readers[0]!r})"

    def check_divisor(self, divisor: Expr, start: int) -> None:
        """Refuse a divisor that can be 0 now, before any die is thrown: a division by zero
        that showed only once the dice were rolled would tell the roller something about its
        faces without recording them."""
        low, high = bounds(divisor, self.limits)
        if not low <= 0 <= high:
            return
        shown = self.text[start : self.pos].strip()
        can = "is" if low == high == 0 else "can be"
        raise NotationError(
            f"the divisor {shown!r} at column {start + 1} in {self.text!r} {can} 0 (a divisor "
            "that can be 0 is refused before any die is thrown; write one that cannot)"
        )

    def check_remainder(self, left: Expr, right: Expr, start: int) -> None:
        """Refuse `%` with a side that can be negative where the platform's `%` is Python's:
        referee's `%` is JavaScript's (roll20's), and the two differ there."""
        if bounds(left, self.limits)[0] >= 0 and bounds(right, self.limits)[0] >= 0:
            return
        raise NotationError(
            f"'%' before column {start + 1} in {self.text!r} has a side that can be negative: "
            f"{self.d.name} takes Python's remainder there (-7 % 3 is 2), referee JavaScript's "
            "as roll20 does (-1), so it is refused in this dialect"
        )

    def after_value(self) -> str:
        ops = " ".join(self.d.operators)
        if self.d.comparisons:
            ops += " " + " ".join(_COMPARE_OPS)
        return f"an operator ({ops}) or {_END}"

    # -- the grammar ------------------------------------------------------------------

    def whole(self) -> Expr:
        if "[[" in self.low:
            self.low = _inline_roll(self.text, self.low, self.d)
        if not self.d.percent_die and "d%" in self.low:
            _refuse_percent_die(self.text, self.low, self.d)
        self.skip_prefix()
        if self.d.aol and self.low.lstrip().startswith("//roll"):
            from referee.dice.chat import parse_chat

            chat = parse_chat(self.text)
            self.dice = chat.count
            node: Expr = chat
        else:
            node = self.comparison()
            if self.peek():
                self.fail(self.after_value())
        _check_budget(self.text, self.dice, self.limits)
        return node

    def skip_prefix(self) -> None:
        if "/" not in self.low:
            return
        start = len(self.low) - len(self.low.lstrip(_SPACE))
        for prefix in self.d.prefixes:
            if self.low.startswith(prefix, start) or self.low[start:] == prefix.strip():
                self.pos = start + len(prefix)
                return
        if self.low.startswith("/r", start) and not self.d.prefixes:
            self.fail("a number, a die or '('; '/roll' is written in roll20 only", start)

    def peek(self) -> str:
        """Skip spaces; the next character, or '' at the end."""
        pos, low, end = self.pos, self.low, self.end
        char = low[pos : pos + 1]
        if char != " " and char != "\t":
            return char
        while pos < end and low[pos] in _SPACE:
            pos += 1
        self.pos = pos
        return low[pos] if pos < end else ""

    def comparison(self) -> Expr:
        """A whole expression: comparisons (where the dialect has them) of sums of products.

        One precedence-climbing loop reads all three levels, each left to right, as the
        grammar's three rules would (same trees, same errors at the same columns)."""
        return self.binary(0)

    def binary(self, level: int) -> Expr:
        """Operands joined by operators of precedence `level` or higher: 0 comparisons,
        1 `+ -`, 2 `* / // %`."""
        node = self.unary()
        low = self.low
        while True:
            char = low[self.pos : self.pos + 1]  # `peek` inline where no space comes next
            if char == " " or char == "\t":
                char = self.peek()
            if char == "+" or char == "-":
                if level > 1:
                    return node
                op = _ADD if char == "+" else _SUB
                self.pos += 1
                node = BinOp(op, node, self.binary(2))
            elif char in _PRODUCT_OPS:
                operators = self.d.operators
                text = "//" if low.startswith("//", self.pos) else char
                if text == "//" and text not in operators:
                    text = "/"  # the second '/' is then unexpected, where a value should be
                if text not in operators:
                    self.fail(self.after_value())
                self.pos += len(text)
                start, op = self.pos, _OPS[text]
                right = self.unary()
                if op in _DIVIDING:
                    self.check_divisor(right, start)
                    if op is _MOD and self.d.python_remainder:
                        self.check_remainder(node, right, start)
                node = BinOp(op, node, right)
            elif char in _COMPARE_FIRST and self.d.comparisons and level == 0:
                for text in _COMPARE_OPS:
                    if low.startswith(text, self.pos):
                        self.pos += len(text)
                        node = BinOp(_OPS[text], node, self.binary(1))
                        break
                else:
                    return node
            else:
                return node

    def unary(self) -> Expr:
        char = self.low[self.pos : self.pos + 1]
        if char == " " or char == "\t":
            char = self.peek()
        if char == "-" or (char == "+" and self.d.unary_plus):
            self.enter()
            self.pos += 1
            inner = self.unary()
            self.nesting -= 1
            return Neg(inner) if char == "-" else inner
        node = self.atom(char)
        if not self.d.labels or self.low[self.pos : self.pos + 1] not in _LABEL_OR_SPACE:
            return node
        while self.peek() == "[":
            close = self.text.find("]", self.pos)
            if close < 0:
                self.fail("']' closing the label", self.end)
            node = Label(node, self.text[self.pos + 1 : close])
            self.pos = close + 1
        return node

    def enter(self) -> None:
        self.nesting += 1
        if self.nesting > self.limits.max_nesting:
            raise LimitError(
                f"{_clip(self.text)!r} nests more than {self.limits.max_nesting} parentheses "
                f"and signs deep (at column {self.pos + 1})"
            )

    def expected_atom(self) -> str:
        extra = ""
        if self.d.braces:
            extra += ", '{'"
        if self.d.functions:
            extra += " or a function (floor ceil round abs)"
        return f"a number, a die, '('{extra}"

    def atom(self, char: str) -> Expr:
        """One value; `char` is the next character, spaces already skipped (`peek`)."""
        start = self.pos
        if "0" <= char <= "9":
            count = self.number("a number")
            follow = self.low[self.pos : self.pos + 1]
            if follow == "d":
                return self.group(start, count)
            if follow == "f" and self.d.fudge_count:
                self.pos += 1
                return self.modifiers(start, count, 3, fudge=True)
            return Const(count)
        if char == "d":
            if self.d.degrees and self.low.startswith("dh", start):
                self.pos += 2
                self.dice += 1
                return Degrees(self.number("a target number after 'dh'"))
            return self.group(start, 1)
        if char == "(":
            return self.parenthesis()
        if char == "{" and self.d.braces:
            return self.braces()
        if self.d.functions and char.isalpha():
            for name in FUNCTIONS:
                if self.low.startswith(name + "(", start):
                    self.pos += len(name)
                    inner = self.parenthesis()
                    return Call(name, inner)
        self.fail(self.expected_atom())

    def parenthesis(self) -> Expr:
        self.enter()
        start = self.pos
        self.pos += 1
        if self.d.sets and self.peek() == ")":
            self.pos += 1
            self.nesting -= 1
            return self.pool_modifiers(Pool(()))
        node = self.comparison()
        items = [node]
        is_set = False
        while self.d.sets and self.peek() == ",":
            is_set = True
            self.pos += 1
            if self.peek() == ")":
                break
            items.append(self.comparison())
        if self.peek() != ")":
            self.fail(
                self.after_value().replace(f" or {_END}", "")
                + (", ',' or ')'" if self.d.sets else " or ')'")
            )
        self.pos += 1
        self.nesting -= 1
        if is_set:
            return self.pool_modifiers(Pool(tuple(items)))
        if self.d.sets and self.low[self.pos : self.pos + 1] in ("k", "p"):
            return self.kept_parenthesis(node, start)
        return node

    def kept_parenthesis(self, node: Expr, start: int) -> Expr:
        """`(a)kh1`: a one-item set; but d20 keeps among the dice of `(3d6)kh1`, as `3d6kh1`."""
        pool = self.pool_modifiers(Pool((node,)))
        if not isinstance(node, Dice) or pool.keep is None:
            return pool
        if node.keep is not None:
            raise NotationError(
                f"a second keep or drop on the group in {self.text[start : self.pos]!r} at "
                f"column {start + 1} in {self.text!r} ({self.d.name} keeps among the dice the "
                "group kept; referee takes one keep or drop per group)"
            )
        return node.replace(keep=pool.keep)

    def braces(self) -> Expr:
        self.enter()
        start = self.pos
        self.pos += 1
        items = [self.comparison()]
        while self.peek() == ",":
            self.pos += 1
            items.append(self.comparison())
        if self.peek() != "}":
            self.fail(self.after_value().replace(f" or {_END}", "") + ", ',' or '}'")
        self.pos += 1
        self.nesting -= 1
        pool = self.pool_modifiers(Pool(tuple(items)))
        if len(items) == 1 and pool.keep is not None:
            if not _plain_sum(items[0]):
                raise NotationError(
                    f"keeping or dropping dice inside {self.text[start : self.pos]!r} at column "
                    f"{start + 1} in {self.text!r} needs a sum of plain dice groups "
                    "(or several items: '{4d6, 3d8}kh1')"
                )
            pool = pool.replace(dice_level=True)
        return pool

    def pool_modifiers(self, pool: Pool) -> Pool:
        group = _Group()
        start = self.pos
        self.read_modifiers(group, start, pool=True)
        fields = group.fields
        if not fields:
            return pool
        return pool.replace(
            keep=fields.get("keep"), success=fields.get("success"), failure=fields.get("failure")
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
        """A dice group from its 'd' on: sides, then the dialect's modifiers."""
        self.pos += 1
        char = self.low[self.pos : self.pos + 1]
        if char == "%":
            self.pos += 1
            sides = 100
        elif char == "f" and self.d.fudge_dice:
            self.pos += 1
            return self.modifiers(start, count, 3, fudge=True)
        else:
            fudge = ", '%' or 'F'" if self.d.fudge_dice else " or '%'"
            sides = self.number(f"a number of sides{fudge}")
        return self.modifiers(start, count, sides)

    def modifiers(self, start: int, count: int, sides: int, fudge: bool = False) -> Dice:
        limits = self.limits
        if not (1 <= count <= limits.max_dice and 1 <= sides <= limits.max_sides):
            check_group(self.text, start, self.pos, count, sides, False, limits)
        if self.pos < self.end and self.low[self.pos] in self.firsts:
            group = _Group()
            self.read_modifiers(group, start, pool=False)
            fields = group.fields
            top = 1 if fudge else sides
            if fields.get("success") == "top":
                fields["success"] = Success.of(Compare.EQ, top)
            on = fields.get("explode_on")
            if on is not None and on.compare is Compare.EQ and on.target == top:
                del fields["explode_on"]  # the top face is what `!` alone means
            dice = Dice(count, sides, fudge=fudge, **fields)
            if dice.reroll or dice.explode:
                self.check_meaning(dice, start)
            if dice.reroll and dice.explode and not self.d.rerolls_with_explosions:
                raise NotationError(
                    f"{self.where(start)} rerolls and explodes: {self.d.name}'s dice reference "
                    "does not say whether a reroll applies to the dice an explosion adds, so "
                    f"referee refuses the two together in the {self.d.name} dialect (roll the "
                    "reroll or the explosion alone)"
                )
            if self.d.written_order:
                conflict = written_order_conflict(dice)
                if conflict is not None:
                    raise NotationError(
                        f"{self.where(start)}: {conflict}, so referee refuses the two together "
                        f"in the {self.d.name} dialect"
                    )
        else:
            if self.pos < self.end and self.low[self.pos] not in _AFTER_GROUP:
                self.refuse_stray(False)
            dice = Dice(count, sides, fudge=fudge)
            self.dice += count
            return dice
        self.dice += dice.most_dice(self.limits.max_explode_depth)
        return dice

    def check_meaning(self, dice: Dice, start: int) -> None:
        """Refuse what could never stop: a reroll or explosion on every face."""
        endless = dice.endless()
        if endless is not None:
            raise NotationError(f"{self.where(start)} {endless}, so it would never stop")

    def where(self, start: int) -> str:
        return f"{self.text[start : self.pos]!r} at column {start + 1} in {self.text!r}"

    def read_modifiers(self, group: _Group, start: int, pool: bool) -> None:
        by_first = _by_first(self.d, pool)
        low = self.low
        while self.pos < self.end:
            pos = self.pos
            for mod in by_first.get(low[pos], ()):
                if low.startswith(mod.letters, pos):
                    break
            else:
                self.refuse_stray(pool)
                return
            if mod.kind in group.seen and mod.kind not in _REPEATABLE:
                raise NotationError(
                    f"a second {mod.kind.value} modifier {mod.letters!r} at column {pos + 1} "
                    f"in {self.text!r} (each kind once per group)"
                )
            last = group.last
            if (
                self.d.written_order
                and last is not None
                and APPLIED_ORDER[mod.kind] < APPLIED_ORDER[last.kind]
            ):
                raise NotationError(
                    f"{mod.letters!r} at column {pos + 1} in {self.text!r} comes after "
                    f"{last.letters!r}: {self.d.name} applies modifiers in the order "
                    "written, referee only as rerolls, ra, mi, ma, e, then keep or drop "
                    "(write them in that order; the roll may then mean something else)"
                )
            group.seen.add(mod.kind)
            group.last = mod
            self.pos = pos + len(mod.letters)
            self.apply(group.fields, mod)

    def refuse_stray(self, pool: bool) -> None:
        """After a group: a letter or mark that no modifier of this dialect starts with."""
        if self.pos >= self.end:
            return
        char = self.low[self.pos]
        if self.d.comparisons and char in "!<>=":
            return  # a comparison of whole expressions follows
        for letters, why in self.d.unread:  # (a letter after them: another modifier)
            after = self.low[self.pos + len(letters) : self.pos + len(letters) + 1]
            if self.low.startswith(letters, self.pos) and not after.isalpha():
                raise NotationError(
                    f"{self.text[self.pos : self.pos + len(letters) + 1]!r} at column "
                    f"{self.pos + 1} in {self.text!r}: {why}"
                )
        if char.isalpha() or char in "!<>=" or not char.isascii():
            letters = self.d.modifier_letters(pool)
            if letters:
                what = "a pool modifier" if pool else "a modifier"
                self.fail(f"{what} ({letters}), {self.after_value()}")
            self.fail(self.after_value())

    def point(self, optional: bool) -> Success | None:
        """A compare point in this dialect: `>4`, `<2`, `=3`, `3` (roll20 `>` means >=)."""
        for prefix, compare in self.d.points:
            if self.low.startswith(prefix, self.pos):
                digit = self.low[self.pos + len(prefix) : self.pos + len(prefix) + 1]
                if not ("0" <= digit <= "9"):
                    if prefix == "" and optional:
                        return None
                    if prefix:
                        self.pos += len(prefix)
                    self.fail("a number" if prefix else self.point_help())
                self.pos += len(prefix)
                return Success.of(compare, self.number("a number"))
        if optional:
            return None
        self.fail(self.point_help())

    def point_help(self) -> str:
        marks = " ".join(p for p, _ in self.d.points if p)
        return f"a number, or {marks} and a number"

    def selector(self, mod: Modifier) -> tuple[KeepMode | None, int, Success | None]:
        """d20's selector: `hN` / `lN` (by rank), `>N` / `<N` / `N` (by value)."""
        char = self.low[self.pos : self.pos + 1]
        if char in ("h", "l"):
            if mod.kind is not _KEEP:
                self.fail(f"'>' '<' or a number after {mod.letters!r} (h and l select for k and p)")
            self.pos += 1
            count = self.number("a number of dice")
            keeping = mod.mode is KeepMode.MATCHING
            if char == "h":
                return (KeepMode.HIGHEST if keeping else KeepMode.DROP_HIGHEST), count, None
            return (KeepMode.LOWEST if keeping else KeepMode.DROP_LOWEST), count, None
        test = self.point(optional=False)
        assert test is not None
        return None, 0, test

    def apply(self, fields: dict[str, Any], mod: Modifier) -> None:
        kind, arg = mod.kind, mod.arg
        if kind is _KEEP:
            if arg is Arg.SELECTOR:
                mode, count, test = self.selector(mod)
                if mode is None:
                    assert isinstance(mod.mode, KeepMode)
                    fields["keep"] = Keep.of(mod.mode, 0, test)
                else:
                    fields["keep"] = Keep.of(mode, count)
                return
            assert isinstance(mod.mode, KeepMode)
            if arg is Arg.NUMBER_OR_ONE and not ("0" <= self.low[self.pos : self.pos + 1] <= "9"):
                fields["keep"] = Keep.of(mod.mode, 1)
            else:
                fields["keep"] = Keep.of(mod.mode, self.number("a number of dice"))
        elif kind is _EXPLODE:
            fields["explode"] = True
            assert isinstance(mod.mode, Explode)
            if mod.mode is not _EACH:
                fields["explode_kind"] = mod.mode
            on = self.selector(mod)[2] if arg is Arg.SELECTOR else self.point(optional=True)
            if on is not None:
                fields["explode_on"] = on
        elif kind is Kind.REROLL or kind is Kind.REROLL_ONCE:
            test = self.selector(mod)[2] if arg is Arg.SELECTOR else self.point(optional=False)
            assert test is not None
            once = kind is Kind.REROLL_ONCE
            if "reroll" in fields and once is not fields.get("reroll_once", False):
                raise NotationError(
                    f"{self.text!r} rerolls both once and repeatedly (column {self.pos}): "
                    "referee cannot apply one after the other, so choose one"
                )
            if once:
                fields["reroll_once"] = True
            fields["reroll"] = (*fields.get("reroll", ()), test)
        elif kind is Kind.ADD_ONCE:
            fields["add_on"] = self.selector(mod)[2]
        elif kind is Kind.FLOOR:
            fields["floor"] = self.number("a number")
        elif kind is Kind.CEILING:
            fields["ceiling"] = self.number("a number")
        elif kind is Kind.SUCCESS:
            if isinstance(mod.mode, Compare):
                fields["success"] = Success.of(mod.mode, self.number("a target number"))
            else:  # onlinehost's c: a point, or nothing for the top face
                fields["success"] = self.point(optional=True) or "top"
        elif kind is Kind.FAILURE:
            fields["failure"] = self.point(optional=False)
        elif kind is Kind.CRIT:
            fields["crit"] = self.point(optional=False)
        elif kind is Kind.FUMBLE:
            fields["fumble"] = self.point(optional=False)
        else:
            assert isinstance(mod.mode, str)
            fields["order"] = mod.mode


def _plain_sum(node: Expr) -> bool:
    if isinstance(node, Dice):
        return node.plain
    if isinstance(node, BinOp) and node.op is _ADD:
        return _plain_sum(node.left) and _plain_sum(node.right)
    return False
