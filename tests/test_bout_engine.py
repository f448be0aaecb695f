"""The bout engine with the tiny "coin" rule system (tests/coin_system.py), every event exact."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.replay import check_outcomes
from referee.bout.runner import BoutRunner
from referee.bout.state import Status
from referee.errors import ConflictError, ForbiddenError, NotFoundError, RuleError
from referee.rng import ScriptedRng, SeededRng
from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)


def started(faces: list[int], names: Sequence[str] = ("A", "B")) -> BoutRunner:
    bout = BoutRunner.open("coin-test", "test", rng=ScriptedRng(faces))
    for name in names:
        bout.run(c.AddFighter(name, {"power": 1}))
    bout.run(c.RollInitiative())
    return bout


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def test_initiative_writes_rolls_order_and_first_turn() -> None:
    bout = started([2, 5])
    events = bout.events[3:]
    assert types(events) == ["action", "roll", "roll", "initiative", "turn"]
    assert events[1].payload == {"nonce": None, "dice": ["d6"], "faces": [2]}
    assert events[3].payload == {"order": ["B", "A"], "detail": {"rolls": {"A": 2, "B": 5}}}
    assert events[4].payload == {"fighter": "B", "round": 1}
    assert bout.state.status is Status.RUNNING and bout.state.current == "B"


def test_an_attack_writes_every_event() -> None:
    bout = started([2, 5, 4])
    new = bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    assert [(e.type, e.actor) for e in new] == [
        ("action", "B"),
        ("roll", "system"),
        ("outcome", "system"),
        ("wound", "system"),
        ("turn", "system"),
    ]
    assert new[0].payload == {"kind": "attack", "options": {"target": "A"}, "by": "B"}
    assert new[2].payload == {
        "face": 4,
        "target": "A",
        "wounds": 1,
        "kind": "attack",
        "actor": "B",
        "summary": "B rolls 4 against A",
        "extra_action": False,
    }
    assert new[3].payload == {"target": "A", "amount": 1, "total": 1}
    assert new[4].payload == {"fighter": "A", "round": 1}


def test_a_free_action_keeps_the_turn_and_a_chain_can_end_the_bout() -> None:
    bout = started([2, 5, 6, 6])
    first = bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    assert types(first) == ["action", "roll", "outcome", "wound"]
    assert bout.state.current == "B" and bout.state.free_attack == "B"
    second = bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    assert types(second) == ["action", "roll", "outcome", "wound", "defeated", "ended"]
    assert second[-1].payload == {"winner": "B", "reason": "one side is left"}
    assert bout.state.status is Status.ENDED and bout.state.winner == "B"


def test_a_stunned_fighter_loses_its_next_turn_and_the_round_turns() -> None:
    bout = started([2, 5, 5, 1], names=("A", "B"))
    new = bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    assert types(new) == [
        "action",
        "roll",
        "outcome",
        "wound",
        "condition",
        "skipped",
        "condition",
        "turn",
    ]
    assert new[5].payload == {"name": "A", "reason": "stunned"}
    assert new[6].payload == {"target": "A", "condition": "stunned", "rounds": 0}
    assert new[7].payload == {"fighter": "B", "round": 2}
    assert bout.state.fighter("A").conditions == {}


def test_out_of_turn_paused_and_ended_are_conflicts() -> None:
    bout = started([2, 5])
    with pytest.raises(ConflictError, match="out of turn: it is B's turn, not A's"):
        bout.run(c.Act("A", "attack", {"target": "B"}), by="A")
    with pytest.raises(ForbiddenError):
        bout.run(c.Act("B", "attack", {"target": "A"}), by="A")
    bout.run(c.Pause())
    with pytest.raises(ConflictError, match="paused"):
        bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    bout.run(c.Resume())
    bout.run(c.End(winner="A"))
    with pytest.raises(ConflictError, match="ended"):
        bout.run(c.Act("B", "attack", {"target": "A"}), by="B")


def test_only_the_referee_holds_the_referee_powers() -> None:
    bout = started([2, 5])
    for command in (c.Pause(), c.Skip(), c.Void(), c.End(), c.Cancel(), c.Reveal("A")):
        with pytest.raises(ForbiddenError):
            bout.run(command, by="A")


def test_void_takes_back_the_last_action_and_state_is_derived_again() -> None:
    bout = started([2, 5, 4, 1])
    bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    assert bout.state.fighter("A").wounds == 1
    voided = bout.run(c.Void())
    assert voided[0].payload == {"from": 8, "to": 12}
    assert bout.state.fighter("A").wounds == 0
    assert bout.state.current == "B"
    # The next roll uses the next face: a voided roll is never rolled again.
    new = bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    assert new[1].payload["faces"] == [1]


def test_override_is_recorded_beside_the_original() -> None:
    bout = started([2, 5, 4])
    new = bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    outcome_seq = len(bout.events) - len(new) + 2
    over = bout.run(c.Override(outcome_seq, {"A": 3}, note="a clean blow"))
    assert types(over) == ["overridden", "defeated", "ended"]
    assert over[0].payload == {
        "of": outcome_seq,
        "original": [{"target": "A", "amount": 1}],
        "wounds": [{"target": "A", "amount": 3, "total": 3}],
        "note": "a clean blow",
    }
    assert bout.events[outcome_seq].payload["wounds"] == 1  # the original stays
    assert bout.state.winner == "B"
    with pytest.raises(NotFoundError):
        bout.run(c.Override(0, {"A": 1}))


def test_three_fighters_two_sides_and_removal() -> None:
    bout = BoutRunner.open("coin-test", "melee", rng=ScriptedRng([1, 2, 3, 4]))
    bout.run(c.AddFighter("A", {}, side="red"))
    bout.run(c.AddFighter("B", {}, side="red"))
    bout.run(c.AddFighter("C", {}, side="blue"))
    bout.run(c.RollInitiative())
    assert bout.state.order == ("C", "B", "A")
    assert [f.name for f in bout.state.enemies_of("C")] == ["A", "B"]
    new = bout.run(c.RemoveFighter("C"), by="C")
    assert types(new) == ["fighter_removed", "ended"]
    assert bout.state.winner == "red"


def test_bad_input_changes_nothing() -> None:
    bout = started([2, 5])
    before = list(bout.events)
    with pytest.raises(ConflictError):
        bout.run(c.AddFighter("A", {}))
    with pytest.raises(RuleError):
        bout.run(c.AddFighter("", {}))
    with pytest.raises(RuleError):
        bout.run(c.AddFighter("x" * 41, {}))
    with pytest.raises(RuleError):
        bout.run(c.AddFighter("D", {"speed": 1}))
    with pytest.raises(RuleError, match="unknown action 'dance'"):
        bout.run(c.Act("B", "dance", {}), by="B")
    with pytest.raises(RuleError, match="fraction"):
        bout.run(c.Act("B", "attack", {"target": "A", "x": 1.5}), by="B")
    with pytest.raises(NotFoundError):
        bout.run(c.Act("B", "attack", {"target": "Nobody"}), by="B")
    assert bout.events == before


def test_hidden_stats_are_left_out_of_the_public_view() -> None:
    from referee.bout.view import state_view

    bout = BoutRunner.open("coin-test", "t", rng=ScriptedRng([]))
    bout.run(c.AddFighter("Orc", {"power": 9}, hidden=("power",)))
    public = state_view(bout.state, {})
    referee = state_view(bout.state, {}, reveal_all=True)
    assert public["fighters"][0]["stats"] == {}  # type: ignore[index]
    assert referee["fighters"][0]["stats"] == {"power": 9}  # type: ignore[index]
    bout.run(c.Reveal("Orc"))
    assert state_view(bout.state, {})["fighters"][0]["stats"] == {"power": 9}  # type: ignore[index]


@pytest.mark.parametrize("seed", range(20))
def test_every_bout_ends_and_replays_clean(seed: int) -> None:
    bout = BoutRunner.open("coin-test", "t", rng=SeededRng(seed))
    for name in ("A", "B", "C"):
        bout.run(c.AddFighter(name, {}))
    bout.run(c.RollInitiative())
    bout.play_out()
    assert bout.state.status is Status.ENDED
    assert len(bout.state.living()) == 1
    assert check_outcomes(bout.events) == []


def test_replay_names_the_first_altered_event() -> None:
    bout = started([2, 5, 4, 1, 1])
    bout.run(c.Act("B", "attack", {"target": "A"}), by="B")
    bout.run(c.Act("A", "attack", {"target": "B"}), by="A")
    events = list(bout.events)
    seq = next(i for i, e in enumerate(events) if e.type == "outcome")
    forged = dict(events[seq].payload, wounds=2)
    events[seq] = Event(events[seq].type, events[seq].actor, forged)
    problems = check_outcomes(events)
    assert [p.seq for p in problems] == [seq]
    assert "does not follow the rules" in problems[0].message
