"""The MSV rule pack: every *(option)* of RULINGS.md MSV-1..MSV-10 as one frozen value.

A pack is a flat TOML table; `default.toml` (shipped next to this module) is the text's
reading. Loading checks every key, type and value and names the key that is wrong.

>>> rules = default_rules()
>>> (rules.band_width, rules.damage_cap, rules.critical_effect.value)
(15, 4, 'stun-free-attack')
>>> rules_from_mapping({"damage_cap": 3}).damage_cap
3

A pack may also give formulas (`referee.systems.formula`) over `roll` and `cs` instead of the fixed
options: `success`, `damage` (applies only on a success), `critical` (counts only on a success),
`critical_extra_damage` (a number or a formula) and `initiative` (the effect number; by default
the damage of the initiative roll, MSV-5). A formula must give a value for every roll 1..100 and
every CS 0..100; that is checked when the pack loads.

>>> pack = rules_from_mapping({"damage": "min(5, ceil(roll / 12))"})
>>> interpret_face(pack, 65, 47)
(True, 4, False, 0, 4)
"""

from __future__ import annotations

import enum
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from referee.errors import RulePackError
from referee.systems.files import read_text_file

if TYPE_CHECKING:
    from pathlib import Path

    from referee.systems.formula import Formula, Value

# The formula language (`referee.systems.formula`) is loaded by the functions that read or
# evaluate a formula: a pack of fixed options (the judge's, the default) is read without it.

#: Upper bounds that keep every loop over damage or states small (DESIGN: budgets).
MAX_BAND_WIDTH = 100
MAX_DAMAGE = 100
MAX_THRESHOLD = 100


class CriticalEffect(enum.Enum):
    """What a critical (a successful roll ending in 0) does (MSV-4)."""

    STUN_FREE_ATTACK = "stun-free-attack"
    """The text: the foe is stunned and the attacker makes a free attack at once."""
    NONE = "none"
    """A critical is an ordinary hit."""
    EXTRA_DAMAGE = "extra-damage"
    """The hit does `critical_extra_damage` more damage; no free attack."""


class TieBreak(enum.Enum):
    """How a group tied on initiative is settled (MSV-5)."""

    REROLL = "reroll"
    """The text: the tied fighters roll again among themselves."""
    HIGHER_RAW_ROLL = "higher-raw-roll"
    """Among successful rolls the higher raw roll goes first; only exact ties reroll."""


@dataclass(frozen=True, slots=True)
class MsvRules:
    """One reading of MSV; the defaults are the text's (RULINGS.md).

    >>> MsvRules().to_json()["defeat_threshold"]
    15
    """

    band_width: int = 15  # MSV-3
    damage_cap: int = 4  # MSV-3
    critical_effect: CriticalEffect = CriticalEffect.STUN_FREE_ATTACK  # MSV-4
    critical_extra_damage: int = 1  # MSV-4 (used by extra-damage only)
    tie_break: TieBreak = TieBreak.REROLL  # MSV-5
    defeat_threshold: int = 15  # MSV-7
    success: Formula | None = None  # MSV-2 as a formula
    damage: Formula | None = None  # MSV-3 as a formula (replaces band_width, damage_cap)
    critical: Formula | None = None  # MSV-4 as a formula
    initiative: Formula | None = None  # MSV-5's effect number as a formula
    critical_extra_damage_formula: Formula | None = None  # MSV-4 extra-damage as a formula

    @property
    def uses_formulas(self) -> bool:
        """Whether any rule is given as a formula.

        >>> MsvRules().uses_formulas
        False
        """
        return any(f is not None for f in self.formulas().values())

    def formulas(self) -> dict[str, Formula | None]:
        """The formula columns of the pack (None: the fixed option decides).

        >>> sorted(MsvRules().formulas())
        ['critical', 'critical_extra_damage', 'damage', 'initiative', 'success']
        """
        return {
            "success": self.success,
            "damage": self.damage,
            "critical": self.critical,
            "critical_extra_damage": self.critical_extra_damage_formula,
            "initiative": self.initiative,
        }

    def to_json(self) -> dict[str, int | str]:
        """The pack as a JSON object with no floats (events are hashed as canonical JSON).

        >>> sorted(MsvRules().to_json())[:2]
        ['band_width', 'critical_effect']
        """
        out: dict[str, int | str] = {
            "band_width": self.band_width,
            "damage_cap": self.damage_cap,
            "critical_effect": self.critical_effect.value,
            "critical_extra_damage": self.critical_extra_damage,
            "tie_break": self.tie_break.value,
            "defeat_threshold": self.defeat_threshold,
        }
        if self.damage is not None:
            del out["band_width"], out["damage_cap"]
        for key, formula in self.formulas().items():
            if formula is not None:
                out[key] = str(formula)
        return out

    def without_criticals(self) -> MsvRules:
        """The same pack with critical effect "none" (for with/without comparisons).

        >>> MsvRules().without_criticals().critical_effect.value
        'none'
        """
        return replace(self, critical_effect=CriticalEffect.NONE)

    @property
    def free_attacks(self) -> bool:
        """Whether a critical gives a free attack (MSV-4 as the text reads).

        >>> MsvRules().free_attacks
        True
        """
        return self.critical_effect is CriticalEffect.STUN_FREE_ATTACK


