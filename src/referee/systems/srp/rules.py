"""The SRP rule-pack options: every *(option)* of RULINGS.md, with its default.

A rule pack is a TOML table (or any mapping) of these keys; unknown keys and wrong
types are a `RulePackError` naming the key.

A pack may also give the levels (SRP-5) and the damage bonuses (SRP-8) as formulas
(`referee.systems.formula`): `success`, `special` and `critical` are true/false over `roll`
(the d20 face) and `skill` (the effective skill); `damage_bonus` (the high-skill bonus),
`special_damage` and `critical_damage` are whole numbers over `skill`. A 20 still fails
(SRP-5, for defense by `defense_twenty_fails`) whatever the formulas say. Every formula is
checked for every roll 1..20 and every skill `FORMULA_SKILLS` when the pack loads.

>>> pack = load_rules({"critical": "roll <= floor(skill / 5)"})
>>> pack.level(2, 10), DEFAULT_RULES.level(2, 10)
(<Level.CRITICAL: 3>, <Level.SPECIAL: 2>)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from referee.errors import LimitError, RulePackError
from referee.systems.formula import Formula, FormulaError, parse_formula
from referee.systems.srp.levels import (
    Level,
    check_d20,
    check_table_size,
    high_skill_bonus,
    level,
)

#: Effective skills every formula is checked for when a pack loads (base 0..100 plus
#: rear and referee modifiers); others are evaluated when they occur.
FORMULA_SKILLS = range(-100, 201)
#: The level formulas (true/false over roll and skill) and the damage formulas (over skill).
LEVEL_KEYS = ("success", "special", "critical")
DAMAGE_KEYS = ("damage_bonus", "special_damage", "critical_damage")
#: Bounds of a damage formula's value (DESIGN: budgets).
MAX_BONUS = 1000
#: Damage a special or critical adds in the text (SRP-8).
TEXT_LEVEL_DAMAGE = 4


class Challenge(enum.Enum):
    """How a challenge total must compare with the challenge number (SRP-3)."""

    AT_LEAST = ">="
    """The total reaches the number (the default)."""
    ABOVE = ">"
    """The total must be strictly above the number."""


class Down(enum.Enum):
    """What "down" means for a fighter's hits (SRP-9)."""

    REACH = "reach"
    """Down when the hits taken reach the hit total (the default)."""
    EXCEED = "exceed"
    """Down only when the hits taken exceed the hit total."""


class TurnOrder(enum.Enum):
    """Who acts first in a fight: campaign data, not in the texts (SRP-19)."""

    LISTED = "listed"
    """The referee fixes the order: fighters act in the order they are listed (the default)."""
    ROLL = "roll"
    """Pack option: each fighter rolls d20 + its sheet's `initiative`; highest first, ties
    keep the listed order."""


class StunOn(enum.Enum):
    """What an S* weapon's stun needs (SRP-16)."""

    LEVEL = "level"
    """The hit, after the defense, is at special level or better (the default)."""
    ROLL = "roll"
    """The attack roll is special or better, even when a defense brings the hit down to
    normal."""


class DisarmUndefended(enum.Enum):
    """Disarm against a defender that rolled no defense at all (SRP-16)."""

    TAKES = "takes"
    """The weapon falls when the attack succeeds (the default)."""
    FAILS = "fails"
    """Without a weapon defense to miss, the disarm has no effect."""


class SpiritAtZero(enum.Enum):
    """A spirit combat with a side at 0 PM or below before its first round (SRP-17)."""

    END = "end"
    """The check is made before every round, the first included: the other side may end it
    before a die is rolled (the default)."""
    FIGHT = "fight"
    """The first round is always fought; the check is made after each round."""


