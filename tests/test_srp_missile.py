"""SRP missiles: volleys, skill per shot, missile defense and damage (SRP-11..13)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.errors import LimitError, RuleError
from referee.rng import ScriptedRng
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.levels import Level
from referee.systems.srp.missile import Fire, Range, Shot, plan_volley, resolve_volley, shoot


@pytest.mark.parametrize(
    ("fire", "distance", "rof", "shots", "skill"),
    [
        (Fire.AIMED, Range.EFFECTIVE, 3, 1, 17),  # aimed: one shot at full skill
        (Fire.RAPID, Range.EFFECTIVE, 3, 3, 8),  # ROF > 1: half skill, round down
        (Fire.AIMED, Range.LONG, 3, 1, 8),  # long range: halved
        (Fire.RAPID, Range.LONG, 3, 3, 5),  # long range ROF: a third
        (Fire.RAPID, Range.EFFECTIVE, 1, 1, 17),  # ROF 1: rapid is aimed
    ],
)
def test_volley_plan(fire: Fire, distance: Range, rof: int, shots: int, skill: int) -> None:
    plan = plan_volley(17, rof=rof, fire=fire, distance=distance)  # SRP-13
    assert (plan.shots, plan.skill) == (shots, skill)


def test_rof_is_bounded() -> None:
    with pytest.raises(LimitError, match="11"):
        plan_volley(10, rof=11)


def test_thrown_javelin_text_example() -> None:  # SRP-13: DAM +2 javelin base +2 -> +3
    javelin = Shot(skill=15, weapon_damage=2, dam=2, thrown=True)
    s = resolve_volley(javelin, None, 0, [(8, 1, 4)]).shots[0]
    assert s.damage == 4 + 3
    assert s.explanation[3] == "damage: d6 4 + weapon 2 + thrown DAM/2 1 = 7"


def test_thrown_odd_dam_rounds_up_and_bows_ignore_dam() -> None:  # SRP-13
    thrown = resolve_volley(Shot(skill=15, dam=3, thrown=True), None, 0, [(8, 1, 1)])
    bow = resolve_volley(Shot(skill=25, weapon_damage=3, dam=3), None, 0, [(10, 1, 1)])
    assert thrown.shots[0].damage == 1 + 2
    assert bow.shots[0].damage == 1 + 3  # no DAM, no high-skill bonus at 25


def test_missile_defense_is_the_shields_value() -> None:  # SRP-11, 12
    shot = Shot(skill=15, weapon_damage=3)
    # defense roll 14 is a success against a large shield's 16, a failure against a buckler's 8
    large = resolve_volley(shot, parse_shield("large"), 2, [(9, 14, 5)]).shots[0]
    buckler = resolve_volley(shot, parse_shield("buckler"), 2, [(9, 14, 5)]).shots[0]
    assert large.hit_level is Level.SUCCESS and large.armor == 2 + 8
    assert buckler.hit_level is Level.SUCCESS and buckler.armor == 2
    pavise = resolve_volley(shot, parse_shield("pavise"), 0, [(9, 19, 5)]).shots[0]
    assert pavise.defense_level is Level.SUCCESS and pavise.armor == 0  # no AP unless a pack


def test_no_shield_no_defense_roll() -> None:  # SRP-12
    s = resolve_volley(Shot(skill=10), None, 0, [(9, 1, 5)]).shots[0]
    assert s.defense_level is None and s.hit_level is Level.SUCCESS


def test_dice_count_must_match_shots() -> None:
    with pytest.raises(RuleError, match="expected 2"):
        resolve_volley(Shot(skill=10, rof=2, fire=Fire.RAPID), None, 0, [(1, 1, 1)])


def test_shoot_throws_once_per_shot() -> None:
    rng = ScriptedRng([1, 1, 1, 5, 20, 6])
    result = shoot(Shot(skill=12, rof=2, fire=Fire.RAPID, weapon_damage=2), None, 1, rng)
    assert [s.faces for s in result.shots] == [(1, 1, 1), (5, 20, 6)]
    # skill 6: 1 is a special -> 1 + 2 + 4 = 7 vs AP 1 -> 3 hits; 5 a success -> 8 -> 4 hits
    assert [s.hits for s in result.shots] == [3, 4] and result.hits == 7


def test_cli_shoot_text() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "shoot",
            "--skill",
            "15",
            "--thrown",
            "--dam",
            "2",
            "--weapon-damage",
            "2",
            "--dice",
            "8,1,4",
        ],
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "effective range, aimed fire: 1 shot at full skill 15",
        "shot 1:",
        "  attack: d20 rolled 8 vs skill 15 -> success",
        "  defense: none (the defender cannot defend)",
        "  chart: success attack, no defense: hit at success level",
        "  damage: d6 4 + weapon 2 + thrown DAM/2 1 = 7",
        "  armor: AP 0",
        "  hits: ceil((7 - 0) / 2) = 4",
        "  result: 4 hits (success hit, damage 7 vs AP 0)",
        "total: 4 hits",
    ]


def test_cli_shoot_json_two_shots() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "shoot",
            "--skill",
            "15",
            "--rof",
            "2",
            "--fire",
            "rapid",
            "--range",
            "long",
            "--shield",
            "(6)",
            "--dice",
            "5,12,3",
            "--dice",
            "1,13,6",
            "--json",
        ],
    )
    data = json.loads(result.stdout)
    assert data["skill"] == 5 and [s["hit_level"] for s in data["shots"]] == ["success", "special"]
    assert data["shots"][0]["armor"] == 6 and data["hits"] == 0 + 5


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (["--range", "far"], "'far'"),
        (["--fire", "burst"], "'burst'"),
        (["--shield", "tower"], "'tower'"),
        (["--dice", "1,2"], "'1,2'"),
    ],
)
def test_cli_shoot_bad_input(args: list[str], quoted: str) -> None:
    result = CliRunner().invoke(cli, ["srp", "shoot", "--skill", "12", *args])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and quoted in result.stderr