_INT_BOUNDS: dict[str, tuple[int, int]] = {
    "band_width": (1, MAX_BAND_WIDTH),
    "damage_cap": (1, MAX_DAMAGE),
    "critical_extra_damage": (1, MAX_DAMAGE),
    "defeat_threshold": (1, MAX_THRESHOLD),
}
_ENUMS: dict[str, type[enum.Enum]] = {
    "critical_effect": CriticalEffect,
    "tie_break": TieBreak,
}
KNOWN_KEYS: tuple[str, ...] = tuple(MsvRules().to_json())
FORMULA_KEYS: tuple[str, ...] = ("success", "damage", "critical", "initiative")


def _check_int(key: str, value: Any, source: str) -> int:
    low, high = _INT_BOUNDS[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be a whole number, got {value!r}"
        )
    if not low <= value <= high:
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be in {low}..{high}, got {value!r}"
        )
    return value


def _check_enum(key: str, value: Any, source: str) -> enum.Enum:
    kind = _ENUMS[key]
    allowed = [member.value for member in kind]
    if value not in allowed or not isinstance(value, str):
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be one of "
            f"{', '.join(repr(a) for a in allowed)}, got {value!r}"
        )
    return kind(value)


def rules_from_mapping(data: Mapping[str, Any], source: str = "<rules>") -> MsvRules:
    """Validate a pack (as read from TOML); keys left out keep the text's value.

    >>> rules_from_mapping({"tie_break": "higher-raw-roll"}).tie_break.value
    'higher-raw-roll'
    >>> rules_from_mapping({"dmg_cap": 3}, "x.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RulePackError: unknown key 'dmg_cap' in rule pack 'x.toml' (known: ...)
    """
    if not isinstance(data, Mapping):
        raise RulePackError(f"rule pack {source!r} must be a table of keys, got {data!r}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "critical_extra_damage" and isinstance(value, str):
            values["critical_extra_damage_formula"] = _formula(key, value, source)
        elif key in _INT_BOUNDS:
            values[key] = _check_int(key, value, source)
        elif key in _ENUMS:
            values[key] = _check_enum(key, value, source)
        elif key in FORMULA_KEYS:
            values[key] = _formula(key, value, source)
        else:
            known = ", ".join(KNOWN_KEYS + FORMULA_KEYS)
            raise RulePackError(f"unknown key {key!r} in rule pack {source!r} (known: {known})")
    if "damage" in values and {"band_width", "damage_cap"} & set(values):
        raise RulePackError(
            f"rule pack {source!r} gives both 'damage' and 'band_width'/'damage_cap': "
            "the damage formula replaces them, give one or the other"
        )
    rules = MsvRules(**values)
    if rules.uses_formulas:
        from referee.systems.formula import FormulaError

        try:
            face_grid(rules)  # MSV-1, MSV-2: checked for every roll and every CS 0..100
        except FormulaError as err:
            raise FormulaError(f"rule pack {source!r}: {err}") from None
    return rules


def _formula(key: str, value: Any, source: str) -> Formula:
    if not isinstance(value, str):
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be a formula in quotes, got {value!r}"
        )
    from referee.systems.formula import FormulaError, parse_formula

    try:
        return parse_formula(value, key)
    except FormulaError as err:
        raise FormulaError(f"rule pack {source!r}: {err}") from None