@dataclass(frozen=True, slots=True)
class SrpRules:
    """The switchable readings of the SRP text, defaults as RULINGS.md states them.

    >>> SrpRules().defense_twenty_fails, SrpRules().challenge.value
    (True, '>=')
    """

    defense_twenty_fails: bool = True
    """SRP-5: a defense roll of 20 is a failure whatever the skill."""
    shield_keeps_level: bool = False
    """SRP-7: a successful shield defense lets the attack through at its own level."""
    challenge: Challenge = Challenge.AT_LEAST
    """SRP-3: `>=` or `>`."""
    down: Down = Down.REACH
    """SRP-9: what "down" means."""
    turn_order: TurnOrder = TurnOrder.LISTED
    """SRP-19: fixed by the referee, or rolled."""
    pavise_ap: int = 0
    """SRP-11: a pavise's melee AP (none unless a pack gives one)."""
    charge_any_zone: bool = False
    """SRP-15: the text's "similar rule": one may charge through any zone, not only expanded."""
    stun_on: StunOn = StunOn.LEVEL
    """SRP-16: an S* weapon stuns on a hit at special level (`level`), or on a special
    attack roll whatever level the defense leaves the hit at (`roll`)."""
    stun_needs_hits: bool = False
    """SRP-16: a stun needs at least one hit through the armor (the default stuns "in
    addition to the damage", which may be none)."""
    disarm_undefended: DisarmUndefended = DisarmUndefended.TAKES
    """SRP-16: disarm against a defender that rolled no defense at all."""
    spirit_at_zero: SpiritAtZero = SpiritAtZero.END
    """SRP-17: a side at 0 PM or below before the first round fights no round unless the
    other side goes on (`end`), or the first round is fought all the same (`fight`)."""
    world_positions: bool = False
    """SRP-14, 15 in a virtual world: the referee's switch to take every fighter's position and
    facing from where its avatar stands, reported with each action (`at`, `target_at`), instead
    of keeping the map's positions (the default)."""
    success: Formula | None = None
    """SRP-5 as a formula over roll, skill: the roll succeeds (default `roll <= skill`)."""
    special: Formula | None = None
    """SRP-5: a success is special (default `roll <= max(1, floor(skill / 3))`)."""
    critical: Formula | None = None
    """SRP-5: a success is critical, before special (default `roll <= floor(skill / 10)`)."""
    damage_bonus: Formula | None = None
    """SRP-8 high-skill bonus over skill (default `max(0, ceil((skill - 20) / 5))`)."""
    special_damage: Formula | None = None
    """SRP-8: what a special hit adds to damage, over skill (default 4)."""
    critical_damage: Formula | None = None
    """SRP-8: what a critical hit adds to damage, over skill (default 4)."""

    def formulas(self) -> dict[str, Formula | None]:
        """The formula columns (None: the text's rule decides).

        >>> list(SrpRules().formulas())[:3]
        ['success', 'special', 'critical']
        """
        return {key: getattr(self, key) for key in (*LEVEL_KEYS, *DAMAGE_KEYS)}

    @property
    def uses_formulas(self) -> bool:
        """Whether any rule is given as a formula.

        >>> SrpRules().uses_formulas
        False
        """
        return any(f is not None for f in self.formulas().values())

    def level(self, roll: int, skill: int, *, defending: bool = False) -> Level:
        """The level of a d20 `roll` against effective `skill` under this pack (SRP-5).

        A 20 fails for an attack, and for a defense when `defense_twenty_fails`.

        >>> SrpRules().level(20, 30, defending=True), SrpRules(False).level(20, 30, defending=True)
        (<Level.FAILURE: 0>, <Level.SUCCESS: 1>)
        """
        twenty = self.defense_twenty_fails if defending else True
        if self.success is None and self.special is None and self.critical is None:
            return level(roll, skill, twenty_fails=twenty)
        check_d20(roll)
        if roll == 20 and twenty:
            return Level.FAILURE
        return Level(_levels(self.success, self.special, self.critical, skill)[roll - 1])

    def level_counts(self, skill: int, *, defending: bool = False) -> tuple[int, int, int, int]:
        """How many of the 20 faces give each level (failure, success, special, critical).

        >>> SrpRules().level_counts(15)
        (5, 10, 4, 1)
        """
        twenty = self.defense_twenty_fails if defending else True
        counts = [0, 0, 0, 0]
        if self.success is None and self.special is None and self.critical is None:
            for roll in range(1, 21):
                counts[level(roll, skill, twenty_fails=twenty)] += 1
        else:
            table = _levels(self.success, self.special, self.critical, skill)
            for roll, got in enumerate(table, start=1):
                counts[Level.FAILURE if roll == 20 and twenty else got] += 1
        return (counts[0], counts[1], counts[2], counts[3])

    def level_rows(self, max_skill: int = 40, *, break_at: int = 30) -> list[tuple[str, str, str]]:
        """The special/critical table under this pack: (skills, special rolls, critical rolls),
        equal neighbouring skills grouped, never across `break_at` (as `level_table`). The
        rolls are the levels' own, before the rule that a 20 fails (SRP-5).

        >>> load_rules({"special": "roll % 2 == 0"}).level_rows(4)
        [('1', '--', '--'), ('2-3', '2', '--'), ('4', '2,4', '--')]
        >>> from referee.systems.srp.levels import level_table
        >>> SrpRules().level_rows(100) == [row.cells() for row in level_table(100)]
        True
        """
        rows: list[tuple[int, int, str, str]] = []
        for skill in range(1, check_table_size(max_skill) + 1):
            if self.success is None and self.special is None and self.critical is None:
                table = tuple(int(level(r, skill, twenty_fails=False)) for r in range(1, 21))
            else:
                table = _levels(self.success, self.special, self.critical, skill)
            special = _rolls([r for r, got in enumerate(table, 1) if got == Level.SPECIAL])
            critical = _rolls([r for r, got in enumerate(table, 1) if got == Level.CRITICAL])
            last = rows[-1] if rows else None
            if last and last[2:] == (special, critical) and not last[1] <= break_at < skill:
                rows[-1] = (last[0], skill, special, critical)
            else:
                rows.append((skill, skill, special, critical))
        return [(str(a) if a == b else f"{a}-{b}", sp, cr) for a, b, sp, cr in rows]

    def skill_bonus(self, skill: int) -> int:
        """The high-skill damage bonus at effective `skill` (SRP-8).

        >>> SrpRules().skill_bonus(26)
        2
        """
        if self.damage_bonus is None:
            return high_skill_bonus(skill)
        return _whole(self.damage_bonus, skill)

    def level_damage(self, hit: Level, skill: int) -> int:
        """What a hit at level `hit` adds to damage: +4 at special and critical (SRP-8).

        >>> SrpRules().level_damage(Level.CRITICAL, 12), SrpRules().level_damage(Level.SUCCESS, 12)
        (4, 0)
        """
        if hit < Level.SPECIAL:
            return 0
        formula = self.critical_damage if hit is Level.CRITICAL else self.special_damage
        return TEXT_LEVEL_DAMAGE if formula is None else _whole(formula, skill)

    def is_down(self, hits: int, hit_total: int) -> bool:
        """Whether a fighter with `hits` taken of `hit_total` is down (SRP-9).

        >>> SrpRules().is_down(10, 10), SrpRules(down=Down.EXCEED).is_down(10, 10)
        (True, False)
        """
        return hits >= hit_total if self.down is Down.REACH else hits > hit_total

    def challenge_met(self, total: int, target: int) -> bool:
        """Whether a challenge total meets the challenge number (SRP-3).

        >>> strict = SrpRules(challenge=Challenge.ABOVE)
        >>> SrpRules().challenge_met(12, 12), strict.challenge_met(12, 12)
        (True, False)
        """
        return total >= target if self.challenge is Challenge.AT_LEAST else total > target

    def as_dict(self) -> dict[str, bool | int | str]:
        """The options as plain JSON values (enums by value).

        >>> SrpRules().as_dict()["down"]
        'reach'
        """
        out: dict[str, bool | int | str] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Formula):
                out[item.name] = str(value)
            elif value is not None:
                out[item.name] = value.value if isinstance(value, enum.Enum) else value
        return out


