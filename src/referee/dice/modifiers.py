"""One dice group and its modifiers read from the dialect's own modifier table, without the
grammar: the scanner's (`referee.dice.scan`) reader of a group token in the dialects whose
modifiers its one regex cannot read (roll20's and onlinehost's, written in any order).

`read_group` reads the whole token exactly as the grammar (parser.py) reads the group, or
gives None whenever the grammar might read it otherwise or refuse it (a kind of modifier
twice, a missing number, a bound passed, a group that would never stop, a pair the dialect
refuses, anything left over); the grammar then reads the text and says what is wrong.

>>> from referee.dice.dialects import DIALECTS
>>> from referee.dice.limits import DEFAULT_LIMITS
>>> read_group("4d6!>5kh3", DEFAULT_LIMITS, DIALECTS["roll20"])
(parse('4d6!>5kh3'), 84)
>>> read_group("4d6kh", DEFAULT_LIMITS, DIALECTS["d20"]) is None  # the grammar says why
True
"""

from __future__ import annotations

import re
from typing import Any

from referee.dice.dialects import (
    APPLIED_ORDER,
    Arg,
    Dialect,
    Kind,
    Modifier,
    written_order_conflict,
)
from referee.dice.expr import Compare, Dice, Explode, Keep, KeepMode, Success
from referee.dice.limits import Limits

_HEAD = re.compile(r"([0-9]*)d([0-9]+|%)")
_NUMBER = re.compile(r"[0-9]*")
_RANK = re.compile(r"([hl])([0-9]+)")
_KINDS = list(Kind)


class _Table:
    """One dialect's modifiers as regexes: letters (longest first, as the grammar picks them)
    and a compare point."""

    __slots__ = ("by_letters", "compares", "letters", "marks", "point")

    def __init__(self, dialect: Dialect) -> None:
        mods = sorted(dialect.dice, key=lambda m: -len(m.letters))
        self.by_letters: dict[str, tuple[Modifier, int, int]] = {}
        for mod in mods:  # each with its kind as one bit (rerolls none: they may come again)
            repeats = mod.kind is Kind.REROLL or mod.kind is Kind.REROLL_ONCE
            bit = 0 if repeats else 1 << _KINDS.index(mod.kind)
            self.by_letters.setdefault(mod.letters, (mod, bit, APPLIED_ORDER[mod.kind]))
        self.letters = re.compile("(?>" + "|".join(re.escape(m.letters) for m in mods) + ")")
        prefixes = [p for p, _ in dialect.points if p]
        bare = any(p == "" for p, _ in dialect.points)
        alternation = "|".join(re.escape(p) for p in prefixes)
        self.point = re.compile(f"({alternation}){'?' if bare else ''}([0-9]+)")
        self.compares = {p: c for p, c in reversed(dialect.points)}
        self.marks = frozenset(p[0] for p in prefixes)


_TABLES: dict[str, _Table] = {}


def read_group(token: str, limits: Limits, dialect: Dialect) -> tuple[Dice, int] | None:
    """The group a lower-cased token is, with its modifiers, and the most dice it may throw;
    None where the grammar must read it (and say what is wrong, if anything is)."""
    head = _HEAD.match(token)
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
    fields = _fields(token, head.end(), table, dialect.written_order)
    if fields is None:
        return None
    if not fields:
        return Dice(count, sides), count
    if len(fields) == 1 and "keep" in fields:  # the commonest (`4d6kh3`): nothing to check
        return Dice(count, sides, keep=fields["keep"]), count
    if fields.get("success") == "top":
        fields["success"] = Success.of(Compare.EQ, sides)
    on = fields.get("explode_on")
    if on is not None and on.compare is Compare.EQ and on.target == sides:
        del fields["explode_on"]  # the top face is what `!` alone means
    dice = Dice(count, sides, **fields)
    if (dice.reroll or dice.explode) and dice.endless() is not None:
        return None
    most = dice.most_dice(limits.max_explode_depth)
    if most > limits.max_dice:
        return None
    if dialect.written_order and written_order_conflict(dice) is not None:
        return None
    if dice.reroll and dice.explode and not dialect.rerolls_with_explosions:
        return None  # the grammar refuses the pair, and says why
    return dice, most


