"""SRP spirit combat (SRP-17) and magic combat (SRP-18)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.errors import NotationError, RuleError
from referee.rng import ScriptedRng
from referee.systems.srp.magic import Cast, Spell, resolve_magic, spend_mana
from referee.systems.srp.spirit import SpiritFighter, parse_spirits, resolve_round, spirit_combat

ANDREA = (SpiritFighter("Andrea", 5),)
GHOSTS = (SpiritFighter("Ghost#1", 4), SpiritFighter("Ghost#2", 3), SpiritFighter("Ghost#3", 2))


def test_andrea_against_three_ghosts() -> None:  # SRP-17, the text's example
    sides, rnd = resolve_round((ANDREA, GHOSTS), 1, ((4, 3), (2, 3)))
    # Andrea 2d6 + 5 against the 4 as lead, +1 for each other ghost: 2d6 + 6
    assert rnd.leads == ("Andrea", "Ghost#1") and rnd.totals == (12, 11)
    assert rnd.explanation == (
        "Andrea: 2d6 (4+3) + Spirit 5 = 12",
        "Ghost#1: 2d6 (2+3) + Spirit 4 + 2 helpers = 11",
        "Andrea wins: Ghost#1 loses 1 PM",
    )
    assert [m.pm for m in sides[1]] == [3, 3, 2] and sides[0][0].pm == 5  # the 4 drops to 3


def test_tie_takes_nothing() -> None:
    sides, rnd = resolve_round((ANDREA, GHOSTS), 1, ((3, 3), (2, 3)))
    assert rnd.losers == () and sides == (ANDREA, GHOSTS)


def test_doing_something_else_loses_one_pm_and_no_roll() -> None:  # SRP-17
    sides, rnd = resolve_round((ANDREA, GHOSTS), 1, (None, None), distracted=frozenset({"Andrea"}))
    assert rnd.totals == (None, None) and sides[0][0].pm == 4


def test_distracted_helper_does_not_help() -> None:
    _, rnd = resolve_round((ANDREA, GHOSTS), 1, ((4, 3), (2, 3)), distracted=frozenset({"Ghost#3"}))
    assert rnd.totals == (12, 10) and rnd.losers == ("Ghost#3", "Ghost#1")


def test_passing_out_at_minus_one_costs_a_spirit_point() -> None:  # SRP-17
    sides, rnd = resolve_round(
        ((SpiritFighter("A", 5, pm=0),), (SpiritFighter("G", 3),)), 1, ((1, 1), (6, 6))
    )
    a = sides[0][0]
    assert (a.pm, a.spirit, a.out) == (-1, 4, True) and rnd.passed_out == ("A",)


def test_combat_ends_when_a_side_is_spent() -> None:
    rng = ScriptedRng([6, 6, 1, 1] * 4)
    fight = spirit_combat(((SpiritFighter("Andrea", 5),), (SpiritFighter("Imp", 2),)), rng)
    assert len(fight.rounds) == 2 and fight.bindable == ("Imp",)
    assert fight.ended == "Imp is at 0 PM or below: Andrea ends the combat"


def test_fighting_on_until_passing_out() -> None:
    rng = ScriptedRng([6, 6, 1, 1] * 3)
    fight = spirit_combat(
        ((SpiritFighter("Andrea", 5),), (SpiritFighter("Imp", 2),)),
        rng,
        end=lambda sides, spent: False,
    )
    assert len(fight.rounds) == 3 and fight.sides[1][0].spirit == 1
    assert fight.ended == "Imp has passed out: Andrea wins"


def test_parse_spirits_numbers_duplicates() -> None:
    assert [f.name for f in parse_spirits(["Andrea=5", "Ghost=4", "Ghost=3/1"])] == [
        "Andrea",
        "Ghost#1",
        "Ghost#2",
    ]
    with pytest.raises(NotationError, match="'Ghost'"):
        parse_spirits(["Ghost"])


def test_cli_spirit_json() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "spirit",
            "Andrea=5",
            "--vs",
            "Ghost=4",
            "Ghost=3",
            "Ghost=2",
            "--dice",
            "4,3,2,3",
            "--max-rounds",
            "1",
            "--json",
        ],
    )
    data = json.loads(result.stdout)
    assert result.exit_code == 0
    assert data["rounds"][0]["totals"] == [12, 11] and data["rounds"][0]["lost_pm"] == ["Ghost#1"]
    assert data["ended"] == "stopped after 1 rounds"


def test_cli_spirit_needs_vs() -> None:
    result = CliRunner().invoke(cli, ["srp", "spirit", "Andrea=5", "Ghost=4"])
    assert result.exit_code == 2 and "--vs" in result.stderr


def test_magic_mana_must_be_strictly_greater() -> None:  # SRP-18
    bolt = Cast("Mira", 12, Spell("Bolt", 3))
    r = resolve_magic(11, 3, [bolt], [((4, 4), (3, 3))])
    assert r.mana_through == 3 and not r.affected
    r = resolve_magic(11, 2, [bolt], [((4, 4), (3, 3))])
    assert r.affected and r.strength == 1


def test_magic_resisted_spell_adds_nothing_and_diminished_strength() -> None:  # SRP-18
    wither = Cast("Ulf", 10, Spell("Wither", 6, diminished=True))
    bolt = Cast("Mira", 8, Spell("Bolt", 3))
    r = resolve_magic(11, 2, [wither, bolt], [((5, 5), (2, 2)), ((1, 1), (6, 6))])
    assert r.mana_through == 6 and r.strength == 4
    assert r.explanation[-1] == "diminished spells work at 6 - 2 = 4"


def test_casting_spends_mana() -> None:
    assert spend_mana(5, Spell("Bolt", 5)) == 0
    with pytest.raises(RuleError, match="needs 6 mana"):
        spend_mana(5, Spell("Bolt", 6))


def test_cli_magic() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "magic",
            "--target-pm",
            "11",
            "--defense",
            "2",
            "--spell",
            "Mira:12:Bolt:3",
            "--dice",
            "4,4,3,3",
        ],
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "Bolt (3 mana) by Mira: PM 20 vs 17: gets through",
        "mana through 3 vs magical defense 2: greater: the target is affected",
    ]
    bad = CliRunner().invoke(cli, ["srp", "magic", "--target-pm", "11", "--spell", "Mira:Bolt"])
    assert bad.exit_code == 2 and "'Mira:Bolt'" in bad.stderr
