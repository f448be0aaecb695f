"""MSV rule packs: every (option) of MSV-1..MSV-10, validated on load."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from referee.errors import RulePackError
from referee.systems.msv.rules import (
    KNOWN_KEYS,
    CriticalEffect,
    MsvRules,
    TieBreak,
    default_rules,
    load_rules,
    rules_from_mapping,
    rules_from_text,
)


def test_default_pack_is_the_texts_reading() -> None:
    # MSV-3 band 15 cap 4, MSV-4 stun-free-attack, MSV-5 reroll, MSV-7 threshold 15
    assert default_rules() == MsvRules(
        band_width=15,
        damage_cap=4,
        critical_effect=CriticalEffect.STUN_FREE_ATTACK,
        critical_extra_damage=1,
        tie_break=TieBreak.REROLL,
        defeat_threshold=15,
    )


def test_default_toml_names_every_key() -> None:
    text = Path("src/referee/systems/msv/default.toml").read_text(encoding="utf-8")
    assert sorted(tomllib.loads(text)) == sorted(KNOWN_KEYS)


def test_every_option_switches() -> None:
    rules = rules_from_mapping(
        {
            "band_width": 10,
            "damage_cap": 5,
            "critical_effect": "extra-damage",
            "critical_extra_damage": 2,
            "tie_break": "higher-raw-roll",
            "defeat_threshold": 20,
        }
    )
    assert rules == MsvRules(10, 5, CriticalEffect.EXTRA_DAMAGE, 2, TieBreak.HIGHER_RAW_ROLL, 20)
    assert rules_from_mapping({"critical_effect": "none"}).critical_effect is CriticalEffect.NONE


def test_to_json_has_no_floats_and_round_trips() -> None:
    data = MsvRules().to_json()
    assert all(isinstance(v, int | str) for v in data.values())
    assert rules_from_mapping(json.loads(json.dumps(data))) == MsvRules()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"dmg_cap": 3}, "unknown key 'dmg_cap' in rule pack 'x.toml' (known: band_width,"),
        ({"damage_cap": True}, "key 'damage_cap' in rule pack 'x.toml' must be a whole number"),
        ({"damage_cap": 2.5}, "must be a whole number, got 2.5"),
        ({"band_width": 0}, "key 'band_width' in rule pack 'x.toml' must be in 1..100, got 0"),
        ({"defeat_threshold": 101}, "must be in 1..100, got 101"),
        ({"critical_effect": "stun"}, "must be one of 'stun-free-attack', 'none', 'extra-dam"),
        ({"tie_break": 1}, "key 'tie_break' in rule pack 'x.toml' must be one of"),
    ],
)
def test_bad_packs_name_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(RulePackError) as err:
        rules_from_mapping(data, "x.toml")
    assert message in str(err.value)


def test_bad_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="is not valid TOML"):
        rules_from_text("band_width = ", "bad.toml")
    with pytest.raises(RulePackError, match="cannot read rule pack"):
        load_rules(tmp_path / "missing.toml")


def test_load_file(tmp_path: Path) -> None:
    path = tmp_path / "pack.toml"
    path.write_text('critical_effect = "none"\ndefeat_threshold = 10\n', encoding="utf-8")
    rules = load_rules(path)
    assert (rules.critical_effect, rules.defeat_threshold, rules.damage_cap) == (
        CriticalEffect.NONE,
        10,
        4,
    )