def load_rules(data: Mapping[str, Any], where: str = "srp") -> SrpRules:
    """Validate a rule pack mapping; RulePackError names the bad key.

    >>> load_rules({"challenge": ">"}).challenge
    <Challenge.ABOVE: '>'>
    """
    defaults = SrpRules()
    known = {item.name for item in fields(SrpRules)}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key not in known:
            raise RulePackError(
                f"unknown key {where}.{key} (expected one of: {', '.join(sorted(known))})"
            )
        if key in LEVEL_KEYS or key in DAMAGE_KEYS:
            values[key] = _parse(f"{where}.{key}", key, raw)
        else:
            values[key] = _option(f"{where}.{key}", raw, getattr(defaults, key))
    rules = SrpRules(**values)
    if rules.uses_formulas:
        try:
            check_formulas(rules)
        except FormulaError as err:
            raise FormulaError(f"rule pack {where!r}: {err}") from None
    return rules


def _rolls(rolls: list[int]) -> str:
    """[1, 2, 3, 5] -> '1-3,5'; [] -> '--'."""
    if not rolls:
        return "--"
    spans: list[list[int]] = []
    for roll in rolls:
        if spans and roll == spans[-1][1] + 1:
            spans[-1][1] = roll
        else:
            spans.append([roll, roll])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _parse(name: str, key: str, raw: Any) -> Formula:
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise RulePackError(f"{name} = {raw!r} is not a formula in quotes")
    names = ("roll", "skill") if key in LEVEL_KEYS else ("skill",)
    try:
        return parse_formula(str(raw), key, names)
    except FormulaError as err:
        raise FormulaError(f"rule pack {name.partition('.')[0]!r}: {err}") from None


