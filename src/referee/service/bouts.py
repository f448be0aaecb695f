"""The referee's operations on stored bouts: what the HTTP routes and the chat endpoint call.

Every operation that changes a bout decides its events with the bout engine inside the store's
per-bout write lock (`Store.extend`), with the verifiable dice source at the bout's
next nonce, and chains them onto the ledger in the same transaction. Nothing is answered before
it is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from referee.bout import commands as c
from referee.bout.commands import Via as Via
from referee.bout.engine import REFEREE, decide, failed, system_of
from referee.bout.events import Event, EventType
from referee.bout.names import fighter_name
from referee.bout.names import name as checked_name
from referee.bout.permissions import check
from referee.bout.powers import MAX_REASON
from referee.bout.state import BoutState, Status
from referee.breaks import first_break, one_line_json
from referee.chat.answers import clip, said
from referee.errors import ConflictError, LimitError, RuleError
from referee.ledger import WHOLE_RECORD
from referee.ledger.seal import SALT_BYTES, Draft, without_seal
from referee.payloads import events as p
from referee.rng import RecordingRng, new_server_seed
from referee.rng.streams import SCHEME_KEY, STREAMS
from referee.service import evenings
from referee.service.answers import action_answer as action_answer
from referee.service.answers import failure_of as failure_of
from referee.service.budgets import Spending
from referee.service.callers import ANONYMOUS as ANONYMOUS
from referee.service.callers import Caller as Caller
from referee.service.callers import new_token as new_token
from referee.service.reading import ROTATE_EVERY as ROTATE_EVERY
from referee.service.reading import BoutReader
from referee.service.redaction import (
    hidden_stats,
    redact_hidden,
    seal_hidden,
)
from referee.service.states import Record as Record
from referee.service.states import StateCache as StateCache
from referee.store import Dice, Role
from referee.systems.base import RuleSystem, find_system
from referee.vocabulary import JSON

MAX_SEED_PART = 64


class RefereeService(BoutReader):
    """Bouts held in a `Store`, run by the bout engine, with verifiable dice.

    Every operation that changes a bout runs in one unit of work of the store (`unit`): its
    events, its seeds, its tokens and the bout's status are stored together or not at all.
    """

    # -- creating ------------------------------------------------------------------------

    def create_bout(
        self,
        system: str,
        name: str,
        client_seed: str | None = None,
        rules: Mapping[str, Any] | None = None,
        dialect: str = "roll20",
        follows: Mapping[str, JSON] | None = None,
    ) -> dict[str, Any]:
        """A new bout: the commitment is published now, before any roll.

        `dialect` is the dice notation its in-bout rolls are read in (roll20, onlinehost, d20);
        `follows`, the header's link to the fight it follows (`referee.bout.evening.Link`).
        The bout, its first seed, the referee's token and its opening event: one transaction.
        """
        rule_system = find_system(system)(rules or {})
        name = bout_name(name)
        part = _seed_part(client_seed) if client_seed is not None else self._entropy(8).hex()
        token = new_token()
        opened = decide(
            BoutState(), c.Open(system, name, rule_system.rules, dialect), _NO_DICE
        ).events
        with self.unit():
            record = self.store.create_bout(
                system=system,
                name=name,
                rules=rule_system.rules,
                server_seed=self.new_seed(),
                client_seed=part,
                referee_token=token,
            )
            # The chain opens with the bout's header and the commitment, so nothing in an
            # export stands outside the chain and the log itself shows the commitment came
            # before any roll.
            header: dict[str, JSON] = {
                "id": record.id,
                "created_at": record.created_at,
                "commitment": record.commitment,
                # every owner's dice from a stream of its own (`referee.rng.streams`)
                SCHEME_KEY: STREAMS,
                # every input of every face in the chain, hidden values sealed (docs/ledger.md)
                "ledger": WHOLE_RECORD,
                "client_seed": record.client_seed,
                **(follows or {}),
            }
            opened = [Event(e.type, e.actor, {**e.payload, **header}) for e in opened]
            self.store.extend(record.id, lambda current, rng: opened, dice=False)
        return {
            "id": record.id,
            "referee_token": token,
            "commitment": record.commitment,
            "client_seed": record.client_seed,
            "system": system,
            "name": name,
        }

    def add_fighter(
        self,
        bout_id: str,
        caller: Caller,
        name: str,
        stats: Mapping[str, Any],
        side: str | None = None,
        hidden: Sequence[str] = (),
        client_seed: str | None = None,
        joining: bool = False,
        character: tuple[str, int] | None = None,
    ) -> dict[str, Any]:
        """Add a fighter (the referee's) or let one join (anyone, while the bout is open).

        A fighter may add its own part to the client seed, until the first roll. The fighter,
        its part of the client seed and its token are stored in one transaction. `character`:
        the saved character (id, version) it is, recorded in its join
        (`referee.service.characters.join_character`).
        """
        if joining and caller.role is Role.FIGHTER:
            raise ConflictError("this token already speaks for a fighter")
        # Checked against the roster as it is now, so that a look-alike is told whom it looks
        # like before how it mixes scripts; the engine checks it again in the write.
        name = fighter_name(name, [fighter.name for fighter in self.state(bout_id).fighters])
        # Joining needs no token: the new fighter speaks for itself. Adding is the referee's
        # (the engine's permission check refuses anyone else).
        by = name if joining and caller.role is None else caller.who
        part = None if client_seed is None else _seed_part(client_seed)
        command = c.AddFighter(
            name, dict(stats), side, tuple(hidden), seed_part=part, character=character
        )

        def check(state: BoutState) -> None:
            if joining and state.status is not Status.OPEN:
                raise ConflictError("fighters may join only before initiative")

        token = new_token()
        with self.unit():
            joined = self._write(
                bout_id, command, by, check=check, client_seed_part=part, grant=(token, name)
            )
            seed = self.store.get_bout(bout_id).client_seed
        # The join's event, to keep: its hash chains the client seed's parts so far.
        last = joined[-1]
        return {
            "name": name,
            "token": token,
            "client_seed": seed,
            "seq": last["seq"],
            "hash": last["hash"],
        }

    # -- acting --------------------------------------------------------------------------

    def command(self, bout_id: str, caller: Caller, command: c.Command) -> list[Record]:
        """Run one command for the caller; the stored events come back.

        401 without a token; whether the caller may give the command is the engine's one
        permission check (`referee.bout.permissions`).
        """
        if caller.via is not None and isinstance(command, c.Act):
            command = replace(command, via=caller.via)  # recorded in its action event
        return self._write(bout_id, command, caller.who)

    def referee_command(
        self, bout_id: str, command: c.Command, grant: tuple[str, str] | None = None
    ) -> list[Record]:
        """`command` given by the bout's referee, whose say the caller already has (the next
        fight of an evening: `referee.service.evenings`); `grant` (token, fighter) gives a
        carried fighter its token in the same write."""
        return self._write(bout_id, command, REFEREE, grant=grant)

    def next_fight(self, bout_id: str, caller: Caller, **given: Any) -> dict[str, Any]:
        """The next fight of an evening after `bout_id` (`referee.service.evenings`)."""
        return evenings.next_fight(self, bout_id, caller, **given)

    def remove(self, bout_id: str, caller: Caller, name: str) -> list[Record]:
        """The referee removes a fighter, or a fighter quits (with its own token).

        The fighter's tokens are revoked in the same transaction: a new fighter of the same
        name later gets a token of its own, and the old one is refused.
        """
        with self.unit():
            records = self._write(bout_id, c.RemoveFighter(name), caller.who)
            self.store.revoke_fighter_tokens(bout_id, name)
        return records

    def act(
        self, bout_id: str, caller: Caller, actor: str, kind: str, options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """One action; the answer carries the roll and the rules' reading of it (with hidden
        stats left out for everyone but the referee), and `said`: its events as
        `referee.sentences` says them, the chat endpoint's answer (what the HUD says aloud)."""
        events = self.act_events(bout_id, caller, actor, kind, options)
        answer = action_answer(events)
        answer["rolls"] = self.key.signed_rolls(bout_id, actor, answer["rolls"])
        state = self.cache.after(bout_id, events[-1]) if events else None
        # One chat message, as the chat endpoint's answer: the HUD says it in local chat as it is.
        answer["said"] = clip(said(events, (state or self.state(bout_id)).system))
        return answer

    def act_events(
        self, bout_id: str, caller: Caller, actor: str, kind: str, options: Mapping[str, Any]
    ) -> list[Record]:
        """One action, as `act`; its events as the caller may see them (the chat endpoint says
        them through `referee.sentences`)."""
        with self.unit():
            events = self.command(bout_id, caller, c.Act(actor, kind, dict(options)))
            if caller.role is not Role.REFEREE:
                hidden, system, ledger = self._hidden_after(bout_id, events)
                events = redact_hidden(events, hidden, system, ledger=ledger)
        return [without_seal(e) for e in events]

    def free_roll(
        self, bout_id: str, caller: Caller, dice: str, actor: str | None = None
    ) -> dict[str, Any]:
        """A recorded roll of any dice notation: expression, total, each throw, every face."""
        who = actor or caller.who  # 401 without a token; `command` checks the rest
        events = self.command(bout_id, caller, c.FreeRoll(who, expression=dice))
        action = next(e for e in events if e["type"] == EventType.ACTION)
        said = p.Action.read(action["payload"])
        rolls = [e for e in events if e["type"] == EventType.ROLL]
        thrown = [p.Roll.read(r["payload"]) for r in rolls]
        answer = {
            "actor": who,
            "expression": said.expression,
            "total": said.total,
            "nonce": thrown[0].nonce if thrown else None,
            "stream": thrown[0].stream if thrown else None,
            "dice": [d for r in thrown for d in r.dice],
            "faces": [f for r in thrown for f in r.faces],
            "rolls": self.key.signed_rolls(
                bout_id, who, [{**r["payload"], "seq": r["seq"]} for r in rolls]
            ),
            "seq": action["seq"],
        }
        failure = failure_of(events)
        if failure is not None:
            answer["failed"] = failure
        return answer

    def close(self, bout_id: str, caller: Caller) -> dict[str, Any]:
        """End the bout if it is still going, reveal the server seed, and mark it closed.

        The end, the reveal, the `closed` event and the status: one transaction.
        """
        check(caller.who, "close")
        with self.unit():
            state = self._live_state(bout_id)
            self._ending_room(bout_id)
            if state.status in (Status.OPEN, Status.RUNNING, Status.PAUSED):
                self._write(bout_id, c.End(None, "closed by the referee"), REFEREE)
            seed = self.store.reveal_seed(bout_id)
            payload: dict[str, JSON] = {
                "server_seed": seed.server_seed,
                "commitment": seed.commitment,
            }
            closed = [Event(EventType.CLOSED, REFEREE, payload)]
            self.store.extend(bout_id, lambda current, rng: closed, dice=False)
            self.store.set_status(bout_id, CLOSED)
        return {"server_seed": seed.server_seed, "commitment": seed.commitment}

    def rotate_seed(self, bout_id: str, caller: Caller) -> dict[str, Any]:
        """Reveal the current server seed and commit to a new one (long bouts)."""
        check(caller.who, "rotate")
        with self.unit():
            self._live_state(bout_id)
            refused = self.budgets.rotation_refusal(self._spending(bout_id))
            if refused is not None:
                raise LimitError(f"bout {bout_id!r}: {refused}")
            event = self.store.rotate_seed(
                bout_id, actor=REFEREE, at=self.store.clock(), new_seed=self.new_seed()
            )
        return {"event": event}

    def hand_over(self, bout_id: str, caller: Caller) -> dict[str, Any]:
        """Give the bout to another referee: a new referee token; the old one stops working.

        The new token, the old one's revocation and the `referee_changed` event: one
        transaction.
        """
        check(caller.who, "hand over")
        token = new_token()
        with self.unit():
            self._live_state(bout_id)
            self._ending_room(bout_id, hand_over=True)
            self.store.replace_referee_token(bout_id, token)
            changed = [Event(EventType.REFEREE_CHANGED, REFEREE, {})]
            self.store.extend(bout_id, lambda current, rng: changed, dice=False)
        return {"referee_token": token}

    def reissue_token(self, bout_id: str, caller: Caller, name: str) -> dict[str, Any]:
        """The referee gives a fighter a new link: a new token; its old ones stop working.

        With `add_fighter` (which grants a new fighter its first token) and `remove` (which
        revokes a leaving fighter's tokens) the one place fighters' tokens change; one
        transaction.
        """
        check(caller.who, "reissue")
        token = new_token()
        with self.unit():
            fighter = self._live_state(bout_id).fighter(name)
            self.store.replace_fighter_token(bout_id, fighter.name, token)
        return {"name": fighter.name, "token": token}

    # -- internals -----------------------------------------------------------------------

    def new_seed(self) -> str:
        """A fresh server seed from the service's entropy source."""
        return new_server_seed(self._entropy)

    def _salt(self) -> str:
        """A fresh salt for a seal, from the service's entropy source."""
        return self._entropy(SALT_BYTES).hex()

    def _hidden_after(
        self, bout_id: str, events: Sequence[Record]
    ) -> tuple[dict[str, frozenset[str]], str, int]:
        """Each fighter's stats still hidden once `events` (just stored) are in, the bout's
        rule system and its ledger format: read off the state the write folded (no second
        reading of the whole ledger), else from the ledger."""
        state = self.cache.after(bout_id, events[-1]) if events else None
        if state is None:
            everything = self.records(bout_id)
            state = self.cache.state(bout_id, everything)
            return hidden_stats(everything), state.system, state.ledger
        return {f.name: f.hidden for f in state.fighters if f.hidden}, state.system, state.ledger

    def _spending(self, bout_id: str) -> Spending:
        """What the bout's events have spent of its budgets (`referee.service.budgets`)."""
        return self.spent.spending(bout_id, self.records(bout_id))

    def _ending_room(self, bout_id: str, *, hand_over: bool = False) -> None:
        """LimitError unless the bout has room for an ending write (the close, a hand-over)."""
        refused = self.budgets.ending_refusal(self._spending(bout_id), hand_over=hand_over)
        if refused is not None:
            raise LimitError(f"bout {bout_id!r}: {refused}")

    def _live_state(self, bout_id: str) -> BoutState:
        """The bout's state; ConflictError once it is closed (nothing changes a closed bout)."""
        state = self.state(bout_id)
        if state.closed:
            raise ConflictError("the bout is closed: nothing in it changes any more")
        return state

    def _write(
        self,
        bout_id: str,
        command: c.Command,
        by: str,
        *,
        check: Callable[[BoutState], None] | None = None,
        client_seed_part: str | None = None,
        grant: tuple[str, str] | None = None,
    ) -> list[Record]:
        """Decide `command` on the stored bout and store its events, with the bout's status
        (derived from the folded state) in the same transaction."""
        said_in_one_line(command)
        seen: dict[str, Any] = {}

        def fold(current: list[Record], rng: Dice | None) -> Sequence[Draft]:
            state = self.cache.state(bout_id, current)
            if check is not None:
                check(state)
            # The bout's budgets, before any die is thrown: no refusal depends on a face.
            refused = self.budgets.refusal(
                len(current),
                lambda: self.spent.spending(bout_id, current),
                command,
                by,
                len(state.fighters),
            )
            if refused is not None:
                raise LimitError(f"bout {bout_id!r}: {refused}")
            system = self.cache.system(bout_id, state) if state.system else None
            dice = RecordingRng(_NO_DICE if rng is None else rng)
            try:
                decision = decide(state, command, dice, by=by, system=system)
            except Exception as err:
                # No outcome before its record: once a die is thrown, whatever happens next
                # (an error too) depends on its face, so the throw and the failure are stored
                # and answered as such. Nothing but this answers a roll, so every client (the
                # routes, the chat endpoint and the HUD, the Discord bot) inherits it.
                if not dice.throws:
                    raise
                decision = failed(state, command, by, dice.throws, err)
            seen["before"], seen["rolls"] = state, getattr(rng, "rolls", 0)
            if decision.events:  # the engine folded its events as it wrote them: no second fold
                seen["after"] = decision.state
            after = decision.state
            if after.ledger >= WHOLE_RECORD and any(f.hidden for f in after.fighters):
                # What holds a hidden value is sealed in the chain (`referee.ledger.seal`).
                hidden = {f.name: f.hidden for f in after.fighters if f.hidden}
                return seal_hidden(decision.events, hidden, after.system, self._salt)
            return decision.events

        with self.unit():
            # The store links the events into the chain itself (seq, prev, hash), inside the
            # bout's write lock: nothing built here is checked again there.
            joining = client_seed_part is not None or grant is not None
            records = self.store.extend(
                bout_id,
                fold,
                dice=not joining,
                client_seed_part=client_seed_part,
                grant=(grant[0], Role.FIGHTER, grant[1]) if grant else None,
            )
            after: BoutState | None = seen.get("after")
            if after is None:
                after = self.state(bout_id)
            elif records:
                self.cache.remember(bout_id, records[-1], after)
            if after.status_name != seen["before"].status_name:
                self.store.set_status(bout_id, after.status_name)
            # The count first: it is seldom reached, and then the records are looked through.
            due = seen["rolls"] >= self.rotate_every
            if due and any(r["type"] == EventType.ROLL for r in records):
                self.store.rotate_seed(
                    bout_id, actor="system", at=self.store.clock(), new_seed=self.new_seed()
                )
        return records


