"""SRP melee: the three dice, the SRP-7 chart, damage (SRP-8), hits (SRP-9), rear (SRP-14)."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.errors import RuleError, ScriptError
from referee.rng import ScriptedRng
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.levels import Level
from referee.systems.srp.melee import Attack, Defense, chart, hits_for, resolve, strike
from referee.systems.srp.rules import SrpRules
from referee.systems.srp.sheet import DefenseKind

F, S, P, C = Level.FAILURE, Level.SUCCESS, Level.SPECIAL, Level.CRITICAL
W, SH, AV, NO = DefenseKind.WEAPON, DefenseKind.SHIELD, DefenseKind.AVOID, DefenseKind.NONE
MEDIUM = parse_shield("medium")


def test_text_example_5_ap_10_damage_is_3_hits() -> None:  # SRP-9, the text's example
    assert hits_for(10, 5) == 3
    # d6 6 + weapon 4 = 10 against AP 5, a normal hit (attack 10 of skill 12, defense 20)
    s = resolve(Attack(skill=12, weapon_damage=4), Defense(armor=5), (10, 20, 6))
    assert (s.hit_level, s.damage, s.armor, s.hits) == (S, 10, 5, 3)


# The text's chart: rows attack level, columns defense (weapon, shield, avoid) succeeding
# at normal level, and a failed defense. (level hit, shield AP added)
TEXT_CHART = {
    (P, W): (S, False),
    (P, SH): (P, True),
    (P, AV): (S, False),
    (P, "fail"): (P, False),
    (S, W): (None, False),
    (S, SH): (S, True),
    (S, AV): (None, False),
    (S, "fail"): (S, False),
    (F, W): (None, False),
    (F, SH): (None, False),
    (F, AV): (None, False),
    (F, "fail"): (None, False),
}


@pytest.mark.parametrize(("cell", "expected"), TEXT_CHART.items())
def test_the_texts_chart(cell: tuple[Level, object], expected: tuple[Level | None, bool]) -> None:
    attack, column = cell  # SRP-7: the text's chart is d = success
    if column == "fail":
        assert chart(attack, F, W)[:2] == expected
    else:
        assert isinstance(column, DefenseKind)
        assert chart(attack, S, column)[:2] == expected


def expected_cell(a: int, d: int | None, kind: DefenseKind, keeps: bool) -> tuple[int | None, bool]:
    """SRP-7 typed out as the ruling states it."""
    if a == 0:
        return None, False
    if d is None or d == 0:
        return a, False
    if kind is SH:
        return (a if keeps else max(1, a - d + 1)), True
    return (a - d if a > d else None), False


@pytest.mark.parametrize("keeps", [False, True])
def test_every_chart_cell(keeps: bool) -> None:  # SRP-7 with its option
    rules = SrpRules(shield_keeps_level=keeps)
    for a, d, kind in itertools.product(range(4), [None, 0, 1, 2, 3], [W, SH, AV]):
        hit, shield_on, _ = chart(Level(a), None if d is None else Level(d), kind, rules)
        want_hit, want_shield = expected_cell(a, d, kind, keeps)
        assert (None if hit is None else int(hit), shield_on) == (want_hit, want_shield)


def test_named_chart_readings() -> None:  # SRP-7 examples in the ruling
    assert chart(C, S, W)[0] is P  # a critical against a normal defense -> special
    assert chart(P, P, SH)[0] is S  # special vs special shield: normal damage
    assert chart(S, C, SH)[0] is S  # never less than normal through a shield
    assert chart(C, C, W)[0] is None
    assert chart(P, P, SH, SrpRules(shield_keeps_level=True))[0] is P


def test_damage_terms_and_special() -> None:  # SRP-8
    s = resolve(Attack(skill=15, weapon_damage=3, dam=2), Defense(armor=5), (3, 14, 6))
    assert (s.attack_level, s.hit_level, s.damage, s.hits) == (P, P, 15, 5)
    assert s.explanation == (
        "attack: d20 rolled 3 vs skill 15 -> special",
        "defense (weapon): d20 rolled 14 vs 10 -> failure",
        "chart: special attack, defense failed: hit at special level",
        "damage: d6 6 + weapon 3 + DAM 2 + high skill 0 + special 4 = 15",
        "armor: AP 5",
        "hits: ceil((15 - 5) / 2) = 5",
    )


def test_critical_halves_shield_plus_armor_and_makes_at_least_one_hit() -> None:  # SRP-8
    defense = Defense(kind=SH, skill=12, armor=5, shield=MEDIUM)
    s = resolve(Attack(skill=10), defense, (1, 5, 1))
    # critical vs normal shield: critical level, AP (5 + 6) // 2 = 5, damage 1 + 4 = 5 -> 0 -> 1
    assert (s.hit_level, s.damage, s.armor, s.hits) == (C, 5, 5, 1)
    assert s.explanation[-1] == "critical: at least one hit -> 1"


def test_rear_attack_adds_4_and_high_skill_bonus_uses_the_total() -> None:  # SRP-6, 8, 14
    s = resolve(Attack(skill=18, rear=True, modifier=3), Defense(kind=NO), (12, 1, 2))
    assert s.effective_skill == 25
    assert s.attack_level is S and s.damage == 2 + 1  # high skill +1 at 25
    assert (
        s.explanation[0]
        == "attack: d20 rolled 12 vs skill 25 (18 + 4 rear + 3 modifier) -> success"
    )


def test_negative_damage_counts_as_zero() -> None:  # SRP-8
    s = resolve(Attack(skill=12, weapon_damage=-5, dam=-2), Defense(kind=NO), (5, 1, 1))
    assert (s.damage, s.hits) == (0, 0)


def test_stun_weapon_stuns_on_special_only() -> None:  # SRP-16 S*
    assert resolve(Attack(skill=15, stun=True), Defense(kind=NO), (4, 1, 3)).stun
    assert not resolve(Attack(skill=15, stun=True), Defense(kind=NO), (9, 1, 3)).stun


def test_defense_twenty_option() -> None:  # SRP-5 option
    defense = Defense(kind=W, skill=25)
    assert resolve(Attack(skill=15), defense, (9, 20, 3)).hit_level is S
    keep = SrpRules(defense_twenty_fails=False)
    assert resolve(Attack(skill=15), defense, (9, 20, 3), keep).hit_level is None


def test_strike_throws_once_in_order() -> None:  # SRP-4
    rng = ScriptedRng([3, 14, 6, 1])
    s = strike(Attack(skill=15, weapon_damage=3, dam=2), Defense(armor=5), rng)
    assert s.faces == (3, 14, 6) and rng.remaining == 1


SHEETS = [
    (
        Attack(skill=s, weapon_damage=w, dam=d, rear=r),
        Defense(kind=k, skill=ds, armor=ap, shield=sh),
    )
    for s, w, d, r, k, ds, ap, sh in [
        (5, 0, 0, False, W, 10, 0, None),
        (12, 3, 1, False, SH, 12, 4, parse_shield("buckler")),
        (15, 2, 2, True, SH, 15, 8, parse_shield("[8]")),
        (20, 4, 0, False, AV, 20, 2, None),
        (26, 1, 3, False, NO, 10, 12, None),
        (30, 5, 2, True, SH, 30, 20, parse_shield("large")),
        (10, -3, -2, False, W, 3, 0, None),
    ]
]


@pytest.mark.parametrize(("attack", "defense"), SHEETS)
def test_invariants_over_all_2400_faces(attack: Attack, defense: Defense) -> None:
    for faces in itertools.product(range(1, 21), range(1, 21), range(1, 7)):
        s = resolve(attack, defense, faces)
        if s.attack_level is F:
            assert s.hit_level is None and s.damage == 0 and s.hits == 0
        if s.hit_level is C:
            assert s.hits >= 1
        if s.hit_level is None:
            assert s.damage == 0 and s.hits == 0
        if defense.kind is SH and s.attack_level >= S and s.defense_level is not F:
            assert s.hit_level is not None and s.hit_level >= S
        assert s.hits == (
            max(1, hits_for(s.damage, s.armor)) if s.hit_level is C else hits_for(s.damage, s.armor)
        )


def test_shield_defense_without_shield_is_an_error() -> None:
    with pytest.raises(RuleError, match="shield defense needs a shield"):
        Defense(kind=SH)


@pytest.mark.parametrize("faces", [(21, 3, 3), (3, 0, 3), (3, 3, 7), (3, 3)])
def test_faces_that_do_not_fit(faces: tuple[int, ...]) -> None:
    with pytest.raises(RuleError):
        resolve(Attack(skill=10), Defense(), faces)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["srp", *args])
    return result.exit_code, result.stdout, result.stderr


def test_cli_attack_text() -> None:
    code, out, _ = run(
        "attack",
        "--skill",
        "15",
        "--defense",
        "12",
        "--defend",
        "shield",
        "--shield",
        "medium",
        "--armor",
        "4",
        "--weapon-damage",
        "3",
        "--dam",
        "1",
        "--dice",
        "3,8,5",
    )
    assert code == 0
    assert out.splitlines() == [
        "attack: d20 rolled 3 vs skill 15 -> special",
        "defense (shield): d20 rolled 8 vs 12 -> success",
        "chart: special attack vs success shield defense: hit at special level, shield AP added",
        "damage: d6 5 + weapon 3 + DAM 1 + high skill 0 + special 4 = 13",
        "armor: AP 4 + shield (6) 6 = 10",
        "hits: ceil((13 - 10) / 2) = 2",
        "result: 2 hits (special hit, damage 13 vs AP 10)",
    ]


def test_cli_attack_json() -> None:
    code, out, _ = run(
        "attack",
        "--skill",
        "20",
        "--defend",
        "weapon",
        "--defense",
        "12",
        "--rear",
        "--armor",
        "6",
        "--dice",
        "2,13,4",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    assert {
        k: data[k]
        for k in ("attack_level", "defense_level", "hit_level", "damage", "armor", "hits")
    } == {
        "attack_level": "critical",
        "defense_level": "failure",
        "hit_level": "critical",
        "damage": 4 + 1 + 4,
        "armor": 3,
        "hits": 3,
    }


def test_cli_attack_nothing_through_json() -> None:
    _, out, _ = run("attack", "--skill", "10", "--defend", "weapon", "--dice", "5,4,6", "--json")
    data = json.loads(out)
    assert (data["hit_level"], data["damage"], data["armor"], data["hits"]) == (None, 0, 0, 0)


def test_cli_attack_seeded_is_reproducible() -> None:
    first = run("attack", "--skill", "14", "--defend", "avoid", "--seed", "11", "--json")
    again = run("attack", "--skill", "14", "--defend", "avoid", "--seed", "11", "--json")
    assert first == again and json.loads(first[1])["seed"] == 11


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (["--defend", "shield", "--shield", "kite"], "'kite'"),
        (["--defend", "parry"], "'parry'"),
        (["--defend", "shield"], "shield defense needs a shield"),
        (["--defend", "weapon", "--skill", "140"], "140"),
        (["--defend", "weapon", "--dice", "21,3,4"], "21"),
        (["--defend", "weapon", "--dice", "3,4"], "'3,4'"),
        (["--defend", "weapon", "--dice", "a,b,c"], "'a,b,c'"),
    ],
)
def test_cli_attack_bad_input(args: list[str], quoted: str) -> None:
    full = ["attack", "--skill", "12", *args] if "--skill" not in args else ["attack", *args]
    code, out, err = run(*full)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and quoted in err


def test_scripted_rng_error_is_a_referee_error() -> None:
    with pytest.raises(ScriptError):
        strike(Attack(skill=10), Defense(), ScriptedRng([1, 2]))
