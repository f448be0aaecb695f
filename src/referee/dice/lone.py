"""A lone dice group with modifiers (`4d6kh3`, `2d6ro<3`, `8d6mi2`), read without the grammar.

`lone_group` reads a whole text that is one group and its modifiers with a few regex
matches, exactly as the grammar (parser.py) reads it, from the same dialect tables. It
gives None whenever the grammar might read the text differently or refuse it (a bound
passed, a modifier twice, a group that would never stop, anything unusual); the grammar
then reads the text and says what is wrong. Tests compare the two on generated texts.

>>> from referee.dice.dialects import DIALECTS
>>> from referee.dice.limits import DEFAULT_LIMITS
>>> lone_group("4d6kh3", DEFAULT_LIMITS, DIALECTS["d20"])
parse('4d6kh3')
>>> lone_group("4d6kh", DEFAULT_LIMITS, DIALECTS["d20"]) is None  # the grammar says why
True
"""

from __future__ import annotations

import re
from typing import Any

from referee.dice.dialects import APPLIED_ORDER, Dialect, Kind, Modifier
from referee.dice.expr import Compare, Dice, Explode, Keep, KeepMode, Success
from referee.dice.limits import Limits
from referee.dice.members import (
    ARG_NONE,
    ARG_NUMBER,
    ARG_NUMBER_OR_ONE,
    ARG_POINT_OR_TOP,
    ARG_SELECTOR,
    CMP_EQ,
    EXPLODE_EACH,
    KIND_ADD_ONCE,
    KIND_CEILING,
    KIND_CRIT,
    KIND_EXPLODE,
    KIND_FAILURE,
    KIND_FLOOR,
    KIND_FUMBLE,
    KIND_KEEP,
    KIND_REROLL,
    KIND_REROLL_ONCE,
    KIND_SUCCESS,
    MODE_DROP_HIGHEST,
    MODE_DROP_LOWEST,
    MODE_HIGHEST,
    MODE_LOWEST,
    MODE_MATCHING,
)

_HEAD = re.compile(r"([0-9]*)d([0-9]+|%)")
_TAIL = re.compile(r"[ \t]*")
_BLANKS = frozenset(" \t")
_VALUES: dict[tuple[Any, ...], Any] = {}
"""Compare points and keeps made so far, by their fields: they are frozen, so one value serves
every tree (a dataclass is slow to make; the text is still read and checked every time)."""


def success(compare: Compare, target: int) -> Success:
    """`Success(compare, target)`, the same value shared."""
    key = (compare._value_, target)  # by value: a member hashes in Python, its str in C
    found = _VALUES.get(key)
    if found is None:
        if len(_VALUES) >= 4096:
            _VALUES.clear()
        found = _VALUES[key] = Success(compare, target)
    return found


def keep(mode: KeepMode, count: int, test: Success | None = None) -> Keep:
    """`Keep(mode, count, test)`, the same value shared."""
    key = (mode._value_, count, None if test is None else (test.compare._value_, test.target))
    found = _VALUES.get(key)
    if found is None:
        if len(_VALUES) >= 4096:
            _VALUES.clear()
        found = _VALUES[key] = Keep(mode, count, test)
    return found


class _Table:
    """One dialect's modifiers as regexes: letters (longest first, as the grammar picks them)
    and a compare point."""

    __slots__ = ("by_letters", "compares", "letters", "marks", "point")

    def __init__(self, dialect: Dialect) -> None:
        mods = sorted(dialect.dice, key=lambda m: -len(m.letters))
        kinds = list(Kind)
        self.by_letters: dict[str, tuple[Modifier, int, int]] = {}
        for mod in mods:  # each with its kind as one bit (rerolls none: they may come again)
            repeats = mod.kind is KIND_REROLL or mod.kind is KIND_REROLL_ONCE
            bit = 0 if repeats else 1 << kinds.index(mod.kind)
            stage = APPLIED_ORDER[mod.kind]  # where referee applies it (read without a hash)
            self.by_letters.setdefault(mod.letters, (mod, bit, stage))
        self.letters = re.compile("(?>" + "|".join(re.escape(m.letters) for m in mods) + ")")
        prefixes = [p for p, _ in dialect.points if p]
        bare = any(p == "" for p, _ in dialect.points)
        alternation = "|".join(re.escape(p) for p in prefixes)
        self.point = re.compile(f"({alternation}){'?' if bare else ''}([0-9]+)")
        self.compares = {p: c for p, c in reversed(dialect.points)}
        self.marks = frozenset(p[0] for p in prefixes)


