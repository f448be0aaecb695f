"""`why_not`: whether a fighter may take an action now, by the engine's and the rule system's
own checks run up to the first die (what the Discord buttons offer), nothing thrown."""

from __future__ import annotations

from referee.bout import commands as c
from referee.bout.engine import decide, why_not
from referee.bout.state import BoutState
from referee.rng import ScriptedRng
from referee.systems.base import find_system
from referee.systems.srp.gear import example_pack
from referee.systems.srp.sheet import sheet_from_table
from referee.systems.srp.stats import sheet_to_stats


def sheet(words: str) -> dict[str, object]:
    """An SRP sheet's stats from `NAME key=value ...`, with the example gear pack."""
    name, *pairs = words.split()
    table = {k: int(v) if v.isdigit() else v for k, _, v in (p.partition("=") for p in pairs)}
    return dict(sheet_to_stats(sheet_from_table(name, table, example_pack(), where="test")))


def srp_bout(ann: dict[str, object], bran: dict[str, object]) -> BoutState:
    state = BoutState()
    for command in (
        c.Open("srp", "Probe", {}),
        c.AddFighter("Ann", ann),
        c.AddFighter("Bran", bran),
        c.RollInitiative(),
    ):
        # initiative by d20s: Ann 20, Bran 1, so Ann acts first
        state = decide(state, command, ScriptedRng([20, 1])).state
    assert state.current == "Ann"
    return state


def test_the_rules_say_what_may_be_taken_and_why_not() -> None:
    rules = find_system("srp")()
    whip = sheet("Ann weapon=whip skill=15 defense=12 hits=12")
    bare = sheet("Bran weapon=unarmed skill=13 defense=11 hits=10")
    state = srp_bout(whip, bare)
    target = {"target": "Bran"}
    assert why_not(state, "Ann", "attack", target, rules) is None
    assert why_not(state, "Ann", "disarm", target, rules) is None
    assert why_not(state, "Ann", "pass", {}, rules) is None
    assert why_not(state, "Ann", "entangle", target, rules) == (
        "entangle works only against Avoid, not a 'weapon' defense"
    )
    assert why_not(state, "Ann", "grapple", target, rules) == (
        "grapple needs a weapon with code 'G'; 'whip' has D, E"
    )
    assert why_not(state, "Ann", "shoot", target, rules) == (
        "the whip is not a missile weapon (it has no range)"
    )
    assert why_not(state, "Ann", "pick_up", {}, rules) is not None
    assert why_not(state, "Bran", "attack", {"target": "Ann"}, rules) == (
        "out of turn: it is Ann's turn, not Bran's"
    )
    bow = srp_bout(sheet("Ann weapon=shortbow skill=15 defense=12 hits=12"), bare)
    assert why_not(bow, "Ann", "attack", target, rules) == (
        "the shortbow is a missile weapon: use 'shoot'"
    )
    assert why_not(bow, "Ann", "shoot", target, rules) is None


def test_a_probe_throws_nothing_and_stores_nothing() -> None:
    rules = find_system("msv")()
    state = BoutState()
    for command in (
        c.Open("msv", "Probe", {}),
        c.AddFighter("Tarl", {"cs": 65}),
        c.AddFighter("Orc", {"cs": 40}),
    ):
        state = decide(state, command, ScriptedRng([])).state
    assert why_not(state, "Tarl", "attack", {"target": "Orc"}, rules) == (
        "the bout has not started: roll initiative first"
    )
    state = decide(state, c.RollInitiative(), ScriptedRng([10, 90])).state
    before = state.next_seq
    actor = state.current
    assert actor is not None
    foe = "Orc" if actor == "Tarl" else "Tarl"
    assert why_not(state, actor, "attack", {"target": foe}, rules) is None
    assert state.next_seq == before
