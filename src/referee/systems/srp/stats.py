"""A sheet as a fighter's stats in a bout: plain JSON, no floats (events are hashed).

Lengths are whole centimetres (`x_cm`, `reach_cm`, ...) and facing whole degrees, so a
sheet survives the trip through the event log unchanged. Three bout-only entries ride
along: `holds` (whom this fighter grapples or entangles), `extra_attack_round` (the
round it last made its charge-through extra attack, SRP-15) and `out_since` (the evening's
minute it last passed out at -1 PM, SRP-17; it carries from fight to fight).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.errors import RuleError
from referee.systems.srp.gear import Shield, Weapon, parse_codes, parse_shield
from referee.systems.srp.levels import MAX_SKILL
from referee.systems.srp.packdata import Table
from referee.systems.srp.sheet import Sheet, parse_defense
from referee.vocabulary import JSON

BOUT_KEYS = ("holds", "extra_attack_round", "out_since")


def cm(metres: float | None) -> int | None:
    """Metres to whole centimetres.

    >>> cm(1.5), cm(None)
    (150, None)
    """
    return None if metres is None else round(metres * 100)


def weapon_to_json(weapon: Weapon) -> dict[str, JSON]:
    """A weapon as JSON values."""
    codes: list[JSON] = [c.value for c in sorted(weapon.codes, key=lambda c: c.value)]
    return {
        "name": weapon.name,
        "damage": weapon.damage,
        "codes": codes,
        "reach_cm": cm(weapon.reach),
        "hands": weapon.hands,
        "rof": weapon.rof,
        "effective_range_cm": cm(weapon.effective_range),
        "long_range_cm": cm(weapon.long_range),
        "thrown": weapon.thrown,
    }


def sheet_to_stats(sheet: Sheet) -> dict[str, JSON]:
    """A sheet as bout stats.

    >>> s = sheet_to_stats(Sheet("Bran", hits=10, x=1.5, placed=True))
    >>> s["hits"], s["x_cm"], s["weapons"][0]["reach_cm"]
    (10, 150, 150)
    """
    return {
        "hits": sheet.hits,
        "weapons": [weapon_to_json(w) for w in sheet.weapons],
        "skills": dict(sheet.skills),
        "defense": sheet.defense,
        "avoid": sheet.avoid,
        "defend": sheet.defend.value,
        "dam": sheet.dam,
        "armor": sheet.armor,
        "shield": None if sheet.shield is None else sheet.shield.notation,
        "pm": sheet.pm,
        "spirit": sheet.spirit,
        "mana": sheet.mana,
        "mounted": sheet.mounted,
        "x_cm": cm(sheet.x) if sheet.placed else None,
        "y_cm": cm(sheet.y) if sheet.placed else None,
        "facing": round(sheet.facing) % 360,
        "initiative": sheet.initiative,
    }


def _weapon(data: Any, where: str) -> Weapon:
    table = Table(data, where)
    name = table.get("name", str, "")
    if not name:
        raise RuleError(f"{where}.name is missing")
    effective = table.data.get("effective_range_cm")
    long_range = table.data.get("long_range_cm")
    weapon = Weapon(
        name=name,
        damage=table.integer("damage", 0, low=-10, high=50),
        codes=parse_codes(table.get("codes", list, []), f"{where}.codes"),
        reach=table.integer("reach_cm", 150, low=150, high=450) / 100,
        hands=table.integer("hands", 1, low=1, high=2),
        rof=table.integer("rof", 1, low=1, high=10),
        effective_range=None
        if effective is None
        else table.integer("effective_range_cm", 0, high=10**6) / 100,
        long_range=None
        if long_range is None
        else table.integer("long_range_cm", 0, high=10**6) / 100,
        thrown=table.get("thrown", bool, False),
    )
    table.used.update({"effective_range_cm", "long_range_cm"})
    table.finish()
    return weapon


def sheet_from_stats(name: str, stats: Mapping[str, Any], *, pavise_ap: int = 0) -> Sheet:
    """Bout stats back to a sheet; a RulePackError names a bad key.

    >>> sheet_from_stats("Bran", sheet_to_stats(Sheet("Bran", hits=10))).hits
    10
    """
    table = Table(stats, f"stats of {name}")
    raw_weapons = table.get("weapons", list, [])
    weapons = tuple(_weapon(w, f"{table.where}.weapons[{i}]") for i, w in enumerate(raw_weapons))
    skills = Table(table.get("skills", dict, {}), f"{table.where}.skills")
    x, y = table.data.get("x_cm"), table.data.get("y_cm")
    placed = x is not None and y is not None
    sheet = Sheet(
        name=name,
        hits=table.integer("hits", 0, low=1, high=1000) if table.has("hits") else _no_hits(name),
        weapons=weapons or Sheet(name, 1).weapons,
        skills={k: skills.integer(k, 0, high=MAX_SKILL) for k in skills.names()},
        defense=table.integer("defense", 10, high=MAX_SKILL),
        avoid=None
        if table.data.get("avoid") is None
        else table.integer("avoid", 0, high=MAX_SKILL),
        defend=parse_defense(table.get("defend", str, "weapon")),
        dam=table.integer("dam", 0, low=-10, high=50),
        armor=table.integer("armor", 0, high=100),
        shield=_shield(table, pavise_ap),
        pm=table.integer("pm", 0, low=-1, high=100),
        spirit=table.integer("spirit", 0, high=100),
        mana=table.integer("mana", 0, high=1000),
        mounted=table.get("mounted", bool, False),
        x=table.integer("x_cm", 0, low=-(10**6), high=10**6) / 100 if placed else 0.0,
        y=table.integer("y_cm", 0, low=-(10**6), high=10**6) / 100 if placed else 0.0,
        facing=float(table.integer("facing", 0, low=-360, high=360) % 360),
        initiative=table.integer("initiative", 0, low=-100, high=100),
        placed=placed,
    )
    table.used.update({"avoid", "x_cm", "y_cm", *BOUT_KEYS})
    table.finish()
    return sheet


def _no_hits(name: str) -> int:
    raise RuleError(f"stats of {name}: 'hits' (the hit total, SRP-9) is missing")


def _shield(table: Table, pavise_ap: int) -> Shield | None:
    raw = table.data.get("shield")
    table.used.add("shield")
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise RuleError(f"{table.where}.shield = {raw!r} is not a shield name or notation")
    return parse_shield(raw, pavise_ap=pavise_ap)


def check_stats(stats: Mapping[str, Any], *, pavise_ap: int = 0) -> dict[str, JSON]:
    """Validate stats and return them normalized (the bout-only entries kept).

    >>> check_stats({"hits": 9})["defense"]
    10
    """
    sheet = sheet_from_stats("fighter", stats, pavise_ap=pavise_ap)
    out = sheet_to_stats(sheet)
    holds = stats.get("holds")
    if holds is not None and not isinstance(holds, str):
        raise RuleError(f"holds = {holds!r} is not a fighter's name")
    round_ = stats.get("extra_attack_round")
    if round_ is not None and (isinstance(round_, bool) or not isinstance(round_, int)):
        raise RuleError(f"extra_attack_round = {round_!r} is not a round number")
    out_since = stats.get("out_since")
    if out_since is not None and (
        isinstance(out_since, bool) or not isinstance(out_since, int) or out_since < 0
    ):
        raise RuleError(f"out_since = {out_since!r} is not a minute of the evening (>= 0)")
    out["holds"] = holds
    out["extra_attack_round"] = round_
    if out_since is not None:  # only once it has passed out: older sheets stay as they were
        out["out_since"] = out_since
    return out
