"""What happened, and how it is shown: rolling a tree, the frozen result, its rendering.

Each dice group is ONE `rng.throw(...)` (one verifiable nonce); each round of
explosions is one more throw.

>>> from referee.rng import ScriptedRng
>>> result = roll_text("2d20+1d6", rng=ScriptedRng([14, 3, 5]))
>>> render(result)
'2d20+1d6 = [14, 3] + [5] = 22'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, NoReturn

from referee.dice.expr import BinOp, Const, Dice, Expr, KeepMode, Neg, Op, Success, show
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.parser import parse_cached
from referee.errors import LimitError
from referee.rng import Rng, Throw


@dataclass(frozen=True, slots=True)
class Die:
    """One die of a roll: its face, whether it counts, and whether it exploded.

    >>> Die(6, 6, kept=True, exploded=True)
    Die(sides=6, face=6, kept=True, exploded=True)
    """

    sides: int
    face: int
    kept: bool = True
    exploded: bool = False
    """It showed its maximum and added another die to its group."""


class GroupRoll(NamedTuple):
    """One dice group as rolled: its throws (dice in throw order), which dice count, its value.

    A named tuple (as frozen as a dataclass, and several times faster to make: one is made
    for every group of every roll).

    `kept[i]` and `exploded[i]` describe the i-th face of `faces`.

    >>> rolled = GroupRoll(Dice(2, 6), (Throw((6, 6), (4, 2)),), (True, False), (False, False), 4)
    >>> rolled.faces, rolled.dice[1]
    ((4, 2), Die(sides=6, face=2, kept=False, exploded=False))
    """

    group: Dice
    throws: tuple[Throw, ...]
    kept: tuple[bool, ...]
    exploded: tuple[bool, ...]
    value: int

    @property
    def faces(self) -> tuple[int, ...]:
        """Every face, kept or not, in throw order."""
        if len(self.throws) == 1:
            return self.throws[0].faces
        return tuple(f for t in self.throws for f in t.faces)

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die as a record, in throw order."""
        sides = self.group.sides
        return tuple(
            Die(sides, f, k, e)
            for f, k, e in zip(self.faces, self.kept, self.exploded, strict=True)
        )


