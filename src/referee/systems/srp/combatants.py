"""From sheets to the records the resolvers take: `Attack`, `Defense`, and short sheet specs."""

from __future__ import annotations

from referee.errors import NotationError, RuleError
from referee.keyvalue import Pair, PairError, read_all
from referee.systems.srp.gear import Code, GearPack, Weapon, parse_codes, parse_shield
from referee.systems.srp.levels import check_skill
from referee.systems.srp.melee import Attack, Defense
from referee.systems.srp.missile import missile_defense
from referee.systems.srp.sheet import DEFAULT_DEFENSE, DefenseKind, Sheet, parse_defense


def attack_from(
    sheet: Sheet,
    *,
    weapon: Weapon | None = None,
    rear: bool = False,
    modifier: int = 0,
    automatic: bool = False,
) -> Attack:
    """The `Attack` a sheet makes with a weapon (default: the one in hand).

    >>> s = Sheet("Bran", hits=10, weapons=(Weapon("club", damage=2),), skills={"club": 13}, dam=1)
    >>> attack_from(s, rear=True).effective_skill
    17
    """
    arm = weapon or sheet.weapon
    return Attack(
        skill=sheet.skill(arm.name),
        weapon_damage=arm.damage,
        dam=sheet.dam,
        rear=rear,
        modifier=modifier,
        stun=arm.has(Code.STUN),
        missile=arm.missile,
        thrown=arm.thrown,
        automatic=automatic,
    )


def defense_from(
    sheet: Sheet, kind: DefenseKind | None = None, *, missile: bool = False
) -> Defense:
    """The `Defense` a sheet puts up: melee by its chosen kind, or the shield against missiles.

    >>> defense_from(Sheet("Bran", hits=10, armor=3)).armor
    3
    """
    if missile:
        return missile_defense(sheet.shield, sheet.armor)
    chosen = kind or sheet.defend
    return Defense(
        kind=chosen, skill=sheet.defense_skill(chosen), armor=sheet.armor, shield=sheet.shield
    )


_SPEC_KEYS = (
    "skill",
    "damage",
    "dam",
    "defense",
    "avoid",
    "defend",
    "shield",
    "armor",
    "hits",
    "codes",
)


def sheet_from_spec(
    name: str, text: str, pack: GearPack | None = None, *, pavise_ap: int = 0
) -> Sheet:
    """A sheet from a short spec: `skill=15 damage=3 dam=1 defense=12 defend=shield
    shield=medium armor=4 hits=12` (spaces or commas between; `weapon=NAME` from a pack).

    >>> s = sheet_from_spec("A", "skill=15,damage=3,defend=shield,shield=(6),hits=12")
    >>> s.skill(), s.weapon.damage, s.shield, s.defense
    (15, 3, Shield('(6)'), 10)
    """
    pairs = _pairs(text)
    weapon = _spec_weapon(pairs, pack)
    try:
        sheet = Sheet(
            name=name,
            hits=_spec_int(pairs, "hits", 1, low=1, high=1000),
            weapons=(weapon,),
            skills={weapon.name: check_skill(_spec_int(pairs, "skill", 0, high=100))},
            defense=check_skill(_spec_int(pairs, "defense", DEFAULT_DEFENSE, high=100), "defense"),
            avoid=_spec_int(pairs, "avoid", 0, high=100) if "avoid" in pairs else None,
            defend=parse_defense(_spec_text(pairs, "defend", "weapon")),
            dam=_spec_int(pairs, "dam", 0, low=-10, high=50),
            armor=_spec_int(pairs, "armor", 0, high=100),
            shield=parse_shield(pairs["shield"].text, pavise_ap=pavise_ap)
            if "shield" in pairs
            else None,
        )
    except RuleError as err:
        raise RuleError(f"in {text!r}: {err}") from None
    return sheet


def spec_keys(text: str) -> frozenset[str]:
    """The keys a short spec gives (checked like `sheet_from_spec` checks them).

    >>> sorted(spec_keys("skill=15, Hits=12"))
    ['hits', 'skill']
    """
    return frozenset(_pairs(text))


def _pairs(text: str) -> dict[str, Pair]:
    """The spec's `key=value` items (`referee.keyvalue`, as chat and Discord read them), by key
    in lower case with `-` as `_`."""
    items = text.replace(",", " ").split()
    try:
        read = read_all(items, fold=True)
    except PairError as err:
        raise NotationError(f"in the fighter spec {text!r}: {err}") from None
    out: dict[str, Pair] = {}
    for key, pair in read.items():
        key = key.replace("-", "_")
        if key not in (*_SPEC_KEYS, "weapon"):
            raise NotationError(
                f"unknown key {key!r} in {text!r} (expected: {', '.join((*_SPEC_KEYS, 'weapon'))})"
            )
        out[key] = pair
    return out


def _spec_text(pairs: dict[str, Pair], key: str, default: str) -> str:
    """A key whose value is always text (a name, a code list), as typed."""
    pair = pairs.get(key)
    return default if pair is None else pair.text


def _spec_int(pairs: dict[str, Pair], key: str, default: int, *, low: int = 0, high: int) -> int:
    pair = pairs.get(key)
    if pair is None:
        return default
    value = pair.value
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotationError(f"{key}={pair.text!r} is not a whole number")
    if not low <= value <= high:
        raise RuleError(f"{key}={pair.text!r} is out of range (expected {low}..{high})")
    return value


def _spec_weapon(pairs: dict[str, Pair], pack: GearPack | None) -> Weapon:
    if "weapon" in pairs:
        name = pairs["weapon"].text
        if pack is None:
            raise RuleError(f"weapon={name!r} needs a gear pack")
        return pack.weapon(name)
    codes = parse_codes(_spec_text(pairs, "codes", "").replace("+", ","), "codes")
    return Weapon("weapon", damage=_spec_int(pairs, "damage", 0, low=-10, high=50), codes=codes)
