"""MSV-5 initiative for any number of fighters, every roll and reroll recorded.

Everyone rolls d100 against CS; the effect number is the MSV-3 damage of the roll (0 on a
failure). Highest effect acts first. A group that ties rerolls among itself until settled.
Rounds are rolled one tied group at a time, the best-placed group first.

CS 0 fighters never succeed, so a group made only of CS 0 fighters would reroll forever:
such a group is placed in the order given, without rolling, and the round records it as
`unrollable`. Every other group settles with probability 1; a stated bound (`max_rounds`)
turns a freak run of ties into a LimitError rather than a hang.

>>> from referee.rng import ScriptedRng
>>> result = roll_initiative([("Tarl", 65), ("Pa-Kur", 70)], ScriptedRng([47, 12]))
>>> result.order
('Tarl', 'Pa-Kur')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.errors import LimitError, RuleError
from referee.systems.msv.attack import D100, CombatSkill, check_cs, effect_number, succeeds
from referee.systems.msv.rules import MsvRules, TieBreak, default_rules, interpret_face

if TYPE_CHECKING:  # the dice sources are loaded to roll: reading a roll (the judge) needs none
    from referee.rng import Rng

#: The default bound on rounds of initiative rolls.
MAX_ROUNDS = 1000


@dataclass(frozen=True, slots=True)
class InitiativeRoll:
    """One fighter's initiative roll: the face and its effect number (MSV-5)."""

    name: str
    cs: CombatSkill
    roll: int
    effect: int

    def to_json(self) -> dict[str, str | int]:
        """As a JSON object.

        >>> InitiativeRoll("Tarl", CombatSkill(65), 47, 4).to_json()["effect"]
        4
        """
        return {"name": self.name, "cs": self.cs, "roll": self.roll, "effect": self.effect}


@dataclass(frozen=True, slots=True)
class InitiativeRound:
    """One round of rolls by one group; `ties` are the groups that must reroll."""

    number: int
    group: tuple[str, ...]
    rolls: tuple[InitiativeRoll, ...]
    ties: tuple[tuple[str, ...], ...]
    unrollable: bool = False

    def to_json(self) -> dict[str, object]:
        """As a JSON object (no floats).

        >>> InitiativeRound(1, ("A",), (), ()).to_json()["group"]
        ['A']
        """
        return {
            "round": self.number,
            "group": list(self.group),
            "rolls": [r.to_json() for r in self.rolls],
            "ties": [list(t) for t in self.ties],
            "unrollable": self.unrollable,
        }


@dataclass(frozen=True, slots=True)
class InitiativeResult:
    """A settled order and every round of rolls that settled it."""

    order: tuple[str, ...]
    rounds: tuple[InitiativeRound, ...]

    def to_json(self) -> dict[str, object]:
        """As a JSON object (no floats).

        >>> InitiativeResult(("A",), ()).to_json()
        {'order': ['A'], 'rounds': []}
        """
        return {"order": list(self.order), "rounds": [r.to_json() for r in self.rounds]}


def check_fighters(fighters: Sequence[tuple[str, int]]) -> tuple[tuple[str, CombatSkill], ...]:
    """Names must be unique and non-empty, every CS valid.

    >>> check_fighters([("Tarl", 65)])
    (('Tarl', 65),)
    """
    seen: set[str] = set()
    out = []
    for name, cs in fighters:
        if not isinstance(name, str) or not name.strip():
            raise RuleError(f"a fighter needs a name, got {name!r}")
        if name in seen:
            raise RuleError(f"fighter {name!r} is listed twice")
        seen.add(name)
        out.append((name, check_cs(cs)))
    if not out:
        raise RuleError("initiative needs at least one fighter, got none")
    return tuple(out)


def sort_key(cs: int, roll: int, rules: MsvRules) -> int:
    """The number a fighter's place is decided by; equal keys tie. # MSV-5

    With tie-break "reroll" it is the effect number. With "higher-raw-roll" it is the raw
    roll of a success (0 for a failure): effect rises with the roll, so among successes
    comparing (effect, raw roll) is comparing the raw roll.

    >>> sort_key(65, 47, default_rules()), sort_key(65, 80, default_rules())
    (4, 0)
    """
    if rules.tie_break is TieBreak.HIGHER_RAW_ROLL:
        if rules.uses_formulas:  # the effect first, then the raw roll of a success
            success, _, _, _, effect = interpret_face(rules, cs, roll)
            return effect * 101 + (roll if success else 0)
        return roll if succeeds(cs, roll) else 0
    return effect_number(cs, roll, rules)


def _groups_by_key(rolls: Sequence[InitiativeRoll], keys: Sequence[int]) -> list[tuple[str, ...]]:
    """Names grouped by equal key, best key first, each group in rolling order."""
    distinct = sorted(set(keys), reverse=True)
    return [tuple(r.name for r, k in zip(rolls, keys, strict=True) if k == d) for d in distinct]


def _roll_group(
    number: int, group: tuple[str, ...], skills: dict[str, CombatSkill], rng: Rng, rules: MsvRules
) -> tuple[InitiativeRound, list[tuple[str, ...]]]:
    from referee.rng import die, fighter_dice

    rolls = []
    for name in group:
        # one fighter's roll is one roll (one nonce), from that fighter's own dice stream
        roll = die(fighter_dice(rng, name), D100)
        rolls.append(
            InitiativeRoll(name, skills[name], roll, effect_number(skills[name], roll, rules))
        )
    keys = [sort_key(r.cs, r.roll, rules) for r in rolls]
    parts = _groups_by_key(rolls, keys)
    ties = tuple(p for p in parts if len(p) > 1)
    return InitiativeRound(number, group, tuple(rolls), ties), parts


def roll_initiative(
    fighters: Sequence[tuple[str, int]],
    rng: Rng,
    rules: MsvRules | None = None,
    max_rounds: int = MAX_ROUNDS,
) -> InitiativeResult:
    """Settle the order of `fighters` ((name, CS) pairs) by MSV-5, rolling from `rng`.

    >>> from referee.rng import ScriptedRng
    >>> r = roll_initiative([("A", 65), ("B", 65)], ScriptedRng([80, 90, 20, 47]))
    >>> r.order, [len(x.rolls) for x in r.rounds]
    (('B', 'A'), [2, 2])
    """
    rules = rules or default_rules()
    checked = check_fighters(fighters)
    skills = dict(checked)
    slots: list[tuple[str, ...]] = [tuple(name for name, _ in checked)]
    rounds: list[InitiativeRound] = []
    while any(len(slot) > 1 for slot in slots):
        index = next(i for i, slot in enumerate(slots) if len(slot) > 1)
        group = slots[index]
        number = len(rounds) + 1
        if all(skills[name] == 0 for name in group):
            rounds.append(InitiativeRound(number, group, (), (), unrollable=True))
            slots[index : index + 1] = [(name,) for name in group]
            continue
        if number > max_rounds:
            raise LimitError(
                f"initiative not settled after {max_rounds} rounds of rolls "
                f"(group still tied: {', '.join(group)})"
            )
        record, parts = _roll_group(number, group, skills, rng, rules)
        rounds.append(record)
        slots[index : index + 1] = parts
    return InitiativeResult(tuple(slot[0] for slot in slots), tuple(rounds))
