"""Dice notation dialects as data: what roll20, onlinehost and d20 mean by each form.

One grammar reads every dialect (parser.py); a dialect only says which spellings exist
and what each one means. Where dialects disagree, each reads its own way:

| text      | roll20                  | onlinehost              | d20                        |
|-----------|-------------------------|-------------------------|----------------------------|
| `4d6k3`   | keep the highest 3      | keep the highest 3      | keep the dice showing 3    |
| `4d6d3`   | drop the lowest 3       | drop the highest 3      | (d20 drops with `p`)       |
| `3d6>3`   | count dice >= 3         | (counts with `c>=3`)    | 1 if the total > 3, else 0 |
| `3d6!>4`  | explode on 4 or more    | explode on 5 or more    | (d20 explodes with `e>4`)  |

>>> DIALECTS["d20"].name, DEFAULT_DIALECT.name
('d20', 'roll20')
>>> dialect("OnlineHost").name
'onlinehost'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.dice.fields import DiceFields
from referee.dice.tree import Compare, Explode, KeepMode
from referee.errors import NotationError


class Arg(enum.Enum):
    """What a modifier takes after its letters."""

    NONE = "none"
    """Nothing (`sa`)."""
    NUMBER = "number"
    """A whole number (`kh3`)."""
    NUMBER_OR_ONE = "number or 1"
    """A whole number, 1 when left out (onlinehost's `4d6k`)."""
    POINT = "compare point"
    """A compare point: a number, or a comparison and a number (`r<2`, `cs>19`)."""
    POINT_OR_TOP = "compare point or nothing"
    """A compare point, or nothing for the top face (`!`, `!>4`, `c`)."""
    SELECTOR = "selector"
    """d20's selector: `hN`, `lN`, `>N`, `<N` or `N`."""


class Kind(enum.Enum):
    """What a modifier does to its group."""

    KEEP = "keep or drop"
    EXPLODE = "explode"
    REROLL = "reroll"
    REROLL_ONCE = "reroll once"
    ADD_ONCE = "reroll and add"
    FLOOR = "minimum"
    CEILING = "maximum"
    SUCCESS = "count successes"
    FAILURE = "count failures"
    CRIT = "critical success"
    FUMBLE = "critical failure"
    SORT = "sort"


@dataclass(frozen=True, slots=True)
class Modifier:
    """One spelling of a modifier in one dialect: its letters, what it does, what follows.

    `mode` is the KeepMode of a keep (for d20's `k`/`p`: the rank modes its `h`/`l` select),
    the Explode kind of an explosion, the fixed Compare of a success test like roll20's `>`,
    or the sort order ('a'/'d').

    >>> Modifier("kh", Kind.KEEP, Arg.NUMBER, KeepMode.HIGHEST).letters
    'kh'
    """

    letters: str
    kind: Kind
    arg: Arg
    mode: KeepMode | Explode | Compare | str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Dialect:
    """Everything that differs between dialects; the grammar around it is shared.

    There is one value per dialect, compared by identity (cheap to hash in parse caches).

    >>> sorted(DIALECTS)
    ['d20', 'onlinehost', 'roll20']
    """

    name: str
    summary: str
    dice: tuple[Modifier, ...]
    """Modifiers after a dice group, longest letters first."""
    pool: tuple[Modifier, ...]
    """Modifiers after a pool (`{...}` in roll20, `(a, b)` in d20)."""
    points: tuple[tuple[str, Compare], ...]
    """Compare-point prefixes, longest first; '' (a bare number) means equal."""
    operators: tuple[str, ...]
    """Binary arithmetic operators, longest first."""
    comparisons: bool = False
    """Whole expressions compared with == != >= <= > < (1 or 0)."""
    braces: bool = False
    """Pools written `{a, b}` (roll20)."""
    sets: bool = False
    """Pools written `(a, b)` (d20)."""
    functions: bool = False
    """floor() ceil() round() abs()."""
    labels: bool = False
    """`[label]` after a number, group or parenthesis."""
    fudge_dice: bool = False
    """`4dF`."""
    fudge_count: bool = False
    """`4f` (onlinehost's Fudge dice)."""
    degrees: bool = False
    """`dh50`: degrees of success of 1d100 against 50."""
    aol: bool = False
    """AOL's `//roll -sidesN -diceN` as a whole expression."""
    prefixes: tuple[str, ...] = ()
    """Leading commands to skip (`/roll `)."""
    unary_plus: bool = False
    """`+1d6` as a sign."""
    python_remainder: bool = False
    """The platform's `%` is Python's (the sign of the divisor: -7 % 3 is 2). Referee's is
    JavaScript's, as roll20's (the sign of the dividend: -1), so where a side of `%` can be
    negative such a dialect refuses it."""
    percent_die: bool = True
    """`d%` is 1d100. (d20's `d%` is a tens die, 0, 10, ..., 90; the d20 dialect refuses it.)"""
    written_order: bool = False
    """The platform applies a group's modifiers in the order they are written (d20). Referee
    applies them in one order (`APPLIED_ORDER`), so such a dialect refuses any other order."""
    rerolls_with_explosions: bool = True
    """Rerolls and explosions on one group read as referee applies them (every die rerolled,
    the dice an explosion adds too). False where the platform does not say what it does
    (roll20): the pair is refused."""
    inline_rolls: bool = False
    """A whole text in `[[ ]]` (roll20's inline roll) is the expression inside."""
    unread: tuple[tuple[str, str], ...] = ()
    """Modifiers the platform has and referee does not read: (letters, why), for the error
    that refuses them."""

    def modifier_letters(self, pool: bool = False) -> str:
        """The modifiers accepted after a group (or a pool), for error messages.

        >>> DIALECTS["onlinehost"].modifier_letters()
        '! c d k'
        """
        seen: list[str] = []
        for mod in self.pool if pool else self.dice:
            if mod.letters not in seen:
                seen.append(mod.letters)
        return " ".join(sorted(seen, key=lambda m: (m[0], len(m), m)))


def _roll20() -> Dialect:
    point = Arg.POINT
    dice = (
        Modifier("!!", Kind.EXPLODE, Arg.POINT_OR_TOP, Explode.COMPOUND),
        Modifier("!p", Kind.EXPLODE, Arg.POINT_OR_TOP, Explode.PENETRATE),
        Modifier("kh", Kind.KEEP, Arg.NUMBER, KeepMode.HIGHEST),
        Modifier("kl", Kind.KEEP, Arg.NUMBER, KeepMode.LOWEST),
        Modifier("dh", Kind.KEEP, Arg.NUMBER, KeepMode.DROP_HIGHEST),
        Modifier("dl", Kind.KEEP, Arg.NUMBER, KeepMode.DROP_LOWEST),
        Modifier("ro", Kind.REROLL_ONCE, point),
        Modifier("cs", Kind.CRIT, point),
        Modifier("cf", Kind.FUMBLE, point),
        Modifier("sa", Kind.SORT, Arg.NONE, "a"),
        Modifier("sd", Kind.SORT, Arg.NONE, "d"),
        Modifier(">=", Kind.SUCCESS, Arg.NUMBER, Compare.GE),
        Modifier("<=", Kind.SUCCESS, Arg.NUMBER, Compare.LE),
        Modifier("!", Kind.EXPLODE, Arg.POINT_OR_TOP, Explode.EACH),
        Modifier("k", Kind.KEEP, Arg.NUMBER, KeepMode.HIGHEST),
        Modifier("d", Kind.KEEP, Arg.NUMBER, KeepMode.DROP_LOWEST),
        Modifier("r", Kind.REROLL, point),
        Modifier("s", Kind.SORT, Arg.NONE, "a"),
        Modifier("f", Kind.FAILURE, point),
        Modifier(">", Kind.SUCCESS, Arg.NUMBER, Compare.GE),
        Modifier("<", Kind.SUCCESS, Arg.NUMBER, Compare.LE),
        Modifier("=", Kind.SUCCESS, Arg.NUMBER, Compare.EQ),
    )
    pool = tuple(m for m in dice if m.kind in (Kind.KEEP, Kind.SUCCESS, Kind.FAILURE))
    return Dialect(
        name="roll20",
        summary="Roll20's dice reference (the default)",
        dice=dice,
        pool=pool,
        points=((">", Compare.GE), ("<", Compare.LE), ("=", Compare.EQ), ("", Compare.EQ)),
        operators=("+", "-", "*", "/", "%"),
        braces=True,
        functions=True,
        labels=True,
        fudge_dice=True,
        prefixes=("/roll ", "/r "),
        rerolls_with_explosions=False,
        inline_rolls=True,
        unread=tuple(
            (
                letters,
                "roll20's matching dice ('4d6m' marks dice that show the same face, '4d6mt' "
                "counts the matches) are not read by referee",
            )
            for letters in ("mt", "m")
        ),
    )


def _onlinehost() -> Dialect:
    dice = (
        Modifier("!", Kind.EXPLODE, Arg.POINT_OR_TOP, Explode.EACH),
        Modifier("k", Kind.KEEP, Arg.NUMBER_OR_ONE, KeepMode.HIGHEST),
        Modifier("d", Kind.KEEP, Arg.NUMBER_OR_ONE, KeepMode.DROP_HIGHEST),
        Modifier("c", Kind.SUCCESS, Arg.POINT_OR_TOP),
    )
    return Dialect(
        name="onlinehost",
        summary="the OnlineHost bot for former AOL role players",
        dice=dice,
        pool=(),
        points=(
            (">=", Compare.GE),
            ("<=", Compare.LE),
            (">", Compare.GT),
            ("<", Compare.LT),
            ("=", Compare.EQ),
            ("", Compare.EQ),
        ),
        operators=("+", "-", "*", "/"),
        fudge_count=True,
        degrees=True,
        aol=True,
    )


def _d20() -> Dialect:
    sel = Arg.SELECTOR
    dice = (
        Modifier("rr", Kind.REROLL, sel),
        Modifier("ro", Kind.REROLL_ONCE, sel),
        Modifier("ra", Kind.ADD_ONCE, sel),
        Modifier("mi", Kind.FLOOR, Arg.NUMBER),
        Modifier("ma", Kind.CEILING, Arg.NUMBER),
        Modifier("k", Kind.KEEP, sel, KeepMode.MATCHING),
        Modifier("p", Kind.KEEP, sel, KeepMode.NOT_MATCHING),
        Modifier("e", Kind.EXPLODE, sel, Explode.EACH),
    )
    pool = tuple(m for m in dice if m.kind is Kind.KEEP)
    return Dialect(
        name="d20",
        summary="the d20 library's grammar (Avrae)",
        dice=dice,
        pool=pool,
        points=((">", Compare.GT), ("<", Compare.LT), ("", Compare.EQ)),
        operators=("//", "+", "-", "*", "/", "%"),
        comparisons=True,
        sets=True,
        labels=True,
        unary_plus=True,
        percent_die=False,
        python_remainder=True,
        written_order=True,
    )


APPLIED_ORDER: dict[Kind, int] = {
    kind: stage
    for stage, kinds in enumerate(
        (
            (Kind.REROLL, Kind.REROLL_ONCE),
            (Kind.ADD_ONCE,),
            (Kind.FLOOR,),
            (Kind.CEILING,),
            (Kind.EXPLODE,),
            (Kind.KEEP,),
            (Kind.SUCCESS, Kind.FAILURE),
            (Kind.CRIT, Kind.FUMBLE, Kind.SORT),
        )
    )
    for kind in kinds
}
"""Where each kind of modifier stands in the order a dialect with `written_order` must write
them: rerolls, `ra`, `mi`, `ma`, `e`, keep or drop. Written so, d20 applies them as referee does
(d20 refuses the pairs whose meaning differs even so: `written_order_conflict`)."""

DIALECTS: dict[str, Dialect] = {d.name: d for d in (_roll20(), _onlinehost(), _d20())}
"""Every dialect by name."""

DEFAULT_DIALECT = DIALECTS["roll20"]
"""The dialect used when none is named."""


def dialect(name: str | Dialect) -> Dialect:
    """A dialect by name (any letter case), or `NotationError` naming the ones there are.

    >>> dialect("roll20") is DEFAULT_DIALECT
    True
    """
    if isinstance(name, Dialect):
        return name
    if isinstance(name, str):
        found = DIALECTS.get(name.lower())
        if found is not None:
            return found
    raise NotationError(
        f"unknown dice dialect {name!r} (expected one of {', '.join(sorted(DIALECTS))})"
    )


def written_order_conflict(dice: DiceFields) -> str | None:
    """Why a dialect that applies modifiers in the order written (d20) would mean something
    else by this group than referee does, even written in referee's order; None if it would not.

    >>> from referee.dice.tree import Success
    >>> group = DiceFields(2, 6, explode=True, reroll=(Success(Compare.EQ, 1),))
    >>> written_order_conflict(group)[:36]
    'd20 rerolls only the dice thrown bef'
    """
    clamps = dice.floor is not None or dice.ceiling is not None
    if dice.reroll and dice.explode:
        return (
            "d20 rerolls only the dice thrown before 'e' explodes them, referee rerolls the "
            "dice an explosion adds too"
        )
    if clamps and (dice.explode or dice.add_on is not None):
        return (
            "d20 sets 'mi'/'ma' only on the dice thrown before 'e' or 'ra' adds more, referee "
            "on the added dice too"
        )
    if dice.explode and dice.add_on is not None:
        return "d20's 'ra' may pick a die 'e' exploded, referee's looks at each die's first face"
    return None
