"""Shields, weapons and gear packs (SRP-11, SRP-13, SRP-15, SRP-16, SRP-19).

Weapon and armor numbers are campaign data (SRP-19): they come from a gear pack the
referee edits. `example_pack()` loads the shipped pack, whose values are examples.
"""

from __future__ import annotations

import enum
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from referee.errors import RuleError, RulePackError
from referee.systems.srp.packdata import Table

#: The reaches a weapon may have, in metres (SRP-15).
REACHES = (1.5, 3.0, 4.5)


class ShieldKind(enum.Enum):
    """The four shield sizes of the text (SRP-11)."""

    BUCKLER = "buckler"
    """Melee AP 4, missile defense 8, notation `.4.`."""
    MEDIUM = "medium"
    """Melee AP 6, missile defense 12, notation `(6)`."""
    LARGE = "large"
    """Melee AP 8, missile defense 16, notation `[8]`."""
    PAVISE = "pavise"
    """Missile defense 19; no melee AP unless a rule pack gives one."""


_MELEE_AP = {ShieldKind.BUCKLER: 4, ShieldKind.MEDIUM: 6, ShieldKind.LARGE: 8, ShieldKind.PAVISE: 0}
_MISSILE = {
    ShieldKind.BUCKLER: 8,
    ShieldKind.MEDIUM: 12,
    ShieldKind.LARGE: 16,
    ShieldKind.PAVISE: 19,
}
_BRACKETS = {ShieldKind.BUCKLER: ".{}.", ShieldKind.MEDIUM: "({})", ShieldKind.LARGE: "[{}]"}
_NOTATION = re.compile(r"^(?:\.([0-9]{1,2})\.|\(([0-9]{1,2})\)|\[([0-9]{1,2})\])$")


@dataclass(frozen=True, slots=True)
class Shield:
    """A shield: its size and the AP it adds on a successful shield defense (SRP-11).

    >>> Shield(ShieldKind.MEDIUM, 6)
    Shield('(6)')
    >>> Shield(ShieldKind.MEDIUM, 6).missile_defense
    12
    """

    kind: ShieldKind
    ap: int

    @property
    def missile_defense(self) -> int:
        """The defense skill against missiles (SRP-11, SRP-12)."""
        return _MISSILE[self.kind]

    @property
    def notation(self) -> str:
        """`.4.`, `(6)`, `[8]`; a pavise by name (`pavise`, or `pavise:2` with AP)."""
        if self.kind is ShieldKind.PAVISE:
            return "pavise" if self.ap == 0 else f"pavise:{self.ap}"
        return _BRACKETS[self.kind].format(self.ap)

    def __repr__(self) -> str:
        return f"Shield({self.notation!r})"


def parse_shield(text: str, *, pavise_ap: int = 0) -> Shield:
    """A shield by name (buckler|medium|large|pavise) or notation `.4.` `(6)` `[8]` (SRP-11).

    >>> parse_shield("large"), parse_shield(".5.")
    (Shield('[8]'), Shield('.5.'))
    """
    cleaned = str(text).strip().lower()
    try:
        kind = ShieldKind(cleaned)
    except ValueError:
        kind = None
    if kind is not None:
        ap = pavise_ap if kind is ShieldKind.PAVISE else _MELEE_AP[kind]
        return Shield(kind, ap)
    found = _NOTATION.match(cleaned)
    if found is None:
        raise RuleError(
            f"unknown shield {text!r} (expected buckler, medium, large, pavise "
            "or a notation like '.4.', '(6)', '[8]')"
        )
    kinds = (ShieldKind.BUCKLER, ShieldKind.MEDIUM, ShieldKind.LARGE)
    for kind_of, digits in zip(kinds, found.groups(), strict=True):
        if digits is not None:
            return Shield(kind_of, int(digits))
    raise AssertionError("unreachable")  # pragma: no cover


class Code(enum.Enum):
    """A weapon's special code letter (SRP-16)."""

    DISARM = "D"
    """May declare a disarm."""
    ENTANGLE = "E"
    """May declare an entangle (against Avoid only)."""
    GRAPPLE = "G"
    """May declare a grapple."""
    STUN = "S*"
    """Not declared: a hit at special level or better also stuns for one round."""
    UNHORSE = "U"
    """May declare an unhorse against a mounted defender."""


