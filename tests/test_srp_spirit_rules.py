"""The spirit rules outside one exchange (SRP-17), assistants in a strength contest (SRP-2), and
the three settled readings of SRP-16 and SRP-17 as rule-pack options, each both ways, with
scripted dice and pinned numbers; the evening's play clock through the engine and the replay."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.replay import check_outcomes
from referee.bout.runner import BoutRunner
from referee.cli.main import cli
from referee.errors import RuleError, RulePackError
from referee.rng import ScriptedRng
from referee.systems.srp import contest, spirit
from referee.systems.srp.actions import Special, resolve_special
from referee.systems.srp.gear import Code, Weapon
from referee.systems.srp.melee import Attack, Defense, resolve
from referee.systems.srp.rules import load_rules
from referee.systems.srp.sheet import DefenseKind
from referee.systems.srp.spirit import SpiritFighter

SWORD = {"name": "sword", "damage": 2}


def haunting(
    faces: list[int], rules: dict[str, Any] | None = None, ghost_pm: int = 3
) -> BoutRunner:
    bout = BoutRunner.open("srp", "Haunting", ScriptedRng(faces), rules)
    bout.run(
        c.AddFighter(
            "Andrea",
            {
                "hits": 10,
                "spirit": 5,
                "pm": 5,
                "skills": {"sword": 12},
                "weapons": [SWORD],
                "defense": 8,
            },
            "a",
        )
    )
    bout.run(c.AddFighter("Ghost", {"hits": 10, "spirit": 4, "pm": ghost_pm}, "g"))
    bout.run(c.RollInitiative())  # listed: Andrea, then Ghost
    return bout


def pm(bout: BoutRunner) -> dict[str, int]:
    return {f.name: f.stats["pm"] for f in bout.state.fighters}


def stats(events: list[Event]) -> list[tuple[str, str, Any]]:
    return [
        (e.payload["target"], e.payload["key"], e.payload["value"])
        for e in events
        if e.type == "stat"
    ]


# -- SRP-17: doing anything but fight ------------------------------------------------------


def test_srp17_a_spirit_that_does_anything_but_fight_loses_a_pm() -> None:
    bout = haunting([6, 5, 3, 4, 1, 1, 1, 1, 10, 10, 6])
    bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")  # 16 vs 11
    assert pm(bout) == {"Andrea": 5, "Ghost": 2}
    assert bout.state.fighter("Ghost").conditions == {"in_spirit_combat": None}
    bout.run(c.Act("Ghost", "spirit"), by="Ghost")  # 2+5=7 vs 2+4=6: the Ghost loses again
    assert pm(bout) == {"Andrea": 5, "Ghost": 1}
    struck = bout.run(c.Act("Andrea", "attack", {"target": "Ghost"}), by="Andrea")
    assert stats(struck) == [("Andrea", "pm", 4)]  # SRP-17: the Ghost takes 1 PM
    outcome = next(e for e in struck if e.type == "outcome")
    assert outcome.payload["summary"].endswith(
        " Andrea is in spirit combat and does something else: loses 1 PM (now 4)."
    )
    passed = bout.run(c.Act("Ghost", "pass"), by="Ghost")  # passing is not doing something
    assert stats(passed) == [] and pm(bout) == {"Andrea": 4, "Ghost": 1}
    assert check_outcomes(bout.events) == []  # the replay decides the cost again


def test_srp17_no_cost_once_the_foe_is_spent_or_for_one_never_in_it() -> None:
    bout = haunting([6, 6, 1, 1, 10, 10, 6], ghost_pm=1)
    bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")
    assert pm(bout) == {"Andrea": 5, "Ghost": 0}  # the Ghost's side is spent
    bout.run(c.Act("Ghost", "pass"), by="Ghost")
    struck = bout.run(c.Act("Andrea", "attack", {"target": "Ghost"}), by="Andrea")
    assert stats(struck) == []  # Andrea may end the combat: doing something else costs nothing
    fresh = haunting([10, 10, 6])
    assert stats(fresh.run(c.Act("Andrea", "attack", {"target": "Ghost"}), by="Andrea")) == []


def test_srp17_the_cli_round_of_a_member_elsewhere() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "spirit",
            "Andrea=5",
            "--vs",
            "Ghost=4",
            "--elsewhere",
            "1=Andrea",
            "--max-rounds",
            "1",
            "--dice",
            "6,6,6,6",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:3] == [
        "round 1:",
        "  Andrea does something else: the other side takes 1 PM",
        "  PM now: Andrea 4 | Ghost 4",
    ]


# -- SRP-17: -1 PM, and the hour ------------------------------------------------------------


def test_srp17_at_minus_one_no_recovery_for_an_hour_of_play_time() -> None:
    bout = haunting([1, 1, 6, 6, 6, 6, 1, 1, 6, 6, 1, 1], ghost_pm=3)
    bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")
    bout.run(c.PassTime(25, "the Ghost circles"))  # minute 25
    bout.run(c.Act("Ghost", "spirit"), by="Ghost")
    andrea = bout.state.fighter("Andrea")
    assert pm(bout)["Andrea"] == 3
    bout.run(c.UpdateFighter("Andrea", {"pm": 0}, reason="drained"))
    bout.run(c.Act("Andrea", "pass"), by="Andrea")
    out = bout.run(c.Act("Ghost", "spirit"), by="Ghost")  # 6+6+4 beats 1+1+5: Andrea out
    assert stats(out) == [
        ("Andrea", "pm", -1),
        ("Andrea", "spirit", 4),
        ("Andrea", "out_since", 25),
    ]
    assert andrea.stats["spirit"] == 5
    with pytest.raises(RuleError, match="before minute 85 \\(now minute 25"):
        bout.run(c.UpdateFighter("Andrea", {"pm": 0}, reason="too soon"))
    bout.run(c.PassTime(59, "the Ghost drifts off"))  # minute 84: still out
    assert pm(bout)["Andrea"] == -1 and bout.state.clock == 84
    back = bout.run(c.PassTime(1, "a minute more"))  # minute 85: an hour since
    assert [(e.type, e.actor, e.payload.get("reason")) for e in back] == [
        ("time_passed", "referee", "a minute more"),
        (
            "fighter_updated",
            "system",
            "recovery: at -1 PM since minute 25, an hour has "
            "passed (minute 85): back to 0 PM (SRP-17)",
        ),
    ]
    assert pm(bout)["Andrea"] == 0 and bout.state.fighter("Andrea").stats["spirit"] == 4
    assert check_outcomes(bout.events) == []
    forged = [*bout.events]
    at = next(i for i, e in enumerate(forged) if e.payload.get("reason") == "a minute more")
    forged[at] = Event(
        "time_passed", "referee", {**forged[at].payload, "minutes": 0 + 1, "clock": 84}
    )
    assert "time_passed does not follow the rules" in str(check_outcomes(forged)[0])


def test_srp17_time_is_the_referees_to_pass_and_bounded() -> None:
    bout = haunting([])
    with pytest.raises(RuleError, match=r"minutes 0 must be a whole number 1\.\.10080"):
        bout.run(c.PassTime(0, "nothing"))
    with pytest.raises(RuleError, match="reason '' must be"):
        bout.run(c.PassTime(5, ""))
    with pytest.raises(Exception, match="only the referee may let play time pass"):
        bout.run(c.PassTime(5, "mine"), by="Andrea")
    assert bout.state.clock == 0


# -- SRP-17: the lead of one against many, chosen each round --------------------------------


def test_srp17_the_lead_is_chosen_each_round() -> None:
    andrea = (SpiritFighter("Andrea", 5),)
    ghosts = (SpiritFighter("G1", 4), SpiritFighter("G2", 3), SpiritFighter("G3", 2))
    dice = ScriptedRng([6, 6, 1, 1, 6, 6, 1, 1, 6, 6, 1, 1])
    fight = spirit.spirit_combat((andrea, ghosts), dice, leads={2: ["G3"]}, max_rounds=3)
    assert [r.leads for r in fight.rounds] == [("Andrea", "G1"), ("Andrea", "G3"), ("Andrea", "G1")]
    assert [r.totals for r in fight.rounds] == [(17, 8), (17, 6), (17, 8)]  # +2 helpers
    assert [(m.name, m.current_pm) for m in fight.sides[1]] == [("G1", 2), ("G2", 3), ("G3", 1)]
    with pytest.raises(RuleError, match="round 1: Bo cannot lead"):
        spirit.spirit_combat((andrea, ghosts), ScriptedRng([1] * 4), leads={1: ["Bo"]})


def test_srp17_in_a_bout_the_many_sides_lead_is_its_strongest_this_round() -> None:
    bout = BoutRunner.open("srp", "Three ghosts", ScriptedRng([1, 1, 6, 6, 6, 6, 1, 1] * 2))
    bout.run(c.AddFighter("Andrea", {"hits": 10, "spirit": 5, "pm": 5}, "a"))
    for name, power in (("G1", 4), ("G2", 3)):
        bout.run(c.AddFighter(name, {"hits": 5, "spirit": power, "pm": power}, "g"))
    bout.run(c.RollInitiative())  # Andrea, G1, G2
    bout.run(c.Act("Andrea", "spirit", {"target": "G2"}), by="Andrea")  # G2 alone: 7 vs 15
    first = bout.run(c.Act("G1", "spirit", {"helpers": ["G2"]}), by="G1")
    out = next(e for e in first if e.type == "outcome").payload
    assert out["leads"] == ["G1", "Andrea"] and out["totals"] == [17, 7]
    third = bout.run(c.Act("G2", "pass"), by="G2")
    assert third
    # Andrea against G2 again: G1, in the combat now, helps; the side's lead this round is
    # its strongest (G1: 4 PM against G2's 3), not the one Andrea named.
    again = next(
        e
        for e in bout.run(c.Act("Andrea", "spirit", {"target": "G2"}), by="Andrea")
        if e.type == "outcome"
    ).payload
    assert again["leads"] == ["Andrea", "G1"] and again["totals"] == [7, 17]
    assert {f.name: f.stats["pm"] for f in bout.state.fighters} == {"Andrea": 2, "G1": 4, "G2": 3}


# -- SRP-2: assistants in a strength contest add their DAM ----------------------------------


def test_srp2_strength_assistants_add_max_one_dam() -> None:
    side = contest.Side(
        14, assistants=(contest.Assistant(9, 3), contest.Assistant(8, -1), contest.Assistant(7))
    )
    assert side.assist_bonus() == 3 + 1 + 1
    result = contest.opposed(side, contest.Side(16), ScriptedRng([3, 4, 3, 4]))
    assert (result.active.total, result.passive.total, result.winner.value) == (26, 23, "active")
    cli_run = CliRunner().invoke(
        cli,
        [
            "srp",
            "opposed",
            "--active",
            "14",
            "--passive",
            "16",
            "--strength-assist",
            "9:3",
            "--strength-assist",
            "8:-1",
            "--dice",
            "3,4,3,4",
        ],
    )
    assert cli_run.exit_code == 0, cli_run.output
    assert cli_run.output.splitlines()[0] == "active: 2d6 (3+4) + skill 14 + assistants 4 = 25"
    bad = CliRunner().invoke(
        cli, ["srp", "opposed", "--active", "14", "--passive", "16", "--strength-assist", "9"]
    )
    assert bad.exit_code == 2 and "bad strength assistant '9' (expected SKILL:DAM" in bad.output


# -- The three settled readings as options, both ways ---------------------------------------

MACE = Attack(skill=15, weapon_damage=3, stun=True)


def test_srp16_stun_on_level_or_roll() -> None:
    # A special roll (3 vs 15) that a normal weapon defense (8 vs 12) brings down to normal.
    default = resolve(MACE, Defense(skill=12, armor=2), (3, 8, 5), load_rules({}))
    by_roll = resolve(MACE, Defense(skill=12, armor=2), (3, 8, 5), load_rules({"stun_on": "roll"}))
    for strike in (default, by_roll):
        assert (strike.attack_level.label, strike.hit_level.label, strike.hits) == (
            "special",
            "success",
            3,
        )
    assert (default.stun, by_roll.stun) == (False, True)
    assert by_roll.explanation[-1] == (
        "S* weapon attack rolled special: target stunned for one round (SRP-16)"
    )


def test_srp16_stun_needs_hits_false_or_true() -> None:
    plate = Defense(kind=DefenseKind.NONE, armor=20)  # a special hit the armor stops entirely
    default = resolve(MACE, plate, (3, 8, 5), load_rules({}))
    strict = resolve(MACE, plate, (3, 8, 5), load_rules({"stun_needs_hits": True}))
    assert (default.damage, default.hits, strict.hits) == (12, 0, 0)
    assert (default.stun, strict.stun) == (True, False)


def test_srp16_disarm_undefended_takes_or_fails() -> None:
    whip = Weapon("whip", codes=frozenset({Code.DISARM}))
    none, parried = Defense(kind=DefenseKind.NONE), Defense(skill=10)  # 12 fails vs 10
    for rules, undefended in (({}, True), ({"disarm_undefended": "fails"}, False)):
        pack = load_rules(rules)
        took = resolve_special(Special.DISARM, whip, Attack(skill=14), none, (5, 12, 1), rules=pack)
        assert took.worked is undefended
        beaten = resolve_special(
            Special.DISARM, whip, Attack(skill=14), parried, (5, 12, 1), rules=pack
        )
        assert beaten.worked  # a failed weapon defense is disarmed either way


def test_srp17_spirit_at_zero_end_or_fight() -> None:
    sides = ((SpiritFighter("Andrea", 5),), (SpiritFighter("Wisp", 2, pm=0),))
    ended = spirit.spirit_combat(sides, ScriptedRng([6, 6, 1, 1]))
    assert (ended.rounds, ended.ended, ended.bindable) == (
        (),
        "Wisp is at 0 PM or below: Andrea ends the combat",
        ("Wisp",),
    )
    fought = spirit.spirit_combat(
        sides, ScriptedRng([6, 6, 1, 1]), rules=load_rules({"spirit_at_zero": "fight"})
    )
    assert [r.totals for r in fought.rounds] == [(17, 4)]
    assert [m.current_pm for m in fought.sides[1]] == [-1]  # it passes out


def test_srp17_spirit_at_zero_in_a_bout() -> None:
    faces = [6, 6, 1, 1]
    ended = BoutRunner.open("srp", "Spent", ScriptedRng(faces))
    ended.run(c.AddFighter("Wisp", {"hits": 3, "spirit": 2, "pm": 0}, "w"))
    ended.run(c.AddFighter("Andrea", {"hits": 9, "spirit": 5, "pm": 5}, "a"))
    ended.run(c.RollInitiative())
    with pytest.raises(RuleError, match="Wisp's side is at 0 PM or below: Andrea's side ends"):
        ended.run(c.Act("Wisp", "spirit"), by="Wisp")
    fight = BoutRunner.open("srp", "Spent", ScriptedRng(faces), {"spirit_at_zero": "fight"})
    fight.run(c.AddFighter("Wisp", {"hits": 3, "spirit": 2, "pm": 0}, "w"))
    fight.run(c.AddFighter("Andrea", {"hits": 9, "spirit": 5, "pm": 5}, "a"))
    fight.run(c.RollInitiative())
    fight.run(c.Act("Wisp", "spirit"), by="Wisp")  # 14 vs 7: Andrea loses 1 PM
    assert {f.name: f.stats["pm"] for f in fight.state.fighters} == {"Wisp": 0, "Andrea": 4}


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("stun_on", "hit", "srp.stun_on = 'hit' is not allowed (expected 'level', 'roll')"),
        ("stun_needs_hits", "yes", "srp.stun_needs_hits = 'yes' is not true or false"),
        ("disarm_undefended", 1, "srp.disarm_undefended = 1 is not allowed"),
        ("spirit_at_zero", "go on", "srp.spirit_at_zero = 'go on' is not allowed"),
    ],
)
def test_each_option_refuses_a_bad_value(key: str, value: Any, message: str) -> None:
    with pytest.raises(RulePackError, match=message.replace("(", "\\(").replace(")", "\\)")):
        load_rules({key: value})


def test_the_options_and_their_defaults_as_data() -> None:
    got = load_rules({}).as_dict()
    assert {
        k: got[k] for k in ("stun_on", "stun_needs_hits", "disarm_undefended", "spirit_at_zero")
    } == {
        "stun_on": "level",
        "stun_needs_hits": False,
        "disarm_undefended": "takes",
        "spirit_at_zero": "end",
    }