def check_formulas(rules: SrpRules) -> None:
    """Evaluate every formula for every roll 1..20 and skill in `FORMULA_SKILLS` (at load).

    >>> load_rules({"damage_bonus": "skill / 7"}, "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.systems.formula.FormulaError: rule pack 'x': formula 'damage_bonus' gave -100/7 ...
    """
    for skill in FORMULA_SKILLS:
        if any(getattr(rules, key) is not None for key in LEVEL_KEYS):
            _levels(rules.success, rules.special, rules.critical, skill)
        for key in DAMAGE_KEYS:
            formula = getattr(rules, key)
            if formula is not None:
                _whole(formula, skill)


@lru_cache(maxsize=8192)
def _levels(
    success: Formula | None, special: Formula | None, critical: Formula | None, skill: int
) -> tuple[int, ...]:
    """Level of each roll 1..20 at `skill` by the formulas (the text's rule where None)."""
    rolls = list(range(1, 21))
    points = {"roll": rolls, "skill": [skill] * 20}

    def truth(formula: Formula | None, default: list[bool]) -> list[bool]:
        if formula is None:
            return default
        return [n != 0 for n in formula.evaluate(points)[0]]

    hit = truth(success, [roll <= skill for roll in rolls])
    spec = truth(special, [roll <= max(1, skill // 3) for roll in rolls])
    crit = truth(critical, [roll <= skill // 10 for roll in rolls])
    return tuple(
        (3 if c else 2 if s else 1) if h else 0 for h, s, c in zip(hit, spec, crit, strict=True)
    )


@lru_cache(maxsize=8192)
def _whole(formula: Formula, skill: int) -> int:
    value = formula.value(skill=skill)
    if value.denominator != 1 or not -MAX_BONUS <= value <= MAX_BONUS:
        hint = " (round it with ceil or floor)" if value.denominator != 1 else ""
        raise FormulaError(
            f"formula {formula.column!r} gave {value} at skill = {skill}: "
            f"a damage term must be a whole number in -{MAX_BONUS}..{MAX_BONUS}{hint}"
        )
    return int(value)


def _option(name: str, raw: Any, default: Any) -> Any:
    if isinstance(default, enum.Enum):
        choices = type(default)
        try:
            return choices(raw)
        except ValueError:
            allowed = ", ".join(repr(c.value) for c in choices)
            raise RulePackError(f"{name} = {raw!r} is not allowed (expected {allowed})") from None
    if isinstance(default, bool):
        if not isinstance(raw, bool):
            raise RulePackError(f"{name} = {raw!r} is not true or false")
        return raw
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise RulePackError(f"{name} = {raw!r} is not a whole number >= 0")
    return raw


#: The rulings' defaults, shared (SrpRules is frozen).
DEFAULT_RULES = SrpRules()


#: Largest hit total a fighter may have where hits are counted to down (a stated bound).
MAX_HIT_TOTAL = 100


def hits_to_down(hit_total: int, rules: SrpRules = DEFAULT_RULES) -> int:
    """Hits a fighter can take before it is down, by the pack's `down` rule (SRP-9).

    >>> hits_to_down(10), hits_to_down(10, SrpRules(down=Down.EXCEED))
    (10, 11)
    """
    if (
        isinstance(hit_total, bool)
        or not isinstance(hit_total, int)
        or not 1 <= hit_total <= MAX_HIT_TOTAL
    ):
        raise LimitError(f"hit total {hit_total!r} is out of range (expected 1..{MAX_HIT_TOTAL})")
    return hit_total if rules.down is Down.REACH else hit_total + 1
