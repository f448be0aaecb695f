"""The fold is a true fold: folding event by event equals folding from scratch, voids included."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.fold import apply, project
from referee.bout.state import BoutState
from referee.rng import SeededRng
from tests.vectors.bouts import Step, plans, play


def states_event_by_event(events: list[Event]) -> list[BoutState]:
    states, state = [], BoutState()
    for seq, event in enumerate(events):
        state = apply(state, event, seq)
        states.append(state)
    return states


@settings(max_examples=60, deadline=None)
@given(plan=plans(), seed=st.integers(0, 2**32))
def test_the_incremental_fold_equals_a_fold_from_scratch_event_by_event(
    plan: list[Step], seed: int
) -> None:
    bout = play(plan, SeededRng(seed))
    for seq, state in enumerate(states_event_by_event(bout.events)):
        assert state == project(bout.events[: seq + 1]), f"after event {seq}"
    assert bout.state == project(bout.events)


def fold_pairs(pairs: list[tuple[int, Event]]) -> BoutState:
    state = BoutState()
    for seq, event in pairs:
        state = apply(state, event, seq)
    return state


def test_state_after_a_void_equals_the_chain_without_the_voided_group() -> None:
    bout = play([Step("attack", 0), Step("attack", 1), Step("attack", 2)], SeededRng(7))
    first, last = bout.state.actions[-1]
    voided = bout.run(c.Void())
    assert voided[0].payload == {"from": first, "to": last}
    kept = [(i, e) for i, e in enumerate(bout.events) if not first <= i <= last]
    assert bout.state == replace(fold_pairs(kept), next_seq=len(bout.events))
    assert bout.state.actions == fold_pairs(kept).actions
    # Voiding again takes back the action before it as well.
    earlier_first, earlier_last = bout.state.actions[-1]
    bout.run(c.Void())
    kept = [(i, e) for i, e in kept if not earlier_first <= i <= earlier_last]
    kept.append((len(bout.events) - 1, bout.events[-1]))
    assert bout.state == fold_pairs(kept)


def test_no_caller_refolds_a_void_by_hand() -> None:
    from pathlib import Path

    import referee

    root = Path(referee.__file__).parent
    for path in ("service/bouts.py", "bout/replay.py", "bout/runner.py"):
        text = (root / path).read_text(encoding="utf-8")
        assert "VOIDED" not in text and '"voided"' not in text, path