def parse_codes(items: Any, where: str = "codes") -> frozenset[Code]:
    """Weapon codes from a list like ["D", "S*"] or a string like "D,S*".

    >>> sorted(c.value for c in parse_codes("D, S*"))
    ['D', 'S*']
    """
    if isinstance(items, str):
        items = [part for part in items.replace(" ", "").split(",") if part]
    if not isinstance(items, list | tuple):
        raise RuleError(f"{where} = {items!r} is not a list of codes")
    out = set()
    for item in items:
        try:
            out.add(Code(str(item).strip().upper()))
        except ValueError:
            known = ", ".join(c.value for c in Code)
            raise RuleError(f"unknown weapon code {item!r} in {where} (expected {known})") from None
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon as a gear pack describes it (numbers are campaign data, SRP-19).

    >>> Weapon("spear", damage=3, reach=3.0).long
    True
    """

    name: str
    damage: int = 0
    codes: frozenset[Code] = field(default_factory=frozenset)
    reach: float = 1.5
    hands: int = 1
    rof: int = 1
    effective_range: float | None = None
    long_range: float | None = None
    thrown: bool = False

    @property
    def long(self) -> bool:
        """A long weapon: reach beyond 1.5 m (SRP-15)."""
        return self.reach > 1.5

    @property
    def missile(self) -> bool:
        """A missile weapon: it has an effective range (SRP-13)."""
        return self.effective_range is not None

    def has(self, code: Code) -> bool:
        """Whether the weapon carries this special code."""
        return code in self.codes


#: A bare hand: no damage, no codes, reach 1.5 m.
UNARMED = Weapon("unarmed")


@dataclass(frozen=True, slots=True)
class GearPack:
    """Weapons and armors by name, from a TOML gear pack (SRP-19)."""

    name: str
    example: bool
    weapons: Mapping[str, Weapon]
    armors: Mapping[str, int]
    note: str = ""

    def weapon(self, name: str) -> Weapon:
        """The weapon called `name`, or a RuleError listing the known ones."""
        try:
            return self.weapons[name]
        except KeyError:
            known = ", ".join(sorted(self.weapons)) or "none"
            raise RuleError(f"unknown weapon {name!r} (known: {known})") from None

    def armor(self, name: str) -> int:
        """The AP of the armor called `name`, or a RuleError listing the known ones."""
        try:
            return self.armors[name]
        except KeyError:
            known = ", ".join(sorted(self.armors)) or "none"
            raise RuleError(f"unknown armor {name!r} (known: {known})") from None


def weapon_from_table(name: str, table: Table) -> Weapon:
    """One `[weapons.NAME]` table of a gear pack; RulePackError names the bad key."""
    codes_raw = table.get("codes", list, [])
    try:
        codes = parse_codes(codes_raw, f"{table.where}.codes")
    except RuleError as err:
        raise RulePackError(str(err)) from None
    reach = table.number("reach", 1.5)
    if reach not in REACHES:
        raise RulePackError(f"{table.where}.reach = {reach!r} is not one of 1.5, 3, 4.5 (metres)")
    effective = table.optional_number("effective_range")
    long_range = table.optional_number("long_range")
    if long_range is not None and (effective is None or long_range < effective):
        raise RulePackError(f"{table.where}.long_range needs an effective_range no longer than it")
    weapon = Weapon(
        name=name,
        damage=table.integer("damage", 0, low=-10, high=50),
        codes=codes,
        reach=reach,
        hands=table.integer("hands", 1, low=1, high=2),
        rof=table.integer("rof", 1, low=1, high=10),
        effective_range=effective,
        long_range=long_range,
        thrown=table.get("thrown", bool, False),
    )
    table.finish()
    return weapon


def load_pack(data: Mapping[str, Any], where: str = "pack") -> GearPack:
    """A gear pack from a parsed TOML mapping; RulePackError names the bad key.

    >>> pack = load_pack({"weapons": {"club": {"damage": 1}}, "armor": {"leather": 2}})
    >>> pack.weapon("club").damage, pack.armor("leather")
    (1, 2)
    """
    top = Table(data, where)
    meta = Table(top.get("pack", dict, {}), f"{where}.pack")
    name = meta.get("name", str, "unnamed")
    example = meta.get("example", bool, False)
    note = meta.get("note", str, "")
    meta.finish()
    weapons_raw = top.get("weapons", dict, {})
    weapons = {
        key: weapon_from_table(key, Table(top.sub(weapons_raw, key), f"{where}.weapons.{key}"))
        for key in weapons_raw
    }
    armors_table = Table(top.get("armor", dict, {}), f"{where}.armor")
    armors = {key: armors_table.integer(key, 0, low=0, high=100) for key in armors_table.names()}
    armors_table.finish()
    top.finish()
    return GearPack(name=name, example=example, weapons=weapons, armors=armors, note=note)


def read_pack(path: str | Path) -> GearPack:
    """Load a gear pack TOML file; unreadable or invalid files are a RulePackError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise RulePackError(f"cannot read gear pack {str(path)!r}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise RulePackError(f"gear pack {str(path)!r} is not UTF-8 text") from None
    return load_pack(parse_toml(text, str(path)), where=Path(path).name)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text, turning syntax errors into a RulePackError naming the source."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulePackError(f"{source!r} is not valid TOML: {err}") from None


def example_pack() -> GearPack:
    """The shipped example gear pack (SRP-19: example values, not rules).

    >>> example_pack().example
    True
    """
    text = (
        resources.files("referee.systems.srp")
        .joinpath("data/example-gear.toml")
        .read_text(encoding="utf-8")
    )
    return load_pack(parse_toml(text, "example-gear.toml"), where="example-gear.toml")
