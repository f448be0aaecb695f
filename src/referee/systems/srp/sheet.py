"""Character sheets: the numbers one combatant brings to a fight (SRP-6, SRP-9..11, SRP-19)."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import RuleError, RulePackError
from referee.systems.srp.gear import UNARMED, GearPack, Shield, Weapon, parse_shield
from referee.systems.srp.levels import MAX_SKILL
from referee.systems.srp.packdata import Table

#: How far from the origin a position may lie, in metres (a stated bound: 10 km).
MAX_METRES = 10_000

#: Defense skill of a defender whose defense is not stated (SRP-10).
DEFAULT_DEFENSE = 10


class DefenseKind(enum.Enum):
    """How a defender meets an attack (the columns of the SRP-7 chart)."""

    WEAPON = "weapon"
    """Parry with the weapon: a success stops attacks no better than it."""
    SHIELD = "shield"
    """Block with a shield: lets one more level through, adds the shield's AP."""
    AVOID = "avoid"
    """Dodge: works like a weapon defense, with the Avoid skill."""
    NONE = "none"
    """The defender cannot defend (or does not): the attack lands at its own level."""


def parse_defense(text: str) -> DefenseKind:
    """A defense kind by name, or a RuleError listing the kinds.

    >>> parse_defense("shield")
    <DefenseKind.SHIELD: 'shield'>
    """
    try:
        return DefenseKind(str(text).strip().lower())
    except ValueError:
        kinds = ", ".join(k.value for k in DefenseKind)
        raise RuleError(f"unknown defense type {text!r} (expected one of: {kinds})") from None


@dataclass(frozen=True, slots=True)
class Sheet:
    """One combatant's sheet. Numbers are campaign data (SRP-19); defaults follow the rulings.

    `skills` maps a weapon name to the skill with it; the first weapon is the one in hand.
    `hits` is the hit total (SRP-9). `avoid` None means Avoid uses the defense skill.
    Position is in metres, facing in degrees (0 = +x, 90 = +y); `placed` is false when the
    sheet gives no position (then reach and the rear arc are not checked).

    >>> s = Sheet("Bran", hits=12, weapons=(Weapon("club", damage=1),), skills={"club": 14})
    >>> s.weapon.name, s.skill(), s.defense
    ('club', 14, 10)
    """

    name: str
    hits: int
    weapons: tuple[Weapon, ...] = (UNARMED,)
    skills: Mapping[str, int] = field(default_factory=dict)
    defense: int = DEFAULT_DEFENSE
    avoid: int | None = None
    defend: DefenseKind = DefenseKind.WEAPON
    dam: int = 0
    armor: int = 0
    shield: Shield | None = None
    pm: int = 0
    spirit: int = 0
    mana: int = 0
    mounted: bool = False
    x: float = 0.0
    y: float = 0.0
    facing: float = 0.0
    initiative: int = 0
    placed: bool = False

    @property
    def weapon(self) -> Weapon:
        """The weapon in hand (the first listed)."""
        return self.weapons[0]

    def skill(self, weapon: str | None = None) -> int:
        """The skill with a weapon (default: the one in hand); 0 when the sheet gives none."""
        return self.skills.get(weapon or self.weapon.name, 0)

    def defense_skill(self, kind: DefenseKind) -> int:
        """The skill a defense of `kind` rolls against (Avoid may have its own)."""
        if kind is DefenseKind.AVOID and self.avoid is not None:
            return self.avoid
        return self.defense

    def find_weapon(self, name: str) -> Weapon:
        """A weapon this sheet carries, by name."""
        for weapon in self.weapons:
            if weapon.name == name:
                return weapon
        carried = ", ".join(w.name for w in self.weapons)
        raise RuleError(f"{self.name} carries no weapon {name!r} (carries: {carried})")