#: The store's status of a closed bout (the folded state's status otherwise).
CLOSED = "closed"


class _NoDice:
    """A dice source for commands that must not roll."""

    def throw(self, sides: Sequence[int]) -> Any:
        raise RuleError("this command does not roll dice")


_NO_DICE = _NoDice()


def bout_name(text: str) -> str:
    """A bout's name, checked like every name people see (`referee.bout.names`)."""
    return checked_name(text, "bout name")


def _seed_part(text: str) -> str:
    if not isinstance(text, str) or not 1 <= len(text) <= MAX_SEED_PART or ":" in text:
        raise RuleError(
            f"client seed part {text!r} must be 1 to {MAX_SEED_PART} characters without ':'"
        )
    if any(ord(ch) < 32 for ch in text):
        raise RuleError(f"client seed part {text!r} has control characters")
    return text


def rule_system(bout: BoutState) -> RuleSystem:
    """The bout's rule system with its pack."""
    return system_of(bout)


def said_in_one_line(command: c.Command) -> None:
    """What a command gives to be said inside a sentence (a reason, a note, the texts of a
    fighter's stats: a weapon's or a skill's name) is one line with no control character
    (`referee.breaks`), in what every door gives from now on; the engine decides the bouts
    already recorded as they were (`referee verify` replays them)."""
    if isinstance(command, c.PassTime | c.UpdateFighter | c.End | c.Cancel | c.Override):
        what, text = (
            ("note", command.note)
            if isinstance(command, c.Override)
            else ("reason", command.reason)
        )
        if isinstance(text, str) and first_break(text) is not None:
            raise RuleError(f"{what} {text!r} must be 1 to {MAX_REASON} printable characters")
    if isinstance(command, c.AddFighter | c.UpdateFighter):
        one_line_json(dict(command.stats), "stats of fighter")
