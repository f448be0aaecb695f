"""SRP gear packs, shields, sheets and rule packs (SRP-10, 11, 19 and the options)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.errors import NotationError, RuleError, RulePackError
from referee.systems.srp.combatants import attack_from, defense_from, sheet_from_spec
from referee.systems.srp.gear import (
    Code,
    ShieldKind,
    example_pack,
    load_pack,
    parse_codes,
    parse_shield,
    read_pack,
)
from referee.systems.srp.rules import Challenge, Down, SrpRules, TurnOrder, load_rules
from referee.systems.srp.sheet import DefenseKind, parse_defense, sheet_from_table


@pytest.mark.parametrize(
    ("text", "kind", "ap", "missile"),
    [
        ("buckler", ShieldKind.BUCKLER, 4, 8),  # SRP-11
        ("medium", ShieldKind.MEDIUM, 6, 12),
        ("large", ShieldKind.LARGE, 8, 16),
        ("pavise", ShieldKind.PAVISE, 0, 19),
        (".6.", ShieldKind.BUCKLER, 6, 8),  # notation names the size and the AP
        ("(6)", ShieldKind.MEDIUM, 6, 12),
        ("[8]", ShieldKind.LARGE, 8, 16),
        (" Large ", ShieldKind.LARGE, 8, 16),
    ],
)
def test_shields(text: str, kind: ShieldKind, ap: int, missile: int) -> None:
    shield = parse_shield(text)
    assert (shield.kind, shield.ap, shield.missile_defense) == (kind, ap, missile)


def test_pavise_ap_from_a_pack_and_notation_round_trip() -> None:
    assert parse_shield("pavise", pavise_ap=3).ap == 3
    for text in (".4.", "(6)", "[10]"):
        assert parse_shield(text).notation == text


@pytest.mark.parametrize("bad", ["kite", "(6", "[x]", ".4", ""])
def test_unknown_shield(bad: str) -> None:
    with pytest.raises(RuleError, match="unknown shield"):
        parse_shield(bad)


def test_codes_and_defense_kinds() -> None:
    assert parse_codes(["d", "S*"]) == frozenset({Code.DISARM, Code.STUN})
    with pytest.raises(RuleError, match="unknown weapon code 'X'"):
        parse_codes(["X"])
    assert parse_defense("Avoid") is DefenseKind.AVOID
    with pytest.raises(RuleError, match="'dodge'"):
        parse_defense("dodge")


def test_example_pack_is_marked_as_example() -> None:  # SRP-19
    pack = example_pack()
    assert pack.example and "not from the SRP text" in pack.note
    assert pack.weapon("javelin").thrown and pack.weapon("pike").reach == 4.5
    assert pack.weapon("mace").has(Code.STUN)
    text = (
        Path(__file__).parents[1] / "src/referee/systems/srp/data/example-gear.toml"
    ).read_text()
    assert text.startswith("# EXAMPLE VALUES ONLY (SRP-19).")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"weapons": {"club": {"dammage": 1}}}, "unknown key pack.weapons.club.dammage"),
        ({"weapons": {"club": {"damage": "big"}}}, "pack.weapons.club.damage = 'big'"),
        ({"weapons": {"club": {"reach": 2}}}, "pack.weapons.club.reach = 2.0"),
        ({"weapons": {"club": {"codes": ["Q"]}}}, "unknown weapon code 'Q'"),
        ({"weapons": {"bow": {"long_range": 10}}}, "pack.weapons.bow.long_range"),
        ({"armor": {"chain": -1}}, "pack.armor.chain = -1"),
        ({"weapon": {}}, "unknown key pack.weapon"),
        ({"pack": {"example": "yes"}}, "pack.pack.example = 'yes'"),
    ],
)
def test_bad_gear_pack_names_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(RulePackError) as err:
        load_pack(data)
    assert message in str(err.value)


def test_read_pack_errors(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="cannot read"):
        read_pack(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[weapons\n")
    with pytest.raises(RulePackError, match="not valid TOML"):
        read_pack(broken)


def test_sheet_from_table() -> None:
    sheet = sheet_from_table(
        "Ann",
        {
            "weapon": ["spear", "dagger"],
            "skill": {"spear": 15, "dagger": 11},
            "armor": "chain",
            "shield": "(6)",
            "hits": 14,
            "position": [3, 1.5],
            "facing": -90,
            "defend": "shield",
        },
        example_pack(),
    )
    assert (sheet.skill(), sheet.skill("dagger"), sheet.armor, sheet.facing) == (15, 11, 5, 270.0)
    assert sheet.defense == 10  # SRP-10
    attack = attack_from(sheet)
    assert (attack.skill, attack.weapon_damage) == (15, 3)
    defense = defense_from(sheet)
    assert defense.shield is not None
    assert (defense.kind, defense.skill, defense.armor, defense.shield.ap) == (
        DefenseKind.SHIELD,
        10,
        5,
        6,
    )
    assert defense_from(sheet, missile=True).skill == 12


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "sheet.hits is missing"),
        ({"hits": 5, "weapon": "laser"}, "unknown weapon 'laser'"),
        ({"hits": 5, "armor": "mithril"}, "unknown armor 'mithril'"),
        ({"hits": 5, "shield": "kite"}, "unknown shield 'kite'"),
        ({"hits": 5, "skill": 101}, "sheet.skill = 101"),
        ({"hits": 5, "speed": 3}, "unknown key sheet.speed"),
        ({"hits": 5, "defend": "dodge"}, "'dodge'"),
    ],
)
def test_bad_sheet(data: dict[str, object], message: str) -> None:
    with pytest.raises(RulePackError) as err:
        sheet_from_table("X", data, example_pack())
    assert message in str(err.value)


def test_sheet_spec() -> None:
    sheet = sheet_from_spec("A", "skill=15 damage=3, dam=1 defend=avoid avoid=13 hits=9 codes=G")
    assert (
        sheet.skill(),
        sheet.weapon.damage,
        sheet.dam,
        sheet.defense_skill(DefenseKind.AVOID),
        sheet.hits,
        sheet.weapon.codes,
    ) == (15, 3, 1, 13, 9, frozenset({Code.GRAPPLE}))
    with pytest.raises(NotationError, match="'speed'"):
        sheet_from_spec("A", "speed=3")
    with pytest.raises(NotationError, match="'skill'"):
        sheet_from_spec("A", "skill")
    with pytest.raises(RuleError, match="skill=150"):
        sheet_from_spec("A", "skill=150")


def test_rule_pack_options() -> None:
    rules = load_rules(
        {
            "defense_twenty_fails": False,
            "shield_keeps_level": True,
            "challenge": ">",
            "down": "exceed",
            "turn_order": "roll",
            "pavise_ap": 2,
        }
    )
    assert rules == SrpRules(False, True, Challenge.ABOVE, Down.EXCEED, TurnOrder.ROLL, 2)
    assert load_rules({}) == SrpRules()
    with pytest.raises(RulePackError, match=r"unknown key srp\.shield_keep"):
        load_rules({"shield_keep": True})
    with pytest.raises(RulePackError, match=r"srp\.challenge = '=>'"):
        load_rules({"challenge": "=>"})
    with pytest.raises(RulePackError, match=r"srp\.pavise_ap = -1"):
        load_rules({"pavise_ap": -1})
    with pytest.raises(RulePackError, match=r"srp\.shield_keeps_level = 1"):
        load_rules({"shield_keeps_level": 1})
