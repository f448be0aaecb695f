"""Bouts of both rule systems that hold every event type and every action kind, played by the
bout engine with seeded dice (no service): what the payload, renderer and schema tests read.

`every_event("msv")` and `every_event("srp")` return the bout's events as ledger records
(`seq`, `type`, `actor`, `at`, `payload`); between them every `EventType` shows up, and every
action kind of each system.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from referee.bout import commands as c
from referee.bout.engine import REFEREE, decide, failed
from referee.bout.events import Event
from referee.bout.fold import project
from referee.bout.state import BoutState
from referee.errors import RuleError
from referee.payloads import events as p
from referee.rng import SeededRng, Throw
from referee.vocabulary import EventType

AT = "2026-11-29T22:40:12.000000Z"
SEED = "ab" * 32


@dataclass
class Play:
    """A bout played through the engine, one command at a time."""

    system: str
    rng: SeededRng = field(default_factory=lambda: SeededRng(7))
    state: BoutState = field(default_factory=BoutState)
    events: list[Event] = field(default_factory=list)

    def do(self, command: c.Command, by: str = REFEREE) -> list[Event]:
        decision = decide(self.state, command, self.rng, by=by)
        self.events += decision.events
        self.state = decision.state
        return decision.events

    def header(self, **more: Any) -> None:
        """The header as the service writes it: the engine's opening with `more` keys (the
        ledger format, the referee's part of the client seed, ...)."""
        opened = self.events[0]
        self.events[0] = Event(opened.type, opened.actor, {**opened.payload, **more})
        self.state = project(self.events)

    def write(self, kind: EventType, actor: str, payload: p.Shape) -> None:
        """An event the service writes itself (rotation, hand-over, close)."""
        self.events.append(Event(kind, actor, payload.to_json()))

    def turn_to(self, name: str) -> None:
        for _ in range(60):
            if self.state.current == name:
                fighter = self.state.fighter(name)
                if not {"stunned", "lost_action"} & set(fighter.conditions):
                    return
                self.do(c.Act(name, "pass"))
                continue
            self.do(c.Skip())
        raise AssertionError(f"{name} never got the turn")

    def until_worked(self, actor: str, kind: str, options: dict[str, Any]) -> None:
        for _ in range(30):
            self.turn_to(actor)
            written = self.do(c.Act(actor, kind, options))
            if any(e.payload.get("worked") for e in written if e.type == EventType.OUTCOME):
                return
        raise AssertionError(f"{kind} never worked")

    def failed_roll(self, actor: str) -> None:
        """A free roll that failed after its dice were thrown (as the service records it)."""
        throw = Throw((6,), (4,), None, None)
        decision = failed(self.state, c.FreeRoll(actor, (6,)), actor, [throw], RuleError("no"))
        self.events += decision.events
        self.state = decision.state

    def records(self) -> list[dict[str, Any]]:
        return [
            {"seq": seq, "type": str(e.type), "actor": e.actor, "at": AT, "payload": e.payload}
            for seq, e in enumerate(self.events)
        ]


def _service_events(play: Play) -> None:
    play.write(
        EventType.SEED_ROTATED,
        "system",
        p.SeedRotated(index=1, server_seed=SEED, next_commitment="cd" * 32),
    )
    play.write(EventType.REFEREE_CHANGED, REFEREE, p.Nothing())
    play.write(EventType.CLOSED, REFEREE, p.Closed(server_seed=SEED, commitment="ef" * 32))


def _msv() -> Play:
    play = Play("msv")
    play.do(c.Open("msv", "Spar at Ko-ro-ba", {"defeat_threshold": 60}, dialect="onlinehost"))
    # a bout of ledger 2, as the service makes it: the client seed's parts in the chain
    play.header(dice_scheme=2, ledger=2, client_seed="gm")
    play.do(c.AddFighter("Tarl", {"cs": 60}, "a", seed_part="tarl-7"), by="Tarl")
    play.do(c.AddFighter("Orc", {"cs": 90}, "b", ("cs",)))
    play.do(c.AddFighter("Imp", {"cs": 40}, "b"))
    play.do(c.CloseJoining())
    play.do(c.RollInitiative())
    play.do(c.FreeRoll("Tarl", expression="2d6+1", label="to hit"), by="Tarl")
    play.do(c.FreeRoll("Tarl", (20, 20)), by="Tarl")
    play.failed_roll("Tarl")
    play.do(c.Pause())
    play.do(c.Resume())
    for _ in range(80):  # until a critical, a wound and a defeat have happened
        actor = play.state.current
        if actor is None:
            break
        foe = "Orc" if actor == "Tarl" else "Tarl"
        play.do(c.Act(actor, "attack", {"target": foe}))
        kinds = {e.type for e in play.events}
        crit = any(e.payload.get("critical") for e in play.events if e.type == "outcome")
        if crit and EventType.WOUND in kinds and EventType.CONDITION in kinds:
            break
    outcome = max(play.state.outcome_wounds)
    play.do(c.Override(outcome, {"Orc": 3}, "the strap broke"))
    play.do(c.UpdateFighter("Imp", {"cs": 45}, 2))
    play.do(c.Reveal("Orc"))
    play.do(c.Void())
    play.do(c.UpdateFighter("Orc", wounds=60))
    play.do(c.UpdateFighter("Imp", wounds=60))
    _service_events(play)
    return play