_TABLES: dict[str, _Table] = {}
_new = tuple.__new__  # a named tuple made without its Python-level `__new__`: the same value
_KEEP_TAIL = Dice(1, 1)[4:]  # every field after `keep` at its default
_PLAIN = Dice(1, 1)  # what `group_at` gives `lone_group` for a group without modifiers
_PLAIN_TAIL = _PLAIN[2:]  # every field after count and sides at its default
_INDEX = {name: i for i, name in enumerate(Dice._fields)}
_NUMBER = re.compile(r"[0-9]*")
_RANK = re.compile(r"([hl])([0-9]+)")


def lone_group(low: str, limits: Limits, dialect: Dialect) -> Dice | None:
    """The group a lower-cased text is, when it is one group with modifiers and nothing else
    the grammar might read another way; else None."""
    start = _TAIL.match(low).end() if low[:1] in _BLANKS else 0  # type: ignore[union-attr]
    found = group_at(low, start, limits, dialect, lone=True)
    if found is None or found[0] is _PLAIN:
        return None
    dice, pos = found
    if pos != len(low) and _TAIL.match(low, pos).end() != len(low):  # type: ignore[union-attr]
        return None
    return dice


def group_at(
    low: str, start: int, limits: Limits, dialect: Dialect, lone: bool = False
) -> tuple[Dice, int] | None:
    """The group (with its modifiers) that starts at `start` of a lower-cased text, and where
    it ends, when the grammar reads it so; else None. The caller checks what follows.
    (`lone`: a group without modifiers comes back as the marker `_PLAIN`.)

    The last answer with modifiers (or None) is kept: `parse` tries the whole text as one
    group first (`lone`), then reads it as a sum, from the same group at the same place. An
    answer kept for `lone` is never `_PLAIN`, so it is the answer without `lone` too."""
    last = _LAST[0]
    if (
        last[0] is low
        and last[1] == start
        and last[2] is limits
        and last[3] is dialect
        and (last[4] or not lone)  # an answer for `lone` (never `_PLAIN`) serves both
    ):
        answer: tuple[Dice, int] | None = last[5]
        return answer
    found = _group_at(low, start, limits, dialect, lone)
    if found is None or found[0] is not _PLAIN:
        # One tuple, replaced whole: threads reading it see one answer or another, never a mix.
        _LAST[0] = (low, start, limits, dialect, lone, found)
    return found


_LAST: list[tuple[Any, ...]] = [(None, -1, None, None, None, None)]
"""(text, start, limits, dialect, lone, answer) of the last `group_at` with modifiers or none."""


def _group_at(
    low: str, start: int, limits: Limits, dialect: Dialect, lone: bool
) -> tuple[Dice, int] | None:
    head = _HEAD.match(low, start)
    if head is None:
        return None
    count_text, sides_text = head.groups()
    count = int(count_text) if count_text else 1
    if sides_text == "%":
        if not dialect.percent_die:
            return None  # d20's tens die: the grammar refuses it
        sides = 100
    else:
        sides = int(sides_text)
    if not (1 <= count <= limits.max_dice and 1 <= sides <= limits.max_sides):
        return None
    table = _TABLES.get(dialect.name)
    if table is None:
        table = _TABLES[dialect.name] = _Table(dialect)
    fields: dict[str, Any] = {}
    seen = 0
    pos = head.end()
    end = len(low)
    letters, point, compares = table.letters, table.point, table.compares
    ordered = dialect.written_order
    stage = 0
    while pos < end:
        found = letters.match(low, pos)
        if found is None:
            break
        mod, bit, applied = table.by_letters[found.group()]
        kind, arg = mod.kind, mod.arg
        if seen & bit:
            return None  # a kind twice: the grammar says so
        seen |= bit
        if ordered:
            if applied < stage:
                return None  # out of referee's order: the grammar refuses it
            stage = applied
        pos = found.end()
        test: Success | None = None
        if arg is ARG_NONE:
            assert isinstance(mod.mode, str)
            fields["order"] = mod.mode
            continue
        if arg is ARG_NUMBER or arg is ARG_NUMBER_OR_ONE:
            digits = _NUMBER.match(low, pos)
            assert digits is not None
            pos = digits.end()
            if digits.end() == digits.start():
                if arg is ARG_NUMBER:
                    return None
                number = 1
            else:
                number = int(digits.group())
            if kind is KIND_KEEP:
                assert isinstance(mod.mode, KeepMode)
                fields["keep"] = keep(mod.mode, number)
            elif kind is KIND_FLOOR:
                fields["floor"] = number
            elif kind is KIND_CEILING:
                fields["ceiling"] = number
            elif kind is KIND_SUCCESS and isinstance(mod.mode, Compare):
                fields["success"] = success(mod.mode, number)
            else:
                return None
            continue
        if arg is ARG_SELECTOR and kind is KIND_KEEP:
            rank = _RANK.match(low, pos)
            if rank is not None:
                pos = rank.end()
                keeping = mod.mode is MODE_MATCHING
                if rank.group(1) == "h":
                    mode = MODE_HIGHEST if keeping else MODE_DROP_HIGHEST
                else:
                    mode = MODE_LOWEST if keeping else MODE_DROP_LOWEST
                fields["keep"] = keep(mode, int(rank.group(2)))
                continue
        marked = point.match(low, pos)
        if marked is not None:
            pos = marked.end()
            test = success(compares[marked.group(1) or ""], int(marked.group(2)))
        elif arg is not ARG_POINT_OR_TOP or low[pos : pos + 1] in table.marks:
            return None  # the grammar refuses a missing point, or a mark without a number
        if kind is KIND_KEEP:
            assert isinstance(mod.mode, KeepMode)
            fields["keep"] = keep(mod.mode, 0, test)
        elif kind is KIND_EXPLODE:
            assert isinstance(mod.mode, Explode)
            fields["explode"] = True
            if mod.mode is not EXPLODE_EACH:
                fields["explode_kind"] = mod.mode
            if test is not None:
                fields["explode_on"] = test
        elif kind is KIND_REROLL or kind is KIND_REROLL_ONCE:
            once = kind is KIND_REROLL_ONCE
            if "reroll" in fields and once is not fields.get("reroll_once", False):
                return None  # once and repeatedly: the grammar refuses it
            if once:
                fields["reroll_once"] = True
            fields["reroll"] = (*fields.get("reroll", ()), test)
        elif kind is KIND_ADD_ONCE:
            fields["add_on"] = test
        elif kind is KIND_SUCCESS:
            fields["success"] = test or "top"
        elif kind is KIND_FAILURE:
            fields["failure"] = test
        elif kind is KIND_CRIT:
            fields["crit"] = test
        elif kind is KIND_FUMBLE:
            fields["fumble"] = test
        else:
            return None
    if not fields:
        return (_PLAIN if lone else _new(Dice, (count, sides, *_PLAIN_TAIL))), pos
    if len(fields) == 1 and "keep" in fields:  # the commonest (`4d6kh3`): nothing else to check
        return _new(Dice, (count, sides, False, fields["keep"], *_KEEP_TAIL)), pos
    dice = checked_group(count, sides, fields, limits, dialect)
    return None if dice is None else (dice, pos)