class RollResult(NamedTuple):
    """A rolled expression: the tree, each group as rolled (left to right) and the total.

    >>> from referee.rng import ScriptedRng
    >>> result = roll_text("1d100", rng=ScriptedRng([47]))
    >>> result.total, str(result)
    (47, '1d100 = [47] = 47')
    """

    expression: Expr
    groups: tuple[GroupRoll, ...]
    total: int

    def __str__(self) -> str:
        return render(self)

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die of every group, in the order they were thrown."""
        return tuple(d for g in self.groups for d in g.dice)

    @property
    def throws(self) -> tuple[Throw, ...]:
        """Every throw made (one per group, plus one per round of explosions)."""
        return tuple(t for g in self.groups for t in g.throws)


def roll(expr: Expr, *, rng: Rng, limits: Limits = DEFAULT_LIMITS) -> RollResult:
    """Roll a parsed expression with dice from `rng`.

    `limits` caps explosion chains (`max_explode_depth`) and, as a last guard when
    the tree was parsed under other limits, the dice thrown (`max_dice`).

    >>> from referee.dice import parse
    >>> from referee.rng import ScriptedRng
    >>> roll(parse("4d6kh3"), rng=ScriptedRng([6, 1, 5, 4])).total
    15
    """
    if isinstance(expr, Dice):  # the commonest roll: one group
        rolled = roll_group(expr, rng, limits, [limits.max_dice])
        return RollResult(expr, (rolled,), rolled.value)
    groups: list[GroupRoll] = []
    total = _evaluate(expr, rng, limits, groups, [limits.max_dice])
    return RollResult(expr, tuple(groups), total)


def roll_text(text: str, *, rng: Rng, limits: Limits = DEFAULT_LIMITS) -> RollResult:
    """Parse (through the cache) and roll in one call.

    >>> from referee.rng import ScriptedRng
    >>> roll_text("d%", rng=ScriptedRng([100])).total
    100
    """
    return roll(parse_cached(text, limits), rng=rng, limits=limits)


def _evaluate(node: Expr, rng: Rng, limits: Limits, out: list[GroupRoll], budget: list[int]) -> int:
    if isinstance(node, Dice):
        rolled = roll_group(node, rng, limits, budget)
        out.append(rolled)
        return rolled.value
    if isinstance(node, BinOp):
        left = _evaluate(node.left, rng, limits, out, budget)
        right = _evaluate(node.right, rng, limits, out, budget)
        if node.op is Op.ADD:
            return left + right
        return left - right if node.op is Op.SUB else left * right
    if isinstance(node, Neg):
        return -_evaluate(node.operand, rng, limits, out, budget)
    return node.value


def roll_group(
    group: Dice, rng: Rng, limits: Limits = DEFAULT_LIMITS, budget: list[int] | None = None
) -> GroupRoll:
    """Roll one dice group: one throw, then one throw per round of explosions.

    >>> from referee.rng import ScriptedRng
    >>> roll_group(Dice(2, 6, explode=True), ScriptedRng([6, 2, 3])).faces
    (6, 2, 3)
    """
    sides = group.sides
    if budget is not None:
        budget[0] -= group.count
        if budget[0] < 0:
            _over_budget(group.count, sides)
    first = rng.throw((sides,) * group.count)
    if not group.explode and group.keep is None and group.success is None:
        flags = (True,) * group.count
        return GroupRoll(group, (first,), flags, (False,) * group.count, sum(first.faces))
    throws = [first]
    faces = list(first.faces)
    exploded = [False] * len(faces)
    if group.explode:
        _explode(sides, rng, limits.max_explode_depth, budget, throws, faces, exploded)
    kept = _kept(group, faces)
    value = _value(group.success, faces, kept)
    return GroupRoll(group, tuple(throws), tuple(kept), tuple(exploded), value)


def _over_budget(count: int, sides: int) -> NoReturn:
    raise LimitError(
        f"rolling {count} more d{sides} would pass this roll's dice limit "
        "(parse and roll with the same limits)"
    )


def _explode(
    sides: int,
    rng: Rng,
    depth: int,
    budget: list[int] | None,
    throws: list[Throw],
    faces: list[int],
    exploded: list[bool],
) -> None:
    """Each round, every die of the last round showing its maximum adds one die."""
    start = 0
    for _ in range(depth):
        tops = [i for i in range(start, len(faces)) if faces[i] == sides]
        if not tops:
            return
        for i in tops:
            exploded[i] = True
        start = len(faces)
        if budget is not None:
            budget[0] -= len(tops)
            if budget[0] < 0:
                _over_budget(len(tops), sides)
        more = rng.throw((sides,) * len(tops))
        throws.append(more)
        faces.extend(more.faces)
        exploded.extend([False] * len(tops))


def _kept(group: Dice, faces: list[int]) -> list[bool]:
    """Which dice count. Among equal faces the earlier die is picked first (kept or dropped)."""
    keep = group.keep
    if keep is None:
        return [True] * len(faces)
    high_first = keep.mode in (KeepMode.HIGHEST, KeepMode.DROP_HIGHEST)
    sign = -1 if high_first else 1
    order = sorted(range(len(faces)), key=lambda i: (sign * faces[i], i))
    keeping = keep.mode in (KeepMode.HIGHEST, KeepMode.LOWEST)
    picked = set(order[: keep.count])
    return [(i in picked) == keeping for i in range(len(faces))]


def _value(success: Success | None, faces: list[int], kept: list[bool]) -> int:
    if success is None:
        return sum(f for f, k in zip(faces, kept, strict=True) if k)
    return sum(1 for f, k in zip(faces, kept, strict=True) if k and success.passes(f))


def render(result: RollResult) -> str:
    """Show a roll as `EXPR = DICE = TOTAL`.

    Dropped dice are struck through (`~~1~~`), a die that exploded is followed by
    `!`, and in a success-counting group each die that counts as a success is
    followed by `*`.

    >>> from referee.rng import ScriptedRng
    >>> render(roll_text("4d6kh3", rng=ScriptedRng([6, 5, 4, 1])))
    '4d6kh3 = [6, 5, 4, ~~1~~] = 15'
    >>> render(roll_text("3d6!>=5", rng=ScriptedRng([6, 2, 5, 3])))
    '3d6!>=5 = [6!*, 2, 5*, 3] = 2'
    """
    groups = iter(result.groups)

    def leaf(node: Const | Dice) -> str:
        if isinstance(node, Const):
            return str(node.value)
        rolled = next(groups)
        success = rolled.group.success
        return "[" + ", ".join(show_die(d, success) for d in rolled.dice) + "]"

    middle = show(result.expression, leaf, spaced=True)
    return f"{result.expression} = {middle} = {result.total}"


def show_die(die: Die, success: Success | None = None) -> str:
    """One die as `render` shows it.

    >>> show_die(Die(6, 1, kept=False))
    '~~1~~'
    """
    text = f"{die.face}!" if die.exploded else str(die.face)
    if not die.kept:
        return f"~~{text}~~"
    if success is not None and success.passes(die.face):
        return text + "*"
    return text
