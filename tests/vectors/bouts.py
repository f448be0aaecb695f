"""Random bouts for property tests: plans of commands played with real rules and dice.

A plan is a list of steps; each step is played if the bout allows it and skipped otherwise
(an illegal command raises a RefereeError and writes nothing), so every plan gives a bout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.fold import project
from referee.bout.runner import BoutRunner
from referee.bout.state import BoutState
from referee.errors import RefereeError
from referee.rng import Rng

#: The steps a plan is made of (an attack is by whoever's turn it is).
STEPS = (
    "attack",
    "attack",
    "attack",
    "void",
    "override",
    "pause",
    "resume",
    "skip",
    "roll",
    "update",
    "end",
)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a plan: what to do, and a number that picks its details."""

    kind: str
    pick: int


def plans(max_steps: int = 30) -> st.SearchStrategy[list[Step]]:
    """Plans of up to `max_steps` steps, voids and overrides among them."""
    step = st.builds(Step, st.sampled_from(STEPS), st.integers(0, 1000))
    return st.lists(step, min_size=1, max_size=max_steps)


def command_of(step: Step, state: BoutState, events: Sequence[Event]) -> tuple[c.Command, str]:
    """The command a step stands for in this state, and who gives it."""
    names = [f.name for f in state.fighters]
    current = state.current or names[0]
    if step.kind == "attack":
        targets = [n for n in names if n != current]
        return c.Act(current, "attack", {"target": targets[step.pick % len(targets)]}), current
    if step.kind == "void":
        return c.Void(), "referee"
    if step.kind == "override":
        outcomes = sorted(state.outcome_wounds) or [len(events)]
        target = names[step.pick % len(names)]
        return c.Override(outcomes[step.pick % len(outcomes)], {target: step.pick % 4}), "referee"
    if step.kind == "roll":
        return c.FreeRoll(current, (20, 6)[: 1 + step.pick % 2]), current
    if step.kind == "update":
        return c.UpdateFighter(names[step.pick % len(names)], wounds=step.pick % 3), "referee"
    if step.kind == "end":
        winner = state.fighter(names[step.pick % len(names)]).side if step.pick % 2 else None
        return c.End(winner), "referee"
    simple: dict[str, Callable[[], c.Command]] = {
        "pause": c.Pause,
        "resume": c.Resume,
        "skip": c.Skip,
    }
    return simple[step.kind](), "referee"


def play(
    plan: Sequence[Step],
    rng: Rng,
    fighters: Sequence[tuple[str, int]] = (("Tarl", 60), ("Pa-Kur", 70)),
    *,
    on_events: Callable[[list[Event]], Any] | None = None,
    on_step: Callable[[BoutRunner], Any] | None = None,
    header: Mapping[str, Any] | None = None,
    parts: Sequence[str | None] = (),
    hidden: Sequence[tuple[str, ...]] = (),
) -> BoutRunner:
    """An MSV bout with these fighters, initiative rolled, then the plan's legal steps.

    `header`: more keys of the opening (as the service writes them: a ledger-2 bout's format
    and the referee's part of the client seed); `parts`: each fighter's own part, given as it
    joins (None: none); `hidden`: each fighter's hidden stats."""
    bout = BoutRunner.open("msv", "spar", rng=rng)
    if header:
        opened = bout.events[0]
        bout.events[0] = Event(opened.type, opened.actor, {**opened.payload, **header})
        bout.state = project(bout.events)
    run = _runner(bout, on_events)
    for i, (name, cs) in enumerate(fighters):
        part = parts[i] if i < len(parts) else None
        secret = hidden[i] if i < len(hidden) else ()
        run(c.AddFighter(name, {"cs": cs}, hidden=secret, seed_part=part), "referee")
    run(c.RollInitiative(), "referee")
    for step in plan:
        if on_step is not None:
            on_step(bout)
        command, by = command_of(step, bout.state, bout.events)
        try:
            run(command, by)
        except RefereeError:
            continue
    return bout


def _runner(
    bout: BoutRunner, on_events: Callable[[list[Event]], Any] | None
) -> Callable[[c.Command, str], None]:
    def run(command: c.Command, by: str) -> None:
        new = bout.run(command, by=by)
        if on_events is not None:
            on_events(new)

    return run
