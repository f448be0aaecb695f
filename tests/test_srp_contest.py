"""SRP opposed rolls, assistants and challenges (SRP-1..3)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.errors import RuleError
from referee.rng import ScriptedRng
from referee.systems.srp.contest import (
    Assistant,
    Side,
    Winner,
    challenge,
    opposed,
    resolve_challenge,
    resolve_opposed,
)
from referee.systems.srp.rules import Challenge, SrpRules


def test_orators_25_beats_23() -> None:  # SRP-1: the main rules page's example
    r = resolve_opposed(Side(18), Side(15, bonus=3), (3, 4), (1, 4))
    assert (r.active.total, r.passive.total, r.winner) == (25, 23, Winner.ACTIVE)
    assert r.explanation == (
        "active: 2d6 (3+4) + skill 18 = 25",
        "passive: 2d6 (1+4) + skill 15 + bonus 3 = 23",
        "25 beats 23: the active side wins",
    )


def test_equal_riders_nobody_wins() -> None:  # SRP-1
    assert resolve_opposed(Side(12), Side(12), (3, 4), (5, 2)).winner is Winner.NONE
    assert resolve_opposed(Side(12), Side(13), (3, 4), (5, 2)).winner is Winner.PASSIVE


def test_assistants() -> None:  # SRP-2
    assert Side(18, assistants=(Assistant(9), Assistant(12))).assist_bonus() == 2
    assert Side(18, assistants=(Assistant(9),), research=True).assist_bonus() == 2
    assert Side(14, assistants=(Assistant(7, dam=3), Assistant(7, dam=0))).assist_bonus() == 4
    with pytest.raises(RuleError, match="below half of 18"):
        resolve_opposed(Side(18, assistants=(Assistant(8),)), Side(10), (1, 1), (1, 1))


def test_opposed_rolls_active_then_passive() -> None:
    rng = ScriptedRng([6, 6, 1, 1])
    r = opposed(Side(10), Side(10), rng)
    assert r.active.dice == (6, 6) and r.passive.dice == (1, 1) and r.winner is Winner.ACTIVE


def test_challenge_at_least_and_option() -> None:  # SRP-3
    assert resolve_challenge(Side(8), 15, (3, 4)).success
    assert not resolve_challenge(Side(8), 15, (3, 4), SrpRules(challenge=Challenge.ABOVE)).success
    assert challenge(Side(8, bonus=1), 16, ScriptedRng([3, 4])).success


def test_bad_dice() -> None:
    with pytest.raises(RuleError, match=r"\(7, 1\)"):
        resolve_challenge(Side(8), 15, (7, 1))


def test_cli_opposed_orators() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "opposed",
            "--active",
            "18",
            "--passive",
            "15",
            "--passive-bonus",
            "3",
            "--dice",
            "3,4,1,4",
            "--json",
        ],
    )
    data = json.loads(result.stdout)
    assert result.exit_code == 0
    assert (data["active_total"], data["passive_total"], data["winner"]) == (25, 23, "active")


def test_cli_opposed_with_assistants_text() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "opposed",
            "--active",
            "12",
            "--passive",
            "14",
            "--assist",
            "6",
            "--assist",
            "7",
            "--research",
            "--dice",
            "2,2,2,2",
        ],
    )
    assert result.stdout.splitlines() == [
        "active: 2d6 (2+2) + skill 12 + assistants 4 = 20",
        "passive: 2d6 (2+2) + skill 14 = 18",
        "20 beats 18: the active side wins",
    ]


def test_cli_challenge() -> None:
    result = CliRunner().invoke(
        cli, ["srp", "challenge", "--skill", "8", "--target", "15", "--dice", "3,4"]
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "challenge: 2d6 (3+4) + skill 8 = 15",
        "15 >= 15? succeeds",
    ]


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (["opposed", "--active", "10", "--passive", "10", "--dice", "1,2,3"], "'1,2,3'"),
        (["opposed", "--active", "10", "--passive", "10", "--assist", "2"], "2"),
        (["challenge", "--skill", "8", "--target", "15", "--dice", "3,9"], "'3,9'"),
    ],
)
def test_cli_contest_bad_input(args: list[str], quoted: str) -> None:
    result = CliRunner().invoke(cli, ["srp", *args])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and quoted in result.stderr
