"""MSV through the bout engine: scripted spars asserting every event, and every spar ends."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bout import commands as c
from referee.bout.replay import check_outcomes
from referee.bout.runner import BoutRunner
from referee.bout.state import BoutState, Status
from referee.errors import RuleError, RulePackError
from referee.rng import ScriptedRng, SeededRng
from referee.systems.base import find_system
from referee.systems.msv.system import MsvSystem
from tests.depth import examples


def brief(bout: BoutRunner) -> list[tuple[Any, ...]]:
    """Every event after the fighters joined, as (type, actor, the payload's key facts)."""
    out: list[tuple[Any, ...]] = []
    for e in bout.events:
        p: dict[str, Any] = dict(e.payload)
        if e.type == "roll":
            out.append(("roll", p["faces"][0]))
        elif e.type == "action":
            out.append(("action", e.actor, p["kind"], p.get("options")))
        elif e.type == "outcome":
            out.append(("outcome", p["summary"], p["free"], p["stuns"], p["extra_action"]))
        elif e.type == "wound":
            out.append(("wound", p["target"], p["amount"], p["total"]))
        elif e.type == "condition":
            out.append(("condition", p["target"], p["condition"], p["rounds"]))
        elif e.type == "turn":
            out.append(("turn", p["fighter"], p["round"]))
        elif e.type == "initiative":
            out.append(("initiative", tuple(p["order"])))
        elif e.type in ("defeated", "ended"):
            out.append((e.type, dict(p)))
    return out


def free_first(state: BoutState, actor: str) -> tuple[str, dict[str, Any]]:
    if state.free_attack == actor:
        return "attack", {}
    return "attack", {"target": state.enemies_of(actor)[0].name}


def test_registered() -> None:
    assert find_system("msv") is MsvSystem
    assert MsvSystem({"defeat_threshold": 20}).defeat_threshold(None) == 20  # type: ignore[arg-type]


def test_two_fighter_spar_with_a_critical_chain() -> None:
    # MSV-5: Tarl 47 (effect 4) beats Pa-Kur 12 (effect 1).
    # MSV-4: Tarl 40 crit (3) -> free 30 crit (2) -> free 46 (4): 9 damage in one action.
    # Pa-Kur 80 misses. Tarl 50 crit (4, 13) -> free 20 crit (2, 15): defeated, no free attack.
    rng = ScriptedRng([47, 12, 40, 30, 46, 80, 50, 20])
    bout = BoutRunner.open("msv", "spar", rng=rng)
    bout.run(c.AddFighter("Tarl", {"cs": 65}))
    bout.run(c.AddFighter("Pa-Kur", {"cs": 70}))
    bout.run(c.RollInitiative())
    bout.play_out(free_first)
    hit = " - the foe is stunned and the attacker makes a free attack at once"
    assert brief(bout) == [
        ("action", "referee", "initiative", None),
        ("roll", 47),
        ("roll", 12),
        ("initiative", ("Tarl", "Pa-Kur")),
        ("turn", "Tarl", 1),
        ("action", "Tarl", "attack", {"target": "Pa-Kur"}),
        ("roll", 40),
        ("outcome", "Tarl attacks Pa-Kur: 40 vs CS 65: critical hit, 3 damage" + hit,
         False, True, True),
        ("wound", "Pa-Kur", 3, 3),
        ("condition", "Pa-Kur", "stunned", None),
        ("action", "Tarl", "attack", {}),
        ("roll", 30),
        ("outcome", "Tarl attacks Pa-Kur: 30 vs CS 65: critical hit, 2 damage" + hit,
         True, True, True),
        ("wound", "Pa-Kur", 2, 5),
        ("condition", "Pa-Kur", "stunned", 0),
        ("condition", "Pa-Kur", "stunned", None),
        ("action", "Tarl", "attack", {}),
        ("roll", 46),
        ("outcome", "Tarl attacks Pa-Kur: 46 vs CS 65: hit, 4 damage", True, False, False),
        ("wound", "Pa-Kur", 4, 9),
        ("condition", "Pa-Kur", "stunned", 0),
        ("turn", "Pa-Kur", 1),
        ("action", "Pa-Kur", "attack", {"target": "Tarl"}),
        ("roll", 80),
        ("outcome", "Pa-Kur attacks Tarl: 80 vs CS 70: miss", False, False, False),
        ("turn", "Tarl", 2),
        ("action", "Tarl", "attack", {"target": "Pa-Kur"}),
        ("roll", 50),
        ("outcome", "Tarl attacks Pa-Kur: 50 vs CS 65: critical hit, 4 damage" + hit,
         False, True, True),
        ("wound", "Pa-Kur", 4, 13),
        ("condition", "Pa-Kur", "stunned", None),
        ("action", "Tarl", "attack", {}),
        ("roll", 20),
        ("outcome", "Tarl attacks Pa-Kur: 20 vs CS 65: critical hit, 2 damage" + hit,
         True, False, False),
        ("wound", "Pa-Kur", 2, 15),
        ("condition", "Pa-Kur", "stunned", 0),
        ("defeated", {"name": "Pa-Kur", "defeated": True}),
        ("ended", {"winner": "Tarl", "reason": "one side is left"}),
    ]  # fmt: skip
    assert rng.remaining == 0
    assert check_outcomes(bout.events) == []  # every outcome decided again from its faces


def test_three_fighter_spar_names_targets() -> None:
    # Tarl and Rask (side Ar) against Pa-Kur (side Cos), defeat at 4 (MSV-7 option).
    # Initiative: Tarl 40 (3), Rask 45 (3), Pa-Kur 60 (4) -> Pa-Kur first; Tarl/Rask tie and
    # reroll: Tarl 5 (1), Rask 20 (2) -> Pa-Kur, Rask, Tarl.
    rng = ScriptedRng([40, 45, 60, 5, 20, 55, 99, 47])
    bout = BoutRunner.open("msv", "melee", rng=rng, rules={"defeat_threshold": 4})
    bout.run(c.AddFighter("Tarl", {"cs": 65}, side="Ar"))
    bout.run(c.AddFighter("Rask", {"cs": 60}, side="Ar"))
    bout.run(c.AddFighter("Pa-Kur", {"cs": 70}, side="Cos"))
    bout.run(c.RollInitiative())
    assert bout.state.order == ("Pa-Kur", "Rask", "Tarl")
    with pytest.raises(RuleError, match="name the target of the attack \\(MSV-6\\): one of Tarl"):
        bout.run(c.Act("Pa-Kur", "attack", {}), by="Pa-Kur")
    with pytest.raises(RuleError, match="cannot attack 'Pa-Kur': not a standing enemy"):
        bout.run(c.Act("Pa-Kur", "attack", {"target": "Pa-Kur"}), by="Pa-Kur")
    bout.run(c.Act("Pa-Kur", "attack", {"target": "Rask"}), by="Pa-Kur")  # 55: 4, Rask down
    bout.run(c.Act("Tarl", "attack", {}), by="Tarl")  # 99: miss (Rask is skipped)
    bout.run(c.Act("Pa-Kur", "attack", {}), by="Pa-Kur")  # only Tarl left: 47, 4
    assert brief(bout)[4:] == [
        ("roll", 5),
        ("roll", 20),
        ("initiative", ("Pa-Kur", "Rask", "Tarl")),
        ("turn", "Pa-Kur", 1),
        ("action", "Pa-Kur", "attack", {"target": "Rask"}),
        ("roll", 55),
        ("outcome", "Pa-Kur attacks Rask: 55 vs CS 70: hit, 4 damage", False, False, False),
        ("wound", "Rask", 4, 4),
        ("defeated", {"name": "Rask", "defeated": True}),
        ("turn", "Tarl", 1),
        ("action", "Tarl", "attack", {}),
        ("roll", 99),
        ("outcome", "Tarl attacks Pa-Kur: 99 vs CS 65: miss", False, False, False),
        ("turn", "Pa-Kur", 2),
        ("action", "Pa-Kur", "attack", {}),
        ("roll", 47),
        ("outcome", "Pa-Kur attacks Tarl: 47 vs CS 70: hit, 4 damage", False, False, False),
        ("wound", "Tarl", 4, 4),
        ("defeated", {"name": "Tarl", "defeated": True}),
        ("ended", {"winner": "Cos", "reason": "one side is left"}),
    ]
    initiative = next(e for e in bout.events if e.type == "initiative")
    detail = initiative.payload["detail"]
    assert isinstance(detail, dict) and isinstance(detail["rounds"], list)
    assert [r["group"] for r in detail["rounds"]] == [  # type: ignore[index,call-overload]
        ["Tarl", "Rask", "Pa-Kur"],
        ["Tarl", "Rask"],
    ]
    assert check_outcomes(bout.events) == []


def test_free_attack_target_is_checked() -> None:
    # Tarl crits Pa-Kur; the free attack may not go to Kron (MSV-4: the stunned foe)
    # initiative: Tarl 60 (4), Pa-Kur 12 (1), Kron 20 (2) -> Tarl, Kron, Pa-Kur
    rng = ScriptedRng([60, 12, 20, 40, 30])
    bout = BoutRunner.open("msv", "melee", rng=rng)
    bout.run(c.AddFighter("Tarl", {"cs": 65}, side="Ar"))
    bout.run(c.AddFighter("Pa-Kur", {"cs": 65}, side="Cos"))
    bout.run(c.AddFighter("Kron", {"cs": 65}, side="Cos"))
    bout.run(c.RollInitiative())
    bout.run(c.Act("Tarl", "attack", {"target": "Pa-Kur"}), by="Tarl")
    assert bout.state.free_attack == "Tarl"
    with pytest.raises(RuleError, match="the free attack goes to the stunned foe 'Pa-Kur'"):
        bout.run(c.Act("Tarl", "attack", {"target": "Kron"}), by="Tarl")
    bout.run(c.Act("Tarl", "attack", {}), by="Tarl")
    assert bout.state.fighter("Pa-Kur").wounds == 5


@pytest.mark.parametrize(
    ("stats", "message"),
    [({}, "MSV stats are"), ({"cs": -1}, "CS must be"), ({"cs": 5, "dex": 3}, "MSV stats are")],
)
def test_bad_stats(stats: dict[str, Any], message: str) -> None:
    bout = BoutRunner.open("msv", "spar", rng=ScriptedRng([]))
    with pytest.raises(RuleError, match=message):
        bout.run(c.AddFighter("Tarl", stats))


def test_rule_pack_is_validated_on_open() -> None:
    with pytest.raises(RulePackError, match="unknown key 'dmg_cap' in rule pack 'msv'"):
        BoutRunner.open("msv", "spar", rng=ScriptedRng([]), rules={"dmg_cap": 3})


@settings(max_examples=examples(25), deadline=None)
@given(
    skills=st.lists(st.integers(0, 100), min_size=2, max_size=4).filter(lambda s: any(s)),
    seed=st.integers(0, 2**32),
    pack=st.sampled_from([{}, {"critical_effect": "none"}, {"tie_break": "higher-raw-roll"}]),
)
def test_every_spar_ends(skills: list[int], seed: int, pack: dict[str, Any]) -> None:
    bout = BoutRunner.open("msv", "spar", rng=SeededRng(seed), rules=pack)
    for i, cs in enumerate(skills):
        bout.run(c.AddFighter(f"F{i}", {"cs": cs}))
    bout.run(c.RollInitiative())
    bout.play_out(free_first_weakest, max_actions=20_000)
    assert bout.state.status is Status.ENDED
    standing = [f for f in bout.state.fighters if not f.defeated]
    assert [f.side for f in standing] == [bout.state.winner]


def free_first_weakest(state: BoutState, actor: str) -> tuple[str, dict[str, Any]]:
    if state.free_attack == actor:
        return "attack", {}
    target = min(state.enemies_of(actor), key=lambda f: -f.wounds)
    return "attack", {"target": target.name}
