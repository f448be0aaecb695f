"""MSV attacks: success (MSV-2), damage bands (MSV-3), criticals (MSV-4)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.rng import ScriptedRng
from referee.systems.msv.attack import CombatSkill, attack, check_cs, interpret
from referee.systems.msv.rules import CriticalEffect, MsvRules, rules_from_mapping

GOLDEN = tomllib.loads(Path("tests/golden/msv_text.toml").read_text(encoding="utf-8"))
EXTRA = rules_from_mapping({"critical_effect": "extra-damage", "critical_extra_damage": 3})
NONE = rules_from_mapping({"critical_effect": "none"})


def test_damage_chart_from_the_text() -> None:
    # MSV-3: the text's chart, 1-15 -> 1 ... 46 to CS -> 4 (CS 100 so every roll succeeds)
    chart = GOLDEN["damage_chart"]
    for (low, high), damage in zip(chart["rolls"], chart["damage"], strict=True):
        assert {interpret(CombatSkill(100), r).damage for r in range(low, high + 1)} == {damage}


def test_over_cs_is_no_damage_ever() -> None:
    # MSV-2 / MSV-3 "over CS rating -> 0"
    assert [interpret(CombatSkill(65), r).damage for r in (65, 66, 100)] == [4, 0, 0]


@pytest.mark.parametrize(
    ("cs", "roll", "text"),
    [
        (65, 47, "47 vs CS 65: hit, 4 damage"),
        (65, 80, "80 vs CS 65: miss"),
        (
            65,
            40,
            "40 vs CS 65: critical hit, 3 damage - the foe is stunned and the attacker makes a "
            "free attack at once",
        ),
        (0, 1, "1 vs CS 0: miss"),  # MSV-2: CS 0 never succeeds
        (
            100,
            100,
            "100 vs CS 100: critical hit, 4 damage - the foe is stunned and the attacker "
            "makes a free attack at once",
        ),
        (250, 15, "15 vs CS 250: hit, 1 damage"),  # MSV-2: CS >= 100 always succeeds
    ],
)
def test_interpret_text(cs: int, roll: int, text: str) -> None:
    assert str(interpret(CombatSkill(cs), roll)) == text


def test_critical_options() -> None:
    # MSV-4 options
    assert str(interpret(CombatSkill(65), 40, EXTRA)) == (
        "40 vs CS 65: critical hit, 6 damage (3 + 3 extra)"
    )
    assert str(interpret(CombatSkill(65), 40, NONE)) == "40 vs CS 65: critical hit, 3 damage"
    assert not interpret(CombatSkill(65), 40, NONE).free_attack
    assert not interpret(CombatSkill(35), 40).critical  # a failure ending in 0 is no critical


def test_attack_rolls_one_d100() -> None:
    rng = ScriptedRng([47, 3])
    assert attack(CombatSkill(65), rng).to_json() == {
        "cs": 65,
        "roll": 47,
        "success": True,
        "damage": 4,
        "critical": False,
        "free_attack": False,
        "extra_damage": 0,
    }
    assert rng.remaining == 1


@pytest.mark.parametrize("bad", [-1, 6.5, True, "65", None])
def test_bad_cs(bad: object) -> None:
    with pytest.raises(RuleError, match="CS must be a whole number >= 0"):
        check_cs(bad)


@pytest.mark.parametrize("bad", [0, 101, -3])
def test_bad_roll(bad: int) -> None:
    with pytest.raises(RuleError, match=f"got {bad}"):
        interpret(CombatSkill(50), bad)


rule_packs = st.builds(
    MsvRules,
    band_width=st.integers(1, 100),
    damage_cap=st.integers(1, 100),
    critical_effect=st.sampled_from(CriticalEffect),
    critical_extra_damage=st.integers(1, 100),
)


@given(cs=st.integers(0, 300), roll=st.integers(1, 100), rules=rule_packs)
def test_damage_properties(cs: int, roll: int, rules: MsvRules) -> None:
    hit = interpret(CombatSkill(cs), roll, rules)
    assert hit.success == (roll <= cs)  # MSV-2
    if not hit.success:
        assert (hit.damage, hit.critical, hit.free_attack) == (0, False, False)
    else:
        assert 1 <= hit.damage - hit.extra_damage <= rules.damage_cap  # MSV-3 cap
        assert hit.critical == (roll % 10 == 0)  # MSV-4
    assert hit.damage <= rules.damage_cap + rules.critical_extra_damage
    assert hit.free_attack == (hit.critical and rules.free_attacks)