def _srp_sheets() -> dict[str, tuple[str, dict[str, Any], tuple[str, ...]]]:
    sword = {"name": "sword", "damage": 2, "codes": ["D", "E", "G", "U"]}
    bow = {"name": "bow", "damage": 2, "effective_range_cm": 3000, "long_range_cm": 9000}
    pike = {"name": "pike", "damage": 2, "reach_cm": 300, "hands": 2}
    axe = {"name": "axe", "damage": 2, "codes": ["D", "G"]}
    ann = {
        "hits": 100, "skills": {"sword": 15, "bow": 14}, "defense": 12, "avoid": 11,
        "armor": 2, "pm": 20, "spirit": 5, "weapons": [sword, bow],
        "x_cm": 600, "y_cm": 0, "facing": 180,
    }  # fmt: skip
    orc = {
        "hits": 100, "skills": {"pike": 12, "axe": 12, "bow": 12}, "defense": 9, "avoid": 9,
        "armor": 3, "pm": 15, "spirit": 4, "weapons": [pike, axe, bow], "mounted": True,
        "x_cm": 0, "y_cm": 0, "facing": 0,
    }  # fmt: skip
    return {
        "Ann": ("a", ann, ()),
        "Orc": ("b", orc, ("skills", "armor")),
        "Bob": ("b", {"hits": 50, "pm": 9, "spirit": 5}, ()),
        "Imp": ("b", {"hits": 50, "pm": 1, "spirit": 1}, ("pm",)),
    }


def _srp() -> Play:
    play = Play("srp")
    play.do(c.Open("srp", "Shadows", {"turn_order": "roll"}))
    for name, (side, sheet, hidden) in _srp_sheets().items():
        play.do(c.AddFighter(name, sheet, side, hidden))
    play.do(c.RollInitiative())
    play.turn_to("Ann")
    play.do(c.Act("Ann", "charge", {"path": [[450, 0], [300, 0], [150, 0]]}))
    play.turn_to("Orc")
    play.do(c.Act("Orc", "attack", {"target": "Ann", "weapon": "axe"}))
    play.turn_to("Bob")
    play.do(c.Act("Bob", "spirit", {"target": "Ann", "helpers": ["Imp"]}))
    play.turn_to("Orc")
    play.do(c.Act("Orc", "shoot", {"target": "Ann", "weapon": "bow"}))
    play.turn_to("Ann")
    play.do(c.Act("Ann", "shoot", {"target": "Orc", "weapon": "bow", "fire": "rapid"}))
    play.turn_to("Ann")
    play.do(c.Act("Ann", "spirit", {"target": "Imp"}))
    play.until_worked("Ann", "grapple", {"target": "Orc", "defend": "none"})
    for _ in range(2):
        play.turn_to("Orc")
        play.do(c.Act("Orc", "break_free"))
    play.until_worked("Ann", "disarm", {"target": "Orc", "defend": "none"})
    play.turn_to("Orc")
    play.do(c.Act("Orc", "pick_up"))
    play.turn_to("Ann")
    play.do(c.Act("Ann", "entangle", {"target": "Orc", "defend": "avoid"}))
    if play.state.fighter("Ann").stats.get("holds") != "Orc":
        play.until_worked("Ann", "grapple", {"target": "Orc", "defend": "none"})
    play.turn_to("Ann")
    play.do(c.Act("Ann", "release"))
    play.until_worked("Ann", "unhorse", {"target": "Orc", "defend": "none"})
    play.turn_to("Orc")
    play.do(c.Act("Orc", "move", {"path": [[0, -150]]}))
    play.turn_to("Orc")
    play.do(c.Act("Orc", "step", {"path": [[0, 0]]}))
    play.turn_to("Orc")
    play.do(c.Act("Orc", "face", {"facing": 90}))
    play.turn_to("Orc")
    play.do(c.Act("Orc", "pass"))
    play.do(c.RemoveFighter("Bob"))
    play.do(c.PassTime(60, "the Orc asks for an hour to think"))
    play.do(c.End("a", "the Orc yields"))
    _service_events(play)
    return play


def _cancelled() -> Play:
    play = Play("msv")
    play.do(c.Open("msv", "Called off"))
    # the next fight of an evening, as the service makes it (docs/srp.md, "An evening")
    play.header(follows="bout-1", follows_head="ab" * 32, clock=90)
    play.do(c.AddFighter("Tarl", {"cs": 60}, carried=True, wounds=4, conditions={"stunned": 1}))
    play.do(c.UpdateFighter("Tarl", wounds=2, reason="healing: a salve", clear=("stunned",)))
    play.do(c.Cancel("rain"))
    return play


@functools.cache
def _played(system: str) -> tuple[dict[str, Any], ...]:
    play = {"msv": _msv, "srp": _srp, "cancelled": _cancelled}[system]()
    return tuple(play.records())


def every_event(system: str) -> list[dict[str, Any]]:
    """The records of a bout of `system` ("msv", "srp", or "cancelled": an MSV bout called
    off), fresh copies each call."""
    import copy

    return copy.deepcopy(list(_played(system)))
