"""A bout held in memory: a list of events, a rule system, a dice source.

This is what the CLI's spars and fights, the tests and the simulations use; the service keeps
the same events in its store and calls `decide` itself.

>>> from referee.bout import commands as c
>>> from referee.rng import ScriptedRng
>>> bout = BoutRunner.open("msv", "spar", rng=ScriptedRng([]))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.bout import commands as c
from referee.bout.engine import REFEREE, decide, system_of
from referee.bout.events import Event
from referee.bout.state import BoutState, Status
from referee.errors import LimitError
from referee.rng import Rng
from referee.systems.base import RuleSystem

#: Chooses the next action of the fighter whose turn it is: (kind, options).
Strategy = Callable[[BoutState, str], tuple[str, dict[str, Any]]]


def focus_weakest(state: BoutState, actor: str) -> tuple[str, dict[str, Any]]:
    """Attack the living enemy closest to defeat (most wounds; ties: earliest in the order)."""
    enemies = state.enemies_of(actor)
    order = {name: i for i, name in enumerate(state.order)}
    target = min(enemies, key=lambda f: (-f.wounds, order.get(f.name, 0)))
    return "attack", {"target": target.name}


@dataclass(slots=True)
class BoutRunner:
    """Events of one bout in memory, with its state kept folded."""

    rng: Rng
    events: list[Event] = field(default_factory=list)
    state: BoutState = field(default_factory=BoutState)
    system: RuleSystem | None = None

    @classmethod
    def open(
        cls, system: str, name: str, rng: Rng, rules: Mapping[str, Any] | None = None
    ) -> BoutRunner:
        """A new bout of `system` with a rule pack."""
        runner = cls(rng)
        runner.run(c.Open(system, name, dict(rules or {})))
        return runner

    def run(self, command: c.Command, by: str = REFEREE) -> list[Event]:
        """Decide `command` and append its events; return them."""
        new, self.state = decide(self.state, command, self.rng, by=by, system=self.system)
        self.events.extend(new)
        if self.system is None and self.state.system:
            self.system = system_of(self.state)
        return new

    def play_out(self, strategy: Strategy = focus_weakest, max_actions: int = 10_000) -> None:
        """Act for whoever's turn it is until the bout ends (at most `max_actions` actions)."""
        for _ in range(max_actions):
            if self.state.status is not Status.RUNNING:
                return
            actor = self.state.current
            if actor is None:
                return
            kind, options = strategy(self.state, actor)
            self.run(c.Act(actor, kind, options), by=actor)
        if self.state.status is Status.RUNNING:
            raise LimitError(f"the bout did not end within {max_actions} actions")