def _fields(token: str, pos: int, table: _Table, ordered: bool) -> dict[str, Any] | None:
    """The modifiers from `pos` to the end of the token as a group's fields (`success` "top"
    for onlinehost's bare `c`); None where one is not read as the grammar reads it."""
    fields: dict[str, Any] = {}
    seen = stage = 0
    end = len(token)
    letters, point, compares = table.letters, table.point, table.compares
    while pos < end:
        found = letters.match(token, pos)
        if found is None:
            return None  # a stray character: the grammar says so
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
        if arg is Arg.NONE:
            fields["order"] = mod.mode
            continue
        if arg is Arg.NUMBER or arg is Arg.NUMBER_OR_ONE:
            digits = _NUMBER.match(token, pos)
            assert digits is not None  # (it matches nothing at worst)
            pos = digits.end()
            if digits.end() == digits.start():
                if arg is Arg.NUMBER:
                    return None
                number = 1
            else:
                number = int(digits.group())
            if kind is Kind.KEEP and isinstance(mod.mode, KeepMode):
                fields["keep"] = Keep.of(mod.mode, number)
            elif kind is Kind.FLOOR:
                fields["floor"] = number
            elif kind is Kind.CEILING:
                fields["ceiling"] = number
            elif kind is Kind.SUCCESS and isinstance(mod.mode, Compare):
                fields["success"] = Success.of(mod.mode, number)
            else:
                return None
            continue
        if arg is Arg.SELECTOR and kind is Kind.KEEP:
            rank = _RANK.match(token, pos)
            if rank is not None:
                pos = rank.end()
                keeping = mod.mode is KeepMode.MATCHING
                if rank.group(1) == "h":
                    mode = KeepMode.HIGHEST if keeping else KeepMode.DROP_HIGHEST
                else:
                    mode = KeepMode.LOWEST if keeping else KeepMode.DROP_LOWEST
                fields["keep"] = Keep.of(mode, int(rank.group(2)))
                continue
        test: Success | None = None
        marked = point.match(token, pos)
        if marked is not None:
            pos = marked.end()
            test = Success.of(compares[marked.group(1) or ""], int(marked.group(2)))
        elif arg is not Arg.POINT_OR_TOP or token[pos : pos + 1] in table.marks:
            return None  # the grammar refuses a missing point, or a mark without a number
        if not _apply(fields, mod, test):
            return None
    return fields


def _apply(fields: dict[str, Any], mod: Modifier, test: Success | None) -> bool:
    """A modifier that takes a compare point (`test`, None where it was left out) added to
    the fields; False where the grammar would not read it so."""
    kind = mod.kind
    if kind is Kind.KEEP and isinstance(mod.mode, KeepMode):
        fields["keep"] = Keep.of(mod.mode, 0, test)
    elif kind is Kind.EXPLODE and isinstance(mod.mode, Explode):
        fields["explode"] = True
        if mod.mode is not Explode.EACH:
            fields["explode_kind"] = mod.mode
        if test is not None:
            fields["explode_on"] = test
    elif kind is Kind.REROLL or kind is Kind.REROLL_ONCE:
        once = kind is Kind.REROLL_ONCE
        if "reroll" in fields and once is not fields.get("reroll_once", False):
            return False  # once and repeatedly: the grammar refuses it
        if once:
            fields["reroll_once"] = True
        fields["reroll"] = (*fields.get("reroll", ()), test)
    elif kind is Kind.ADD_ONCE:
        fields["add_on"] = test
    elif kind is Kind.SUCCESS:
        fields["success"] = test or "top"
    elif kind is Kind.FAILURE:
        fields["failure"] = test
    elif kind is Kind.CRIT:
        fields["crit"] = test
    elif kind is Kind.FUMBLE:
        fields["fumble"] = test
    else:
        return False
    return True