def sheet_from_table(
    name: str, data: Mapping[str, Any], gear: GearPack, *, pavise_ap: int = 0, where: str = "sheet"
) -> Sheet:
    """A sheet from a TOML table; weapons and armor may be named from the gear pack.

    Keys: weapon (a name or a list), skill (a number for the first weapon, or a table by
    weapon), defense, avoid, defend, dam, armor (AP or armor name), shield, hits, pm,
    spirit, mana, mounted, position [x, y], facing, initiative.

    >>> from referee.systems.srp.gear import example_pack
    >>> s = sheet_from_table("Ann", {"weapon": "spear", "skill": 15, "hits": 12}, example_pack())
    >>> s.weapon.reach, s.skill()
    (3.0, 15)
    """
    table = Table(data, where)
    weapons = _weapons(table, gear)
    try:
        sheet = Sheet(
            name=name,
            hits=table.integer("hits", 0, low=1, high=1000)
            if table.has("hits")
            else _missing(table),
            weapons=weapons,
            skills=_skills(table, weapons),
            defense=table.integer("defense", DEFAULT_DEFENSE, high=MAX_SKILL),
            avoid=table.integer("avoid", 0, high=MAX_SKILL) if table.has("avoid") else None,
            defend=parse_defense(table.get("defend", str, "weapon")),
            dam=table.integer("dam", 0, low=-10, high=50),
            armor=_armor(table, gear),
            shield=_shield(table, pavise_ap),
            pm=table.integer("pm", 0, low=-1, high=100),
            spirit=table.integer("spirit", 0, high=100),
            mana=table.integer("mana", 0, high=1000),
            mounted=table.get("mounted", bool, False),
            x=_position(table)[0],
            y=_position(table)[1],
            facing=table.number("facing", 0.0, low=-360.0, high=360.0) % 360.0,
            initiative=table.integer("initiative", 0, low=-100, high=100),
            placed=table.has("position"),
        )
    except RuleError as err:
        raise RulePackError(f"{where}: {err}") from None
    table.finish()
    return sheet


def _missing(table: Table) -> int:
    raise RulePackError(f"{table.where}.hits is missing (the sheet's hit total, SRP-9)")


def _weapons(table: Table, gear: GearPack) -> tuple[Weapon, ...]:
    raw = table.data.get("weapon", "unarmed")
    table.used.add("weapon")
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise RulePackError(
            f"{table.where}.weapon = {raw!r} is not a weapon name or a list of them"
        )
    if names == ["unarmed"] and "unarmed" not in gear.weapons:
        return (UNARMED,)
    try:
        return tuple(gear.weapon(n) for n in names)
    except RuleError as err:
        raise RulePackError(f"{table.where}.weapon: {err}") from None


def _skills(table: Table, weapons: tuple[Weapon, ...]) -> dict[str, int]:
    raw = table.data.get("skill", 0)
    table.used.add("skill")
    if isinstance(raw, Mapping):
        inner = Table(raw, f"{table.where}.skill")
        out = {key: inner.integer(key, 0, high=MAX_SKILL) for key in inner.names()}
        inner.finish()
        return out
    return {weapons[0].name: table.integer("skill", 0, high=MAX_SKILL)}


def _armor(table: Table, gear: GearPack) -> int:
    raw = table.data.get("armor", 0)
    if isinstance(raw, str):
        table.used.add("armor")
        try:
            return gear.armor(raw)
        except RuleError as err:
            raise RulePackError(f"{table.where}.armor: {err}") from None
    return table.integer("armor", 0, high=100)


def _shield(table: Table, pavise_ap: int) -> Shield | None:
    raw = table.get("shield", str, "")
    if not raw or raw == "none":
        return None
    try:
        return parse_shield(raw, pavise_ap=pavise_ap)
    except RuleError as err:
        raise RulePackError(f"{table.where}.shield: {err}") from None


def is_coordinate(value: object) -> bool:
    """Whether `value` is a number of metres within the stated bound of the ground.

    >>> is_coordinate(7.5), is_coordinate(1e308), is_coordinate(float("nan")), is_coordinate(True)
    (True, False, False, False)
    """
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    return math.isfinite(value) and abs(value) <= MAX_METRES


def _position(table: Table) -> tuple[float, float]:
    raw = table.get("position", list, [0, 0])
    if len(raw) != 2 or not all(is_coordinate(v) for v in raw):
        raise RulePackError(
            f"{table.where}.position = {raw!r} is not [x, y] in metres "
            f"(each within -{MAX_METRES}..{MAX_METRES})"
        )
    return float(raw[0]), float(raw[1])