def checked_group(
    count: int, sides: int, fields: dict[str, Any], limits: Limits, dialect: Dialect
) -> Dice | None:
    """The group of `count` dice of `sides` sides with these modifier fields, as the grammar
    makes it; None where the grammar would refuse it or read it otherwise (a group that would
    never stop, too many dice, a pair the dialect refuses)."""
    if fields.get("success") == "top":
        fields["success"] = success(CMP_EQ, sides)
    on = fields.get("explode_on")
    if on is not None and on.compare is CMP_EQ and on.target == sides:
        del fields["explode_on"]  # the top face is what `!` alone means
    made = [count, sides, *_PLAIN_TAIL]  # `Dice(count, sides, **fields)`, field by field
    for name, value in fields.items():
        made[_INDEX[name]] = value
    dice: Dice = _new(Dice, made)
    return None if most_dice_of(dice, limits, dialect) is None else dice


def most_dice_of(dice: Dice, limits: Limits, dialect: Dialect) -> int | None:
    """The most dice a group may throw (`Dice.most_dice`); None where the grammar would refuse
    the group (one that would never stop, too many dice, a pair the dialect refuses)."""
    sides = dice[1]
    reroll = dice.reroll
    if len(reroll) == 1 and not dice.explode:  # one test: its range says if every face rerolls
        lowest, highest = reroll[0].passing_range()
        if lowest <= 1 and highest >= sides:
            return None
    elif reroll or dice.explode:
        faces = dice.faces()
        ends = (faces[-1], faces[0])  # a group that stops mostly stops on one of these
        if dice.reroll and all(map(dice.rerolls, ends)) and all(map(dice.rerolls, faces)):
            return None
        if dice.explode and all(map(dice.explodes, ends)) and all(map(dice.explodes, faces)):
            return None
    most = dice.most_dice(limits.max_explode_depth)
    if most > limits.max_dice:
        return None
    if dialect.written_order and written_order_conflict(dice) is not None:
        return None
    if reroll and dice.explode and not dialect.rerolls_with_explosions:
        return None  # the grammar refuses the pair, and says why
    return most


def written_order_conflict(dice: Dice) -> str | None:
    """Why a dialect that applies modifiers in the order written (d20) would mean something
    else by this group than referee does, even written in referee's order; None if it would not.

    >>> written_order_conflict(Dice(2, 6, explode=True, reroll=(Success(Compare.EQ, 1),)))[:36]
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
