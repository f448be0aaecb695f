"""Special combat actions and the conditions they leave (SRP-16).

Disarm, entangle, grapple and unhorse are declared instead of a normal attack: they
roll the same three dice (the damage die unused), deal no damage and apply an effect.
Stun is not declared: an S* weapon's hit at special level or better stuns (see melee).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from referee.errors import RuleError
from referee.rng import Rng
from referee.systems.srp.gear import Code, Weapon
from referee.systems.srp.levels import Level, check_d20
from referee.systems.srp.melee import THREE_DICE, Attack, Defense, check_faces
from referee.systems.srp.rules import DEFAULT_RULES, DisarmUndefended, SrpRules
from referee.systems.srp.sheet import DefenseKind
from referee.vocabulary import JSON


class Special(enum.Enum):
    """A special combat action a weapon's code allows (SRP-16)."""

    DISARM = "disarm"
    """D: attack succeeds and a weapon defense fails -> the defender's weapon falls."""
    ENTANGLE = "entangle"
    """E: only against Avoid; attack succeeds and Avoid fails -> entangled."""
    GRAPPLE = "grapple"
    """G: attack succeeds and any defense fails -> grabbed."""
    UNHORSE = "unhorse"
    """U: attack succeeds and the defense fails against a mounted defender -> dismounted."""

    @property
    def code(self) -> Code:
        """The weapon code that allows this action."""
        return _CODES[self]


_CODES = {
    Special.DISARM: Code.DISARM,
    Special.ENTANGLE: Code.ENTANGLE,
    Special.GRAPPLE: Code.GRAPPLE,
    Special.UNHORSE: Code.UNHORSE,
}


class Condition(enum.Enum):
    """A state a fighter is left in; `rounds` is how long it lasts (None: until cleared)."""

    DISARMED = "disarmed"
    """Weapon on the ground: no attack with it until an action picks it up."""
    ENTANGLED = "entangled"
    """Only minimum moves, until the entangler lets go (or the referee clears it)."""
    ENTANGLING = "entangling"
    """The entangler cannot use its weapon while it entangles."""
    GRAPPLED = "grappled"
    """Only minimum moves and one-handed weapons; breaking free takes two actions."""
    GRAPPLING = "grappling"
    """Holds a foe: the grappler's attack actions on it hit automatically."""
    STUNNED = "stunned"
    """Stunned by an S* weapon: loses its next action."""
    DISMOUNTED = "dismounted"
    """Pulled from the saddle (the sheet's `mounted` is now false)."""
    LOST_ACTION = "lost_action"
    """Loses its next action (unhorsing: attacker and defender alike)."""
    BREAKING_FREE = "breaking_free"
    """Has spent the first of the two actions that break a grapple."""
    IN_SPIRIT_COMBAT = "in_spirit_combat"
    """Has fought a round of spirit combat: doing anything else costs 1 PM while a foe in
    it has PM to fight on (SRP-17)."""

    @property
    def rounds(self) -> int | None:
        """How many of the fighter's turns it lasts; None until cleared."""
        return 1 if self in (Condition.STUNNED, Condition.LOST_ACTION) else None

    @property
    def words(self) -> str:
        """The condition as people read it.

        >>> Condition.LOST_ACTION.words, Condition.BREAKING_FREE.words, Condition.STUNNED.words
        ('loses an action', 'breaking free', 'stunned')
        """
        return self.value.replace("lost_action", "loses an action").replace("_", " ")


