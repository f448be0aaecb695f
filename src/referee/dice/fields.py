"""The fields of each node of an expression tree, and the base of every node (`Node`: its
fields, equality by type and fields, `replace`), with what the fields say (how many dice a
group may throw, which faces explode, how a face is clamped, whether a group would never
stop).

The nodes themselves are `referee.dice.expr`'s: each is its fields here plus its notation
(`str`, `repr`) and its bounds (`minimum`, `maximum`), which `referee.dice.notation` and
`referee.dice.bounds` work out from these fields. So those modules read a tree without
importing the nodes, and the nodes import them: the imports run one way.

>>> from referee.dice.tree import KeepMode
>>> DiceFields(4, 6, keep=Keep(KeepMode.HIGHEST, 3)).kept(5)
3
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final, Self

from referee.dice.tree import EVERY, Explode, Keep, Op, Success

if TYPE_CHECKING:
    from referee.dice.expr import Expr

_EXPLODE_EACH = Explode.EACH


class Node:
    """What every node of a tree is: its fields (`FIELDS`), set by its constructor and never
    after, and equal to another node only of the same type with equal fields. A node is not a
    sequence: no length, no order, no `+`.

    Each field is `Final`: the type checker (mypy, strict) refuses an assignment to one
    anywhere but in the constructor, and nothing assigns one. (Not a frozen dataclass, which
    sets each field through object's own setter: for a group's seventeen fields that costs
    more than reading and rolling `1d20` does in all; nor read-only properties, whose every
    read costs ten times a slot's.)

    >>> ConstFields(3) == ConstFields(3), ConstFields(3) == DegreesFields(3)
    (True, False)
    >>> DiceFields(2, 6).replace(count=3).fields()["count"]
    3
    """

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()
    """The names of the node's fields, in order."""

    def fields(self) -> dict[str, Any]:
        """The node's fields by name, in order."""
        return {name: getattr(self, name) for name in self.FIELDS}

    def replace(self, **changes: Any) -> Self:
        """The same node with some fields changed."""
        return type(self)(**{**self.fields(), **changes})

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        return all(getattr(self, name) == getattr(other, name) for name in self.FIELDS)

    def __hash__(self) -> int:
        return hash((type(self).__name__, *(getattr(self, name) for name in self.FIELDS)))


class ConstFields(Node):
    """The fields of `Const` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("value",)
    FIELDS = ("value",)

    value: Final[int]
    """The number written."""

    def __init__(self, value: int) -> None:
        self.value = value


class DiceFields(Node):
    """The fields of `Dice` (`referee.dice.expr`) and what they say, without its notation.

    Modifiers apply in one fixed order, whatever order they were written in: reroll, clamp
    (`floor`/`ceiling`), explode, add once, keep or drop, then count successes and failures.
    """

    __slots__ = (
        "add_on",
        "ceiling",
        "count",
        "crit",
        "explode",
        "explode_kind",
        "explode_on",
        "failure",
        "floor",
        "fudge",
        "fumble",
        "keep",
        "order",
        "reroll",
        "reroll_once",
        "sides",
        "success",
    )
    FIELDS = (
        "count",
        "sides",
        "explode",
        "keep",
        "success",
        "explode_on",
        "explode_kind",
        "reroll",
        "reroll_once",
        "add_on",
        "floor",
        "ceiling",
        "failure",
        "fudge",
        "crit",
        "fumble",
        "order",
    )

    count: Final[int]
    """How many dice are thrown (before rerolls and explosions add any)."""
    sides: Final[int]
    """Sides of each die (a Fudge die: 3)."""
    explode: Final[bool]
    """Whether a die may explode."""
    keep: Final[Keep | None]
    """Which dice count (None: all)."""
    success: Final[Success | None]
    """A test each kept die counts 1 for passing (None: the group is its sum)."""
    explode_on: Final[Success | None]
    """The faces that explode (None: the top face)."""
    explode_kind: Final[Explode]
    """How an explosion adds to the group."""
    reroll: Final[tuple[Success, ...]]
    """A face passing any of these is thrown again."""
    reroll_once: Final[bool]
    """Reroll at most once (`ro`); otherwise until no test passes (to the explosion cap)."""
    add_on: Final[Success | None]
    """d20's `ra`: the first die passing this adds one more die, once."""
    floor: Final[int | None]
    """d20's `mi`: a die below this counts as this."""
    ceiling: Final[int | None]
    """d20's `ma`: a die above this counts as this."""
    failure: Final[Success | None]
    """roll20's `f`: each kept die passing this takes one success away."""
    fudge: Final[bool]
    """Fudge dice: a d3 read as -1, 0, +1 (`sides` is 3)."""
    crit: Final[Success | None]
    """roll20's `cs`: faces marked as critical successes (display only)."""
    fumble: Final[Success | None]
    """roll20's `cf`: faces marked as critical failures (display only)."""
    order: Final[str]
    """roll20's `sa` / `sd`: shown sorted up ('a') or down ('d'); display only."""

    def __init__(
        self,
        count: int,
        sides: int,
        explode: bool = False,
        keep: Keep | None = None,
        success: Success | None = None,
        explode_on: Success | None = None,
        explode_kind: Explode = _EXPLODE_EACH,
        reroll: tuple[Success, ...] = (),
        reroll_once: bool = False,
        add_on: Success | None = None,
        floor: int | None = None,
        ceiling: int | None = None,
        failure: Success | None = None,
        fudge: bool = False,
        crit: Success | None = None,
        fumble: Success | None = None,
        order: str = "",
    ) -> None:
        self.count = count
        self.sides = sides
        self.explode = explode
        self.keep = keep
        self.success = success
        self.explode_on = explode_on
        self.explode_kind = explode_kind
        self.reroll = reroll
        self.reroll_once = reroll_once
        self.add_on = add_on
        self.floor = floor
        self.ceiling = ceiling
        self.failure = failure
        self.fudge = fudge
        self.crit = crit
        self.fumble = fumble
        self.order = order

    @property
    def plain(self) -> bool:
        """No modifier at all: the sum of `count` faces."""
        return (
            not self.explode
            and self.keep is None
            and self.success is None
            and self.explode_on is None
            and self.explode_kind is _EXPLODE_EACH
            and not self.reroll
            and not self.reroll_once
            and self.add_on is None
            and self.floor is None
            and self.ceiling is None
            and self.failure is None
            and not self.fudge
            and self.crit is None
            and self.fumble is None
            and not self.order
        )

    @property
    def chains(self) -> bool:
        """Whether a die may be followed by more throws (reroll, explosion, add once)."""
        return self.explode or bool(self.reroll) or self.add_on is not None

    def kept(self, dice: int) -> int:
        """How many of `dice` thrown dice count (all of them without keep or drop).

        >>> from referee.dice.tree import KeepMode
        >>> DiceFields(4, 6, keep=Keep(KeepMode.DROP_LOWEST, 1)).kept(4)
        3
        """
        return dice if self.keep is None else self.keep.kept(dice)

    def most_dice(self, explode_depth: int) -> int:
        """The most dice this group can throw, every reroll and explosion included.

        >>> DiceFields(2, 6, explode=True).most_dice(20)
        42
        """
        rerolls = (1 if self.reroll_once else explode_depth) if self.reroll else 0
        explosions = explode_depth if self.explode else 0
        return self.count * (explosions + 1) * (rerolls + 1) + (self.add_on is not None)

    def faces(self) -> range:
        """The values one die can show (Fudge: -1..1).

        >>> DiceFields(4, 3, fudge=True).faces()
        range(-1, 2)
        """
        return range(-1, 2) if self.fudge else range(1, self.sides + 1)

    def clamp_range(self) -> tuple[int, int] | None:
        """What d20's `mi` and `ma` do to a die: its value raised to the floor, then lowered to
        the ceiling, that is `min(max(value, low), high)` with this (low, high); None where the
        group has neither.

        >>> DiceFields(1, 6, floor=2).clamp_range(), DiceFields(1, 6).clamp_range()
        ((2, 1000000000000), None)
        """
        if self.floor is None and self.ceiling is None:
            return None
        low = -EVERY if self.floor is None else self.floor
        return low, EVERY if self.ceiling is None else self.ceiling

    def clamp(self, value: int) -> int:
        """What a die standing at `value` counts as after `mi` and `ma` (`clamp_range`).

        >>> DiceFields(1, 3, ceiling=1).clamp(3), DiceFields(1, 6, floor=2).clamp(1)
        (1, 2)
        >>> DiceFields(1, 6, floor=5, ceiling=3).clamp(1)  # raised to 5, then lowered to 3
        3
        """
        bounds = self.clamp_range()
        return value if bounds is None else min(max(value, bounds[0]), bounds[1])

    def explodes(self, value: int) -> bool:
        """Whether a die standing at `value` explodes."""
        if not self.explode:
            return False
        if self.explode_on is None:
            return value == (1 if self.fudge else self.sides)
        return self.explode_on.passes(value)

    def explode_span(self) -> tuple[int, int]:
        """The values that explode, as an inclusive range (the top face alone by default).

        >>> DiceFields(3, 6, explode=True).explode_span()
        (6, 6)
        """
        if self.explode_on is None:
            top = 1 if self.fudge else self.sides
            return top, top
        return self.explode_on.passing_range()

    def rerolls(self, value: int) -> bool:
        """Whether a die showing `value` is thrown again."""
        return any(test.passes(value) for test in self.reroll)

    def reroll_span(self) -> tuple[int, int] | None:
        """The values a die is thrown again on, as one inclusive range where the tests' ranges
        meet or overlap; None where they leave a gap (`r1r3`).

        >>> from referee.dice.tree import Compare
        >>> DiceFields(2, 6, reroll=(Success(Compare.EQ, 1), Success(Compare.EQ, 2))).reroll_span()
        (1, 2)
        """
        if len(self.reroll) == 1:
            return self.reroll[0].passing_range()
        ranges = sorted([test.passing_range() for test in self.reroll])
        low, high = ranges[0] if ranges else (1, 0)
        for start, stop in ranges[1:]:
            if start > high + 1:
                return None
            high = max(high, stop)
        return low, high

    def endless(self) -> str | None:
        """Why a roll of this group would never stop (every face rerolls, or every value it can
        show explodes), or None.

        >>> from referee.dice.tree import Compare
        >>> DiceFields(1, 6, reroll=(Success(Compare.LE, 6),)).endless()
        'rerolls every face'
        """
        faces = self.faces()
        if self.reroll:
            span = self.reroll_span()
            if span is None:
                every = all(map(self.rerolls, faces))
            else:
                every = span[0] <= faces[0] and faces[-1] <= span[1]
            if every:
                return "rerolls every face"
        if not self.explode:
            return None
        if self.floor is not None or self.ceiling is not None:
            shown = sorted({self.clamp(face) for face in faces})  # explosions test these
            if all(map(self.explodes, shown)):
                values = ", ".join(map(str, shown))
                return f"explodes on every value it can show ({values} once clamped)"
            return None
        low, high = self.explode_span()
        if low <= faces[0] and faces[-1] <= high:
            return "explodes on every face"
        return None


class NegFields(Node):
    """The fields of `Neg` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("operand",)
    FIELDS = ("operand",)

    operand: Final[Expr]
    """What is negated."""

    def __init__(self, operand: Expr) -> None:
        self.operand = operand


class BinOpFields(Node):
    """The fields of `BinOp` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("left", "op", "right")
    FIELDS = ("op", "left", "right")

    op: Final[Op]
    """The operator."""
    left: Final[Expr]
    """The left side."""
    right: Final[Expr]
    """The right side."""

    def __init__(self, op: Op, left: Expr, right: Expr) -> None:
        self.op = op
        self.left = left
        self.right = right


class PoolFields(Node):
    """The fields of `Pool` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("dice_level", "failure", "items", "keep", "success")
    FIELDS = ("items", "keep", "success", "failure", "dice_level")

    items: Final[tuple[Expr, ...]]
    """The expressions rolled together."""
    keep: Final[Keep | None]
    """Which items (or, `dice_level`, which dice) count."""
    success: Final[Success | None]
    """A test each kept item counts 1 for passing (None: the pool is the sum)."""
    failure: Final[Success | None]
    """roll20's `f`: each kept item passing this takes one success away."""
    dice_level: Final[bool]
    """roll20's one-item `{4d6+3d8}k4`: keep or drop among all the dice of the item."""

    def __init__(
        self,
        items: tuple[Expr, ...],
        keep: Keep | None = None,
        success: Success | None = None,
        failure: Success | None = None,
        dice_level: bool = False,
    ) -> None:
        self.items = items
        self.keep = keep
        self.success = success
        self.failure = failure
        self.dice_level = dice_level


class CallFields(Node):
    """The fields of `Call` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("function", "operand")
    FIELDS = ("function", "operand")

    function: Final[str]
    """One of `FUNCTIONS`."""
    operand: Final[Expr]
    """What the function is of."""

    def __init__(self, function: str, operand: Expr) -> None:
        self.function = function
        self.operand = operand


class LabelFields(Node):
    """The fields of `Label` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("operand", "text")
    FIELDS = ("operand", "text")

    operand: Final[Expr]
    """What is labelled."""
    text: Final[str]
    """The label as written."""

    def __init__(self, operand: Expr, text: str) -> None:
        self.operand = operand
        self.text = text


class DegreesFields(Node):
    """The fields of `Degrees` (`referee.dice.expr`) and what they say, without its notation."""

    __slots__ = ("target",)
    FIELDS = ("target",)

    target: Final[int]
    """The number the d100 is rolled against."""

    def __init__(self, target: int) -> None:
        self.target = target

    def degrees(self, face: int) -> int:
        """The value of a d100 showing `face`.

        >>> [DegreesFields(50).degrees(face) for face in (50, 29, 51)]
        [1, 3, -1]
        """
        if face <= self.target:
            return 1 + (self.target - face) // 10
        return -(1 + (face - self.target) // 10)
