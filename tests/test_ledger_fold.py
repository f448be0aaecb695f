"""The fold is a true fold: folding event by event equals folding from scratch, voids included."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bout import commands as c
from referee.bout.engine import decide
from referee.bout.events import Event
from referee.bout.fold import AS_WRITTEN, apply, project
from referee.bout.state import BoutDraft, BoutState, Fighter, StateReads, evolve
from referee.errors import RefereeError
from referee.rng import SeededRng
from referee.service.bouts import RefereeService
from referee.store import Store
from tests import every_event
from tests.depth import examples
from tests.seeds import for_test
from tests.vectors.bouts import Step, command_of, plans, play


def states_event_by_event(events: list[Event]) -> list[BoutState]:
    states, state = [], BoutState()
    for seq, event in enumerate(events):
        state = apply(state, event, seq)
        states.append(state)
    return states


@settings(max_examples=examples(60), deadline=None)
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


@settings(max_examples=examples(40), deadline=None)
@given(plan=plans(), seed=st.integers(0, 2**32))
def test_the_state_decide_returns_is_the_fold_of_every_event_from_scratch(
    plan: list[Step], seed: int
) -> None:
    """`decide` folds its events as it writes them; that state, command by command (voids
    too), equals folding the whole chain from nothing: no caller needs to fold again."""
    events: list[Event] = []
    state = BoutState()
    rng = SeededRng(seed)

    def run(command: c.Command, by: str = "referee") -> None:
        nonlocal state
        decision = decide(state, command, rng, by=by)
        events.extend(decision.events)
        assert decision.state == project(events), command
        assert decision.state.next_seq == len(events)
        state = decision.state

    run(c.Open("msv", "spar"))
    run(c.AddFighter("Tarl", {"cs": 60}))
    run(c.AddFighter("Pa-Kur", {"cs": 70}))
    run(c.RollInitiative())
    for step in plan:
        command, by = command_of(step, state, events)
        try:
            run(command, by)
        except RefereeError:
            continue
    assert state == project(events)


def test_the_service_caches_the_engines_state_and_it_equals_a_fold_from_scratch(
    tmp_path: Path,
) -> None:
    """The service keeps the state `decide` folded (it never folds the new events again);
    after attacks, a void and an end, that state is the fold of the stored chain."""
    store = Store.open(str(tmp_path / "fold.db"))
    service = RefereeService(store, entropy=for_test())
    made = service.create_bout("msv", "spar", client_seed="table")
    bout, referee = made["id"], service.caller(made["id"], made["referee_token"])
    for name, cs in (("Tarl", 60), ("Pa-Kur", 70)):
        service.add_fighter(bout, referee, name, {"cs": cs})
    service.command(bout, referee, c.RollInitiative())
    for _ in range(6):
        current = service.state(bout).current
        assert current is not None
        target = "Pa-Kur" if current == "Tarl" else "Tarl"
        service.act(bout, referee, current, "attack", {"target": target})
        if service.state(bout).status.value != "running":
            break
    service.command(bout, referee, c.Void())
    records = service.records(bout)
    cached = service.cache.state(bout, records)
    assert cached == project([Event.from_dict(r) for r in records])
    assert cached.next_seq == len(records) > 10


@settings(max_examples=examples(100), deadline=None)
@given(plan=plans(), seed=st.integers(0, 2**32), data=st.data())
def test_evolve_makes_the_state_replace_makes(
    plan: list[Step], seed: int, data: st.DataObject
) -> None:
    """The fold's copies of a state and of a fighter (`evolve`) equal `dataclasses.replace`,
    every field (`in_force`, outside equality, included)."""
    states = states_event_by_event(play(plan, SeededRng(seed)).events) or [BoutState()]
    state = data.draw(st.sampled_from(states))
    donor = data.draw(st.sampled_from(states))
    names = data.draw(st.sets(st.sampled_from([f.name for f in fields(BoutState)])))
    changes = {name: getattr(donor, name) for name in names}
    assert_evolves_as_replace(state, changes)
    fighters = [f for s in states for f in s.fighters]
    if fighters:  # and a fighter, as the fold changes one
        fighter, other = data.draw(st.sampled_from(fighters)), data.draw(st.sampled_from(fighters))
        names = data.draw(st.sets(st.sampled_from([f.name for f in fields(Fighter)])))
        assert_evolves_as_replace(fighter, {name: getattr(other, name) for name in names})


def assert_evolves_as_replace(value: Any, changes: dict[str, Any]) -> None:
    """`evolve(value, changes)` equals `replace`, and every field is the very object given or
    kept."""
    made = evolve(value, changes)
    assert made == replace(value, **changes)
    for f in fields(value):
        assert getattr(made, f.name) is changes.get(f.name, getattr(value, f.name))


def test_a_draft_reads_and_freezes_as_the_state_it_holds() -> None:
    """`StateReads`, what the fold and the engine read of a state or a draft, declares each
    field of `BoutState` with the same type; a draft has every field, refuses a name that is
    none, and freezes into the state of its fields, each the very object it holds."""
    assert StateReads.__annotations__ == {f.name: f.type for f in fields(BoutState)}
    state = play([Step("attack", 0), Step("attack", 1)], SeededRng(3)).state
    draft = BoutDraft.of(state)
    assert [getattr(draft, f.name) for f in fields(BoutState)] == [
        getattr(state, f.name) for f in fields(BoutState)
    ]
    assert (draft.current, draft.sides_left(), draft.living()) == (
        state.current,
        state.sides_left(),
        state.living(),
    )
    with pytest.raises(AttributeError):
        draft.change({"no_such_field": 1})
    draft.change({"round": 9, "winner": "a"})
    frozen = draft.freeze()
    assert frozen == replace(state, round=9, winner="a")
    for f in fields(BoutState):
        assert getattr(frozen, f.name) is getattr(draft, f.name)


@pytest.mark.parametrize("system", ["msv", "srp", "cancelled"])
def test_the_state_the_engine_folds_as_it_writes_equals_a_fold_of_the_stored_json(
    system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine folds most events from the shape it wrote them from (`written_changes`), not
    from their JSON, on a copy of its own: after every command of bouts of both systems that
    hold every event type, its state equals `project` of the events as stored (canonical JSON,
    read back), and the state it was given is unchanged."""
    played = every_event.Play.do
    folded_as_written: set[str] = set()

    def do(self: every_event.Play, command: c.Command, by: str = "referee") -> list[Event]:
        before = self.state
        values = [getattr(before, f.name) for f in fields(BoutState)]
        written = played(self, command, by)
        stored = [Event.from_dict(json.loads(json.dumps(e.to_dict()))) for e in self.events]
        assert self.state == project(stored), command
        # the engine's own copy changed as it wrote, never the state it was given
        assert [getattr(before, f.name) for f in fields(BoutState)] == values, command
        folded_as_written.update(str(e.type) for e in written if e.type in AS_WRITTEN)
        return written

    monkeypatch.setattr(every_event.Play, "do", do)
    {"msv": every_event._msv, "srp": every_event._srp, "cancelled": every_event._cancelled}[
        system
    ]()
    assert folded_as_written  # the fast path was taken