#: Actions that use the weapon in hand.
WEAPON_ACTIONS = frozenset({"attack", "shoot", "disarm", "entangle", "grapple", "unhorse"})
#: Full moves (a minimum move is "step").
FULL_MOVES = frozenset({"move", "charge"})
#: What each condition forbids (the action kinds), and why, in words.
FORBIDS: dict[Condition, tuple[frozenset[str], str]] = {
    Condition.DISARMED: (WEAPON_ACTIONS, "is disarmed: pick the weapon up first"),
    Condition.ENTANGLED: (FULL_MOVES, "is entangled: only minimum moves (step)"),
    Condition.ENTANGLING: (WEAPON_ACTIONS, "is entangling with its weapon: it cannot use it"),
    Condition.GRAPPLED: (FULL_MOVES, "is grappled: only minimum moves (step)"),
    Condition.STUNNED: (frozenset({"*"}), "is stunned: it loses this action"),
    Condition.LOST_ACTION: (frozenset({"*"}), "loses this action"),
}
#: Actions a fighter who loses its action may still take (to let the turn pass).
ALWAYS_ALLOWED = frozenset({"pass"})


def why_blocked(conditions: Iterable[Condition], kind: str, *, weapon_hands: int = 1) -> str | None:
    """Why a fighter under `conditions` may not take an action of `kind`, or None.

    >>> why_blocked([Condition.GRAPPLED], "move")
    'is grappled: only minimum moves (step)'
    >>> why_blocked([Condition.GRAPPLED], "attack", weapon_hands=2)
    'is grappled: only one-handed weapons'
    >>> why_blocked([Condition.GRAPPLED], "step") is None
    True
    """
    if kind in ALWAYS_ALLOWED:
        return None
    for condition in conditions:
        forbidden, reason = FORBIDS.get(condition, (frozenset(), ""))
        if "*" in forbidden or kind in forbidden:
            return reason
        if condition is Condition.GRAPPLED and kind in WEAPON_ACTIONS and weapon_hands > 1:
            return "is grappled: only one-handed weapons"
    return None


@dataclass(frozen=True, slots=True)
class Effect:
    """A condition put on the attacker or the defender."""

    on: str
    condition: Condition


