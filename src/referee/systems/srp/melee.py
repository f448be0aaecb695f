"""One physical attack from three dice: levels, the outcome chart, damage, hits (SRP-4..11, 14).

`resolve(attack, defense, faces)` is pure: it takes the three faces (attack d20, defense
d20, damage d6, in that order, SRP-4). `strike(attack, defense, rng)` throws them in one
roll. Every result carries its own explanation, one line per step.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.errors import RuleError
from referee.rng import Rng
from referee.systems.srp.gear import Shield
from referee.systems.srp.levels import Level, check_d20
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules, StunOn
from referee.systems.srp.sheet import DEFAULT_DEFENSE, DefenseKind
from referee.vocabulary import JSON

#: The dice of one attack, in order (SRP-4).
THREE_DICE = (20, 20, 6)
#: Skill bonus for attacking from the rear (SRP-14).
REAR_BONUS = 4


@dataclass(frozen=True, slots=True)
class Attack:
    """What the attacker brings: skill, modifiers and damage terms.

    Melee damage adds DAM and the high-skill bonus; missile damage adds neither, and a
    thrown missile adds ceil(DAM / 2) (SRP-13). `automatic`: a grappler's attack, which
    hits without a defense roll (SRP-16).

    >>> Attack(skill=15, rear=True, modifier=-1).effective_skill
    18
    """

    skill: int
    weapon_damage: int = 0
    dam: int = 0
    rear: bool = False
    modifier: int = 0
    stun: bool = False
    missile: bool = False
    thrown: bool = False
    automatic: bool = False

    @property
    def effective_skill(self) -> int:
        """Base skill plus rear bonus and referee modifier (SRP-6)."""
        return self.skill + (REAR_BONUS if self.rear else 0) + self.modifier


@dataclass(frozen=True, slots=True)
class Defense:
    """What the defender brings: how it defends, with what skill, its armor and shield.

    >>> Defense().skill
    10
    """

    kind: DefenseKind = DefenseKind.WEAPON
    skill: int = DEFAULT_DEFENSE
    armor: int = 0
    shield: Shield | None = None

    def __post_init__(self) -> None:
        if self.kind is DefenseKind.SHIELD and self.shield is None:
            raise RuleError("a shield defense needs a shield (give --shield NAME or notation)")
        if self.armor < 0:
            raise RuleError(f"armor {self.armor!r} is negative (expected AP >= 0)")


@dataclass(frozen=True, slots=True)
class Strike:
    """The full interpretation of one attack, explaining itself line by line."""

    faces: tuple[int, int, int]
    effective_skill: int
    attack_level: Level
    defense_kind: DefenseKind
    defense_level: Level | None
    hit_level: Level | None
    damage: int
    armor: int
    hits: int
    stun: bool
    explanation: tuple[str, ...]
    nonce: int | None = None

    def as_dict(self) -> dict[str, JSON]:
        """The result as JSON values (levels by name, `hit_level` None when nothing lands)."""
        return {
            "dice": list(self.faces),
            "nonce": self.nonce,
            "effective_skill": self.effective_skill,
            "attack_level": self.attack_level.label,
            "defense": self.defense_kind.value,
            "defense_level": None if self.defense_level is None else self.defense_level.label,
            "hit_level": None if self.hit_level is None else self.hit_level.label,
            "damage": self.damage,
            "armor": self.armor,
            "hits": self.hits,
            "stun": self.stun,
            "explanation": list(self.explanation),
        }


def chart(
    attack: Level, defense: Level | None, kind: DefenseKind, rules: SrpRules = DEFAULT_RULES
) -> tuple[Level | None, bool, str]:
    """The SRP-7 outcome chart: (hit level or None, shield AP added?, the cell in words).

    >>> chart(Level.SPECIAL, Level.SUCCESS, DefenseKind.WEAPON)[:2]
    (<Level.SUCCESS: 1>, False)
    >>> chart(Level.SPECIAL, Level.SPECIAL, DefenseKind.SHIELD)[:2]
    (<Level.SUCCESS: 1>, True)
    """
    a = attack.label
    if attack is Level.FAILURE:
        return None, False, "attack failed: no effect"
    if defense is None or defense is Level.FAILURE:
        why = "no defense" if defense is None else "defense failed"
        return attack, False, f"{a} attack, {why}: hit at {a} level"
    d = defense.label
    if kind is DefenseKind.SHIELD:
        if rules.shield_keeps_level:
            return (
                attack,
                True,
                f"{a} attack vs {d} shield defense: shield keeps the level (option)",
            )
        hit = Level(max(1, attack - defense + 1))
        return (
            hit,
            True,
            f"{a} attack vs {d} shield defense: hit at {hit.label} level, shield AP added",
        )
    if attack > defense:
        hit = Level(attack - defense)
        return hit, False, f"{a} attack beats {d} {kind.value} defense: hit at {hit.label} level"
    return None, False, f"{a} attack vs {d} {kind.value} defense: no effect"


def damage_terms(
    attack: Attack, die: int, hit: Level, rules: SrpRules = DEFAULT_RULES
) -> list[tuple[str, int]]:
    """The damage terms of a hit at level `hit`, labelled (SRP-8, SRP-13); the pack's
    formulas give the high-skill bonus and the level's extra damage.

    >>> damage_terms(Attack(skill=22, weapon_damage=3, dam=1), 4, Level.SPECIAL)
    [('d6', 4), ('weapon', 3), ('DAM', 1), ('high skill', 1), ('special', 4)]
    """
    terms = [("d6", die), ("weapon", attack.weapon_damage)]
    if not attack.missile:
        terms += [("DAM", attack.dam), ("high skill", rules.skill_bonus(attack.effective_skill))]
    elif attack.thrown:
        terms.append(("thrown DAM/2", -(-attack.dam // 2)))
    if hit >= Level.SPECIAL:
        terms.append((hit.label, rules.level_damage(hit, attack.effective_skill)))
    return terms


def hits_for(damage: int, armor: int) -> int:
    """Hits from damage over armor: ceil((damage - AP) / 2), 0 when not above (SRP-9).

    >>> hits_for(10, 5), hits_for(5, 5)
    (3, 0)
    """
    return -(-(damage - armor) // 2) if damage > armor else 0


def check_faces(faces: tuple[int, ...]) -> tuple[int, int, int]:
    """The three faces must be a d20, a d20 and a d6, in that order (SRP-4)."""
    if len(faces) != 3:
        raise RuleError(
            f"an attack needs 3 dice (attack d20, defense d20, damage d6), got {faces!r}"
        )
    check_d20(faces[0], "attack die")
    check_d20(faces[1], "defense die")
    if isinstance(faces[2], bool) or not isinstance(faces[2], int) or not 1 <= faces[2] <= 6:
        raise RuleError(f"damage die {faces[2]!r} does not fit a d6 (expected 1..6)")
    return faces[0], faces[1], faces[2]


def resolve(
    attack: Attack,
    defense: Defense,
    faces: tuple[int, ...],
    rules: SrpRules = DEFAULT_RULES,
    nonce: int | None = None,
) -> Strike:
    """Resolve one attack from its three faces (attack, defense, damage), explained.

    >>> s = resolve(Attack(skill=15, weapon_damage=3), Defense(armor=5), (3, 14, 6))
    >>> s.attack_level.label, s.hit_level.label, s.damage, s.hits
    ('special', 'special', 13, 4)
    """
    att_roll, def_roll, dmg_roll = check_faces(faces)
    skill = attack.effective_skill
    att = rules.level(att_roll, skill)
    lines = [_attack_line(attack, att_roll, att)]
    if attack.automatic:
        att = max(att, Level.SUCCESS)
        lines.append(f"grappled target: the attack hits automatically at {att.label} level")
    kind = DefenseKind.NONE if attack.automatic else defense.kind
    dfn = _defense_level(defense, kind, def_roll, rules, lines)
    hit, shield_on, cell = chart(att, dfn, kind, rules)
    lines.append(f"chart: {cell}")
    if hit is None:
        return Strike(
            (att_roll, def_roll, dmg_roll),
            skill,
            att,
            kind,
            dfn,
            None,
            0,
            0,
            0,
            False,
            tuple(lines),
            nonce,
        )
    damage = _damage(attack, dmg_roll, hit, lines, rules)
    armor = _armor(defense, shield_on, hit, lines)
    hits = _hits(damage, armor, hit, lines)
    stun = stuns(attack, att, hit, hits, rules, lines)
    return Strike(
        (att_roll, def_roll, dmg_roll),
        skill,
        att,
        kind,
        dfn,
        hit,
        damage,
        armor,
        hits,
        stun,
        tuple(lines),
        nonce,
    )


def stuns(
    attack: Attack, att: Level, hit: Level, hits: int, rules: SrpRules, lines: list[str]
) -> bool:
    """Whether an S* weapon's hit stuns (SRP-16, with the pack's `stun_on` and
    `stun_needs_hits`); the reason is added to `lines` either way it matters.

    >>> from referee.systems.srp.rules import StunOn
    >>> mace, said = Attack(skill=15, stun=True), []
    >>> stuns(mace, Level.SPECIAL, Level.SUCCESS, 2, DEFAULT_RULES, said), said
    (False, [])
    >>> stuns(mace, Level.SPECIAL, Level.SUCCESS, 2, SrpRules(stun_on=StunOn.ROLL), said)
    True
    """
    if not attack.stun:
        return False
    by_roll = rules.stun_on is StunOn.ROLL
    special = (att if by_roll else hit) >= Level.SPECIAL
    if not special:
        return False
    if rules.stun_needs_hits and hits == 0:
        lines.append("S* weapon: the armor stopped every hit, so no stun (stun_needs_hits)")
        return False
    what = f"attack rolled {att.label}" if by_roll else f"hit at {hit.label} level"
    lines.append(f"S* weapon {what}: target stunned for one round (SRP-16)")
    return True


def strike(attack: Attack, defense: Defense, rng: Rng, rules: SrpRules = DEFAULT_RULES) -> Strike:
    """Throw the three dice in one roll (SRP-4) and resolve the attack.

    >>> from referee.rng import ScriptedRng
    >>> strike(Attack(skill=12), Defense(), ScriptedRng([20, 1, 6])).hit_level is None
    True
    """
    throw = rng.throw(THREE_DICE)
    return resolve(attack, defense, throw.faces, rules, throw.nonce)


def _attack_line(attack: Attack, roll: int, att: Level) -> str:
    parts = [str(attack.skill)]
    if attack.rear:
        parts.append(f"+ {REAR_BONUS} rear")
    if attack.modifier:
        parts.append(f"{'+' if attack.modifier > 0 else '-'} {abs(attack.modifier)} modifier")
    shown = " ".join(parts)
    skill = attack.effective_skill
    total = shown if len(parts) == 1 else f"{skill} ({shown})"
    twenty = " (a 20 always fails)" if roll == 20 else ""
    return f"attack: d20 rolled {roll} vs skill {total} -> {att.label}{twenty}"


def _defense_level(
    defense: Defense, kind: DefenseKind, roll: int, rules: SrpRules, lines: list[str]
) -> Level | None:
    if kind is DefenseKind.NONE:
        lines.append("defense: none (the defender cannot defend)")
        return None
    dfn = rules.level(roll, defense.skill, defending=True)
    twenty = " (a 20 always fails)" if roll == 20 and rules.defense_twenty_fails else ""
    lines.append(
        f"defense ({kind.value}): d20 rolled {roll} vs {defense.skill} -> {dfn.label}{twenty}"
    )
    return dfn


def _damage(attack: Attack, die: int, hit: Level, lines: list[str], rules: SrpRules) -> int:
    terms = damage_terms(attack, die, hit, rules)
    total = sum(value for _, value in terms)
    shown = " + ".join(f"{label} {value}" for label, value in terms).replace("+ -", "- ")
    floor = " -> 0 (negative counts as 0)" if total < 0 else ""
    lines.append(f"damage: {shown} = {total}{floor}")
    return max(0, total)


def _armor(defense: Defense, shield_on: bool, hit: Level, lines: list[str]) -> int:
    armor = defense.armor
    text = f"armor: AP {armor}"
    if shield_on and defense.shield is not None:
        armor += defense.shield.ap
        text += f" + shield {defense.shield.notation} {defense.shield.ap} = {armor}"
    if hit is Level.CRITICAL:
        armor //= 2
        text += f", halved by the critical (round down) -> {armor}"
    lines.append(text)
    return armor


def _hits(damage: int, armor: int, hit: Level, lines: list[str]) -> int:
    hits = hits_for(damage, armor)
    if damage > armor:
        lines.append(f"hits: ceil(({damage} - {armor}) / 2) = {hits}")
    else:
        lines.append(f"hits: damage {damage} not above AP {armor} -> 0")
    if hit is Level.CRITICAL and hits < 1:
        hits = 1
        lines.append("critical: at least one hit -> 1")
    return hits
