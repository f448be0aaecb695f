"""SRP special combat actions and the conditions they leave (SRP-16)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.errors import RuleError
from referee.rng import ScriptedRng
from referee.systems.srp.actions import (
    Condition,
    Special,
    break_free,
    resolve_special,
    special_action,
    why_blocked,
)
from referee.systems.srp.gear import Code, Weapon
from referee.systems.srp.levels import Level
from referee.systems.srp.melee import Attack, Defense, resolve
from referee.systems.srp.rules import SrpRules
from referee.systems.srp.sheet import DefenseKind

W, SH, AV, NO = DefenseKind.WEAPON, DefenseKind.SHIELD, DefenseKind.AVOID, DefenseKind.NONE


def armed(*codes: Code) -> Weapon:
    return Weapon("test", codes=frozenset(codes))


def effects(result: object) -> list[tuple[str, str]]:
    return [(e.on, e.condition.value) for e in result.effects]  # type: ignore[attr-defined]


def test_disarm_needs_attack_success_and_failed_weapon_defense() -> None:
    whip = armed(Code.DISARM)
    worked = resolve_special(Special.DISARM, whip, Attack(skill=12), Defense(kind=W), (5, 15, 1))
    assert worked.worked and effects(worked) == [("defender", "disarmed")]
    parried = resolve_special(Special.DISARM, whip, Attack(skill=12), Defense(kind=W), (5, 9, 1))
    assert not parried.worked and effects(parried) == []
    missed = resolve_special(Special.DISARM, whip, Attack(skill=12), Defense(kind=W), (15, 15, 1))
    assert not missed.worked


def test_disarm_against_avoid_has_no_effect() -> None:  # SRP-16: a weapon defense failed
    r = resolve_special(
        Special.DISARM, armed(Code.DISARM), Attack(skill=12), Defense(kind=AV), (5, 15, 1)
    )
    assert not r.worked and "disarm needs a weapon defense" in r.explanation[2]


def test_entangle_only_against_avoid() -> None:
    net = armed(Code.ENTANGLE)
    with pytest.raises(RuleError, match="entangle works only against Avoid"):
        resolve_special(Special.ENTANGLE, net, Attack(skill=12), Defense(kind=W), (5, 15, 1))
    r = resolve_special(Special.ENTANGLE, net, Attack(skill=12), Defense(kind=AV), (5, 15, 1))
    assert effects(r) == [("defender", "entangled"), ("attacker", "entangling")]


def test_grapple_against_any_failed_defense() -> None:
    hands = armed(Code.GRAPPLE)
    for kind in (W, AV):
        r = resolve_special(
            Special.GRAPPLE, hands, Attack(skill=12), Defense(kind=kind), (5, 15, 1)
        )
        assert effects(r) == [("defender", "grappled"), ("attacker", "grappling")]


def test_unhorse_needs_a_mounted_defender_and_costs_both_an_action() -> None:
    hook = armed(Code.UNHORSE)
    with pytest.raises(RuleError, match="mounted"):
        resolve_special(Special.UNHORSE, hook, Attack(skill=12), Defense(), (5, 15, 1))
    r = resolve_special(
        Special.UNHORSE, hook, Attack(skill=12), Defense(), (5, 15, 1), mounted=True
    )
    assert effects(r) == [
        ("defender", "dismounted"),
        ("defender", "lost_action"),
        ("attacker", "lost_action"),
    ]


def test_weapon_without_the_code_cannot_declare() -> None:
    with pytest.raises(RuleError, match="code 'G'"):
        special_action(
            Special.GRAPPLE, Weapon("sword"), Attack(skill=12), Defense(), ScriptedRng([1, 20, 1])
        )


def test_special_action_throws_three_dice_once() -> None:
    rng = ScriptedRng([5, 15, 6])
    r = special_action(Special.GRAPPLE, armed(Code.GRAPPLE), Attack(skill=12), Defense(), rng)
    assert r.faces == (5, 15, 6) and rng.remaining == 0


def test_grappler_attacks_hit_automatically_but_keep_the_attack_level() -> None:  # SRP-16
    auto = Attack(skill=12, weapon_damage=2, automatic=True)
    failed_die = resolve(auto, Defense(kind=W, skill=19), (20, 1, 3))
    assert failed_die.hit_level is Level.SUCCESS and failed_die.defense_level is None
    special = resolve(auto, Defense(kind=W, skill=19), (3, 1, 3))
    assert special.hit_level is Level.SPECIAL


def test_conditions_and_what_they_forbid() -> None:
    assert why_blocked([Condition.STUNNED], "attack") == "is stunned: it loses this action"
    assert why_blocked([Condition.STUNNED], "pass") is None
    assert why_blocked([Condition.LOST_ACTION], "move") == "loses this action"
    assert why_blocked([Condition.DISARMED], "attack") == "is disarmed: pick the weapon up first"
    assert why_blocked([Condition.DISARMED], "pick_up") is None
    assert why_blocked([Condition.ENTANGLED], "move") is not None
    assert why_blocked([Condition.ENTANGLED], "step") is None
    assert why_blocked([Condition.ENTANGLING], "attack") is not None
    assert why_blocked([Condition.GRAPPLED], "attack", weapon_hands=1) is None
    assert why_blocked([Condition.GRAPPLED], "attack", weapon_hands=2) is not None
    assert why_blocked([Condition.GRAPPLED], "break_free") is None
    assert why_blocked([Condition.DISMOUNTED], "attack") is None


def test_durations() -> None:
    assert Condition.STUNNED.rounds == 1 and Condition.LOST_ACTION.rounds == 1
    assert Condition.GRAPPLED.rounds is None and Condition.DISARMED.rounds is None


def test_break_free_roll() -> None:  # SRP-16: d20 at or under defense
    assert break_free(10, 10).freed
    assert not break_free(11, 10).freed
    assert not break_free(20, 25).freed
    assert break_free(20, 25, SrpRules(defense_twenty_fails=False)).freed


def test_cli_special_grapple() -> None:
    result = CliRunner().invoke(
        cli,
        ["srp", "special", "grapple", "--skill", "13", "--defend", "weapon", "--dice", "5,15,1"],
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "grapple: attack d20 rolled 5 vs 13 -> success",
        "defense (weapon): d20 rolled 15 vs 10 -> failure",
        "grapple works: defender grappled, attacker grappling",
    ]


def test_cli_special_json_and_errors() -> None:
    ok = CliRunner().invoke(
        cli,
        [
            "srp",
            "special",
            "unhorse",
            "--skill",
            "13",
            "--defend",
            "none",
            "--mounted",
            "--dice",
            "5,15,1",
            "--json",
        ],
    )
    assert json.loads(ok.stdout)["worked"] is True
    bad = CliRunner().invoke(cli, ["srp", "special", "trip", "--skill", "13", "--defend", "none"])
    assert bad.exit_code == 2 and "'trip'" in bad.stderr and bad.stderr.count("\n") == 1
    wrong = CliRunner().invoke(
        cli, ["srp", "special", "entangle", "--skill", "13", "--defend", "weapon"]
    )
    assert wrong.exit_code == 2 and "Avoid" in wrong.stderr