def load_rules(path: str | Path | None = None) -> MsvRules:
    """Read a TOML rule pack from `path` (None: the shipped default pack).

    >>> load_rules() == MsvRules()
    True
    """
    if path is None:
        return default_rules()
    name = str(path)
    return rules_from_text(read_text_file(name, "rule pack"), name)


def rules_from_text(text: str, source: str = "<rules>") -> MsvRules:
    """Parse TOML text and validate it as a pack.

    >>> rules_from_text("defeat_threshold = 20").defeat_threshold
    20
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulePackError(f"rule pack {source!r} is not valid TOML: {err}") from None
    return rules_from_mapping(data, source)


@cache
def default_rules() -> MsvRules:
    """The shipped default pack, `default.toml` (the text's reading).

    >>> default_rules().tie_break.value
    'reroll'
    """
    # the file beside this module (a package installed by pip is files on disk), read with
    # `open`: `importlib.resources` and `pathlib` cost a judge's start-up some 5 ms to import
    with open(os.path.join(os.path.dirname(__file__), "default.toml"), encoding="utf-8") as f:
        text = f.read()
    return rules_from_text(text, "default.toml")


#: The CS values checked (and tabulated) when a formula pack loads.
GRID_SKILLS = 101
FACES = 100  # MSV-1


@dataclass(frozen=True, slots=True)
class FaceRow:
    """What every face does at one CS under one pack: index j is roll j + 1.

    `damage` includes a critical's extra damage; `extra` is that extra alone; `effect` is the
    initiative effect number (MSV-5).
    """

    success: tuple[bool, ...]
    damage: tuple[int, ...]
    critical: tuple[bool, ...]
    extra: tuple[int, ...]
    effect: tuple[int, ...]


def _whole(
    formula: Formula,
    values: Value,
    where: Sequence[bool],
    points: Mapping[str, Sequence[int]],
    low: int,
    high: int,
    what: str,
) -> list[int]:
    """The formula's values where `where` holds (0 elsewhere), each checked to be a whole
    number in low..high; the first that is not is a FormulaError naming its point."""
    from referee.systems.formula import FormulaError

    num, den = values
    dens = [1] * len(num) if den is None else den
    for index, (ok, n, d) in enumerate(zip(where, num, dens, strict=True)):
        if ok and (d != 1 or not low <= n <= high):
            roll, cs = points["roll"][index], points["cs"][index]
            got = str(n) if d == 1 else f"{n}/{d}"
            hint = " (round it with ceil or floor)" if d != 1 else ""
            raise FormulaError(
                f"formula {formula.column!r} gave {got} at roll = {roll}, cs = {cs}: "
                f"{what} must be a whole number in {low}..{high}{hint}"
            )
    return [n if ok else 0 for ok, n in zip(where, num, strict=True)]


def _truth(formula: Formula, skills: Sequence[int]) -> list[bool]:
    num, _ = _on_grid(formula, skills)
    return [n != 0 for n in num]


def _on_grid(formula: Formula, skills: Sequence[int]) -> Value:
    """The formula at every (CS, roll) of `skills` x 1..100, CS by CS.

    A formula that reads only `roll` is evaluated on the first CS's row and repeated (and one
    that reads only `cs` on each CS once): the values are the same, and so is the first point
    a problem is reported at, for every other row (or roll) repeats the first.
    """
    rows = len(skills)
    if "cs" not in formula.reads:
        num, den = formula.evaluate({"roll": range(1, FACES + 1), "cs": [skills[0]] * FACES})
        return num * rows, None if den is None else den * rows
    if "roll" not in formula.reads:
        num, den = formula.evaluate({"roll": [1] * rows, "cs": skills})
        spread = [value for value in num for _ in range(FACES)]
        return spread, None if den is None else [value for value in den for _ in range(FACES)]
    rolls = [roll for _ in skills for roll in range(1, FACES + 1)]
    return formula.evaluate({"roll": rolls, "cs": [cs for cs in skills for _ in range(FACES)]})


def evaluate_faces(rules: MsvRules, skills: Sequence[int]) -> tuple[FaceRow, ...]:
    """Evaluate every rule of the pack at every (CS, roll), one row per CS of `skills`;
    formulas checked for range (the first bad point, CS by CS and roll by roll, is named).

    >>> row = evaluate_faces(MsvRules(), [65])[0]
    >>> row.damage[46], row.critical[39]
    (4, True)
    """
    if not skills:
        return ()
    rolls = [roll for _ in skills for roll in range(1, FACES + 1)]
    css = [cs for cs in skills for _ in range(FACES)]
    flat = {"roll": rolls, "cs": css}
    if rules.success is None:  # MSV-2
        success = [roll <= cs for roll, cs in zip(rolls, css, strict=True)]
    else:
        success = _truth(rules.success, skills)
    if rules.damage is None:  # MSV-3
        cap, width = rules.damage_cap, rules.band_width
        base = [
            min(cap, -(-roll // width)) if ok else 0
            for ok, roll in zip(success, rolls, strict=True)
        ]
    else:
        value = _on_grid(rules.damage, skills)
        base = _whole(rules.damage, value, success, flat, 0, MAX_DAMAGE, "damage")
    if rules.critical is None:  # MSV-4
        critical = [ok and roll % 10 == 0 for ok, roll in zip(success, rolls, strict=True)]
    else:
        marked = _truth(rules.critical, skills)
        critical = [ok and c for ok, c in zip(success, marked, strict=True)]
    extra = [0] * len(rolls)
    if rules.critical_effect is CriticalEffect.EXTRA_DAMAGE:
        formula = rules.critical_extra_damage_formula
        if formula is None:
            extra = [rules.critical_extra_damage if c else 0 for c in critical]
        else:
            value = _on_grid(formula, skills)
            extra = _whole(formula, value, critical, flat, 0, MAX_DAMAGE, "extra damage")
    if rules.initiative is None:
        effect = base  # MSV-5: the damage of the roll, 0 on a failure
    else:
        value = _on_grid(rules.initiative, skills)
        everywhere = [True] * len(rolls)
        low, what = -MAX_DAMAGE, "an initiative effect"
        effect = _whole(rules.initiative, value, everywhere, flat, low, MAX_DAMAGE, what)
    damage = [b + e for b, e in zip(base, extra, strict=True)]

    def row(i: int) -> FaceRow:
        cut = slice(i * FACES, (i + 1) * FACES)
        return FaceRow(
            tuple(success[cut]), tuple(damage[cut]), tuple(critical[cut]), tuple(extra[cut]),
            tuple(effect[cut]),
        )  # fmt: skip

    return tuple(row(i) for i in range(len(skills)))


@lru_cache(maxsize=128)
def face_grid(rules: MsvRules) -> tuple[FaceRow, ...]:
    """The pack's faces for CS 0..100, row i for CS i (computed once per pack).

    >>> len(face_grid(MsvRules())), len(face_grid(MsvRules())[65].damage)
    (101, 100)
    """
    return evaluate_faces(rules, range(GRID_SKILLS))


@lru_cache(maxsize=1024)
def _high_row(rules: MsvRules, cs: int) -> FaceRow:
    return evaluate_faces(rules, [cs])[0]


def face_row(rules: MsvRules, cs: int) -> FaceRow:
    """What each face does at one CS, from the cached grid.

    >>> [face_row(MsvRules(), 65).damage[i] for i in (0, 46, 99)]
    [1, 4, 0]
    """
    if 0 <= cs < GRID_SKILLS:
        return face_grid(rules)[cs]
    return _high_row(rules, cs)


def interpret_face(rules: MsvRules, cs: int, roll: int) -> tuple[bool, int, bool, int, int]:
    """(success, damage, critical, extra damage, initiative effect) of one roll under a pack.

    >>> interpret_face(MsvRules(), 65, 40)
    (True, 3, True, 0, 3)
    """
    row, i = face_row(rules, cs), roll - 1
    return row.success[i], row.damage[i], row.critical[i], row.extra[i], row.effect[i]