@dataclass(frozen=True, slots=True)
class SpecialResult:
    """What a special action did: levels, whether it worked, the conditions it left."""

    action: Special
    faces: tuple[int, int, int]
    attack_level: Level
    defense_level: Level | None
    worked: bool
    effects: tuple[Effect, ...]
    explanation: tuple[str, ...]
    nonce: int | None = None

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values."""
        return {
            "action": self.action.value,
            "dice": list(self.faces),
            "nonce": self.nonce,
            "attack_level": self.attack_level.label,
            "defense_level": None if self.defense_level is None else self.defense_level.label,
            "worked": self.worked,
            "effects": [{"on": e.on, "condition": e.condition.value} for e in self.effects],
            "explanation": list(self.explanation),
        }


def check_special(action: Special, weapon: Weapon, defense: DefenseKind, mounted: bool) -> None:
    """RuleError when the action cannot be declared: wrong weapon, defense or target.

    >>> check_special(Special.GRAPPLE, Weapon("club"), DefenseKind.WEAPON, False)
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: grapple needs a weapon with code 'G'; 'club' has none
    """
    if not weapon.has(action.code):
        codes = ", ".join(sorted(c.value for c in weapon.codes)) or "none"
        raise RuleError(
            f"{action.value} needs a weapon with code {action.code.value!r}; "
            f"{weapon.name!r} has {codes}"
        )
    if action is Special.ENTANGLE and defense is not DefenseKind.AVOID:
        raise RuleError(f"entangle works only against Avoid, not a {defense.value!r} defense")
    if action is Special.UNHORSE and not mounted:
        raise RuleError("unhorse needs a mounted defender")


def resolve_special(
    action: Special,
    weapon: Weapon,
    attack: Attack,
    defense: Defense,
    faces: tuple[int, ...],
    *,
    mounted: bool = False,
    rules: SrpRules = DEFAULT_RULES,
    nonce: int | None = None,
) -> SpecialResult:
    """Resolve a declared special action from the three dice (the damage die is unused).

    >>> from referee.systems.srp.gear import Code
    >>> whip = Weapon("whip", codes=frozenset({Code.DISARM}))
    >>> r = resolve_special(Special.DISARM, whip, Attack(skill=14), Defense(), (5, 12, 1))
    >>> r.worked, [e.condition.value for e in r.effects]
    (True, ['disarmed'])
    """
    check_special(action, weapon, defense.kind, mounted)
    att_roll, def_roll, dmg_roll = check_faces(faces)
    att = rules.level(att_roll, attack.effective_skill)
    lines = [
        f"{action.value}: attack d20 rolled {att_roll} vs {attack.effective_skill} -> {att.label}"
    ]
    dfn: Level | None = None
    if defense.kind is not DefenseKind.NONE:
        dfn = rules.level(def_roll, defense.skill, defending=True)
        lines.append(
            f"defense ({defense.kind.value}): d20 rolled {def_roll} vs {defense.skill} "
            f"-> {dfn.label}"
        )
    else:
        lines.append("defense: none (the defender cannot defend)")
    worked = att >= Level.SUCCESS and (dfn is None or dfn is Level.FAILURE)
    undefended = rules.disarm_undefended is DisarmUndefended.FAILS
    if action is Special.DISARM and dfn is None and worked and undefended:
        worked = False
        lines.append("disarm against no defense: no weapon defense to miss (disarm_undefended)")
    if action is Special.DISARM and defense.kind not in (DefenseKind.WEAPON, DefenseKind.NONE):
        worked = False
        lines.append(f"disarm needs a weapon defense; a {defense.kind.value} defense is unaffected")
    effects = _effects(action) if worked else ()
    lines.append(_outcome_line(action, worked, effects))
    return SpecialResult(
        action, (att_roll, def_roll, dmg_roll), att, dfn, worked, effects, tuple(lines), nonce
    )


def special_action(
    action: Special,
    weapon: Weapon,
    attack: Attack,
    defense: Defense,
    rng: Rng,
    *,
    mounted: bool = False,
    rules: SrpRules = DEFAULT_RULES,
) -> SpecialResult:
    """Check the declaration, throw the three dice once, resolve (SRP-4, SRP-16)."""
    check_special(action, weapon, defense.kind, mounted)
    throw = rng.throw(THREE_DICE)
    return resolve_special(
        action,
        weapon,
        attack,
        defense,
        throw.faces,
        mounted=mounted,
        rules=rules,
        nonce=throw.nonce,
    )


def _effects(action: Special) -> tuple[Effect, ...]:
    if action is Special.DISARM:
        return (Effect("defender", Condition.DISARMED),)
    if action is Special.ENTANGLE:
        return (Effect("defender", Condition.ENTANGLED), Effect("attacker", Condition.ENTANGLING))
    if action is Special.GRAPPLE:
        return (Effect("defender", Condition.GRAPPLED), Effect("attacker", Condition.GRAPPLING))
    return (
        Effect("defender", Condition.DISMOUNTED),
        Effect("defender", Condition.LOST_ACTION),
        Effect("attacker", Condition.LOST_ACTION),
    )


def _outcome_line(action: Special, worked: bool, effects: tuple[Effect, ...]) -> str:
    if not worked:
        return f"{action.value} fails: no effect"
    listed = ", ".join(f"{e.on} {e.condition.words}" for e in effects)
    return f"{action.value} works: {listed}"


@dataclass(frozen=True, slots=True)
class BreakFree:
    """The second action of breaking a grapple: a d20 at or under the defense (SRP-16)."""

    roll: int
    defense: int
    freed: bool
    explanation: str


def break_free(roll: int, defense: int, rules: SrpRules = DEFAULT_RULES) -> BreakFree:
    """Roll d20 at or under the defense to break free (a 20 fails by the SRP-5 option).

    >>> break_free(9, 10).freed, break_free(11, 10).freed
    (True, False)
    """
    check_d20(roll, "break-free roll")
    freed = rules.level(roll, defense, defending=True) >= Level.SUCCESS
    verdict = "breaks free" if freed else "stays grappled"
    return BreakFree(
        roll, defense, freed, f"break free: d20 rolled {roll} vs defense {defense} -> {verdict}"
    )
