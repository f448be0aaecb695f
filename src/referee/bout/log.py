"""The events one command writes, with the state they fold to (`Log`), and the names of the
event types the engine writes most."""

from __future__ import annotations

from referee.bout.events import Event
from referee.bout.fold import fold, written_changes
from referee.bout.state import BoutDraft, BoutState, StateReads
from referee.payloads import Shape
from referee.payloads import events as p
from referee.rng import Throw
from referee.vocabulary import EventType

#: The actor of an event that follows from another (a roll, an outcome, a turn).
SYSTEM = "system"

# The event types an action writes, as names: `EventType.ROLL` goes through the enum class's
# `__getattr__` (Python code, about ten times a plain name's cost in 3.11).
ACTION, ROLL, OUTCOME = EventType.ACTION, EventType.ROLL, EventType.OUTCOME
WOUND, CONDITION, STAT = EventType.WOUND, EventType.CONDITION, EventType.STAT
CLIENT_SEED_FIXED = EventType.CLIENT_SEED_FIXED
DEFEATED, TURN, SKIPPED, ENDED_EVENT = (
    EventType.DEFEATED,
    EventType.TURN,
    EventType.SKIPPED,
    EventType.ENDED,
)


class Log:
    """Events being written by one command, with the state they fold to.

    What it writes is folded into a draft of its own (`BoutDraft`), made from the state it
    was given at the first write and frozen into the state after the command once, at the
    end (`after`): one copy of the state per command, not one per event. The handlers read
    the state as it stands from `state`: the state given until the first write, the draft
    after it.
    """

    __slots__ = ("before", "draft", "events", "state")

    def __init__(self, before: BoutState) -> None:
        self.before = before
        #: The state as it stands, every event written so far folded in.
        self.state: StateReads = before
        self.draft: BoutDraft | None = None
        self.events: list[Event] = []

    def after(self) -> BoutState:
        """The state after the events written, as a value."""
        return self.before if self.draft is None else self.draft.freeze()

    def add(self, type_: EventType, actor: str, payload: Shape) -> None:
        """Write one event, its payload in its type's declared shape (`referee.payloads`)."""
        if type(payload) is not p.SHAPES[type_]:  # pragma: no cover - a bug in the engine
            raise TypeError(f"a {type_} event's payload is a {p.SHAPES[type_].__name__}")
        self.write(Event(type_, actor, payload.to_json()), payload)

    def write(self, event: Event, written: Shape) -> None:
        """Write `event`, whose payload holds `written` as its JSON (an outcome's holds the
        rule system's part too), folding it from `written` where the fold can."""
        draft = self.draft
        if draft is None:
            draft = self.state = self.draft = BoutDraft.of(self.before)
        seq = draft.next_seq
        changes = written_changes(draft, event, written, seq)
        if changes is None:
            self.state = self.draft = fold(draft, event, seq)
        else:
            draft.change(changes)
        self.events.append(event)

    def rolls(self, throws: list[Throw]) -> None:
        """Write each throw as a `roll` event, in order."""
        for t in throws:
            roll = p.Roll(nonce=t.nonce, dice=t.dice, faces=t.faces, stream=t.stream)
            self.add(ROLL, SYSTEM, roll)

    def fix_seed(self) -> None:
        """Before a command that rolls: fix the client seed, if the chain carries it and has
        not fixed it yet (ledger 2), so that every face is made from a seed the chain holds."""
        state = self.state
        if state.client_seed is not None and not state.seed_fixed:
            self.add(CLIENT_SEED_FIXED, SYSTEM, p.ClientSeedFixed(client_seed=state.client_seed))
