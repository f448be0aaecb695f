"""How a roll is shown: `EXPR = DICE = TOTAL`.

Dropped dice are struck through (`~~1~~`), a rerolled die is struck with an `r`
(`~~1r~~`), a die that exploded is followed by `!`, a compounding die's faces are joined
with `+`, a changed value follows an arrow (`1->2`), and in a counting group a success is
followed by `*`, a failure by `x`; roll20's critical marks are `^` (cs) and `_` (cf).

>>> from referee.rng import ScriptedRng
>>> from referee.dice import roll_text
>>> render(roll_text("4d6kh3", rng=ScriptedRng([6, 5, 4, 1])))
'4d6kh3 = [6, 5, 4, ~~1~~] = 15'
>>> render(roll_text("3d6!>5", rng=ScriptedRng([6, 2, 5, 3, 1])))
'3d6!>5 = [6!, 2, 5!, 3, 1] = 17'
>>> render(roll_text("3d6>5", rng=ScriptedRng([6, 2, 5])))
'3d6>5 = [6*, 2, 5*] = 2'
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING

from referee.dice.dialects import DIALECTS, Dialect
from referee.dice.expr import Const, Degrees, Dice, Expr, Number, Pool, Success
from referee.dice.notation import canonical_pair, show

if TYPE_CHECKING:
    from referee.dice.rolling import Die, GroupRoll, PoolRoll, RollResult


def number(value: Number) -> str:
    """A value as shown: whole, an exact decimal, or a fraction.

    >>> from fractions import Fraction
    >>> number(3), number(Fraction(7, 2)), number(Fraction(1, 3))
    ('3', '3.5', '1/3')
    """
    if isinstance(value, int) or value.denominator == 1:
        return str(int(value))
    den = value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den == 1:
        return str(Decimal(value.numerator) / Decimal(value.denominator))
    return str(value)


def render(result: RollResult, dialect: str | Dialect | None = None) -> str:
    """Show a roll as `EXPR = DICE = TOTAL`, in `dialect`'s notation (default: the first that
    can write it, roll20's for most). A reader of onlinehost is shown onlinehost: roll20's
    `!>5` (explode on 5 or more) reads there as "explode above 5".

    >>> from referee.rng import ScriptedRng
    >>> from referee.dice import parse, roll
    >>> rolled = roll(parse("2d6!>4", dialect="onlinehost"), rng=ScriptedRng([6, 2, 3]))
    >>> render(rolled), render(rolled, "onlinehost")
    ('2d6!>5 = [6!, 2, 3] = 11', '2d6!>=5 = [6!, 2, 3] = 11')
    """
    if dialect is None:
        name, text = canonical_pair(result.expression)
        chosen = DIALECTS[name]
    else:
        chosen = dialect if isinstance(dialect, Dialect) else DIALECTS[dialect]
        text = show(result.expression, chosen)
    middle = show(result.expression, chosen, _Leaves(result, chosen), True)
    return f"{text} = {middle} = {number(result.total)}"


class _Leaves:
    """Writes each group, pool and number of a rolled tree, in the order they were rolled."""

    def __init__(self, result: RollResult, d: Dialect) -> None:
        self.groups: Iterator[GroupRoll] = iter(result.groups)
        self.pools: Iterator[PoolRoll] = iter(result.pools)
        self.d = d

    def __call__(self, node: Expr) -> str | None:
        if isinstance(node, Const):
            return str(node.value)
        if isinstance(node, Dice | Degrees):
            return show_group(next(self.groups))
        if isinstance(node, Pool):
            return self.pool(node, next(self.pools))
        return None

    def pool(self, node: Pool, rolled: PoolRoll) -> str:
        items = [show(item, self.d, self, True) for item in node.items]
        if not node.dice_level:
            for i, kept in enumerate(rolled.kept):
                passes = node.success is not None and node.success.passes(rolled.values[i])
                items[i] = items[i] + ("*" if passes and kept else "")
                if not kept:
                    items[i] = f"~~{items[i]}~~"
        bare = show(Pool(node.items), self.d)
        written = show(node, self.d)
        open_, close = ("{", "}") if self.d.braces else ("(", ")")
        return open_ + ", ".join(items) + close + written[len(bare) :]


def show_group(rolled: GroupRoll) -> str:
    """One rolled group's dice: `[6!, 2, ~~1~~]`."""
    group = rolled.group
    joined = rolled.joined
    parts: list[str] = []
    for i, die in enumerate(rolled.dice):
        text = show_die(die, group.success, group)
        if joined and joined[i]:
            parts[-1] += "+" + text
        else:
            parts.append(text)
    if group.order and not joined:
        pairs = sorted(zip(rolled.dice, parts, strict=True), key=lambda p: p[0].worth)
        parts = [p for _, p in (reversed(pairs) if group.order == "d" else pairs)]
    return "[" + ", ".join(parts) + "]"


def show_die(die: Die, success: Success | None = None, group: Dice | None = None) -> str:
    """One die as `render` shows it.

    >>> from referee.dice.rolling import Die
    >>> show_die(Die(6, 1, kept=False))
    '~~1~~'
    """
    fudge = group is not None and group.fudge
    if fudge:
        text = str(die.worth)
    elif die.value is not None:
        text = f"{die.face}->{die.value}"
    else:
        text = str(die.face)
    if die.exploded:
        text += "!"
    if die.rerolled:
        return f"~~{text}r~~"
    if not die.kept:
        return f"~~{text}~~"
    worth = die.worth
    if success is not None and success.passes(worth):
        text += "*"
    if group is not None:
        if group.failure is not None and group.failure.passes(worth):
            text += "x"
        if group.crit is not None and group.crit.passes(die.face):
            text += "^"
        if group.fumble is not None and group.fumble.passes(die.face):
            text += "_"
    return text
