"""Reading bouts as a caller may see them: the base of `RefereeService` (`BoutReader`)."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from referee.bout.engine import system_of
from referee.bout.engine import why_not as rules_why_not
from referee.bout.permissions import check
from referee.bout.state import BoutState
from referee.bout.view import state_view
from referee.ledger import WHOLE_RECORD
from referee.ledger.seal import OPENINGS, without_seal
from referee.ledger.seal import opened as with_opening
from referee.ledger.signatures import EXPORT_FIELD
from referee.rng import SECURE_ENTROPY, Entropy
from referee.service.budgets import Budgets, Ledgers
from referee.service.callers import ANONYMOUS, Caller, caller_of
from referee.service.redaction import (
    hidden_stats,
    openable,
    redact_hidden,
)
from referee.service.signing import ServiceKey
from referee.service.states import Record, StateCache
from referee.store import Role, Store
from referee.vocabulary import JSON

#: Rolls after which a bout's server seed is rotated (revealed and replaced by a new committed
#: one), so that a long bout can be checked part by part while it goes on.
ROTATE_EVERY = 1_000


class BoutReader:
    """The service's reading side, over a `Store`: who a token stands for, and a bout as its
    caller may see it (events, state, view, scoreboard, export). `RefereeService` adds every
    operation that writes."""

    def __init__(
        self,
        store: Store,
        rotate_every: int = ROTATE_EVERY,
        entropy: Entropy = SECURE_ENTROPY,
        budgets: Budgets | None = None,
    ) -> None:
        """`entropy` draws the bouts' server seeds, default client seeds and seals' salts: the
        OS's secure source unless a test passes a deterministic one (see `Entropy`; never
        configurable); `budgets` are a bout's bounds (`Budgets()`, docs/api.md; a test may
        pass smaller ones)."""
        self.store = store
        self.cache = StateCache(held_events=store.held_events)
        self.rotate_every = rotate_every
        self.budgets = Budgets() if budgets is None else budgets
        self.spent = Ledgers()
        self._entropy = entropy
        self.key = ServiceKey(store)

    def unit(self) -> AbstractContextManager[None]:
        """One transaction around everything done in the block (see `Store.unit`).

        A caller that makes several calls for one request (the chat endpoint, a bot) runs
        them in one unit, so that a request that fails half-way leaves nothing behind.
        """
        return self.store.unit()

    def caller(self, bout_id: str, token: str | None) -> Caller:
        """The caller a bearer token stands for in this bout (401 unknown, 403 another bout's)."""
        if not token:
            return ANONYMOUS
        return caller_of(bout_id, self.store.lookup_token(token))

    def writer(self, bout_id: str, token: str | None) -> Caller:
        """`caller`, for a request whose unit goes on to append to the bout: the token is read
        in the statement that locks the bout for that append (`Store.lock_bout`), with the
        same answers in the same order (401, 403, then whatever the write finds, a 404 too).
        Call it inside the request's unit."""
        if not token:
            return ANONYMOUS
        return caller_of(bout_id, self.store.lock_bout(bout_id, token))

    def hold(self, bout_id: str) -> None:
        """Lock the bout for the rest of the open unit (`Store.hold_bout`), for a client that
        checks what it read of the bout before it writes (a bot's button, which carries the
        turn it was made for): read after the lock, the bout cannot move until the unit ends,
        so the check still holds when the write is made. 404 when there is no such bout;
        outside a unit it does nothing."""
        self.store.hold_bout(bout_id)

    def records(self, bout_id: str, after_seq: int = -1) -> list[Record]:
        """The bout's ledger events after `after_seq` (as stored: hidden stats inside)."""
        return self.store.events(bout_id, after_seq)

    def visible_records(
        self, bout_id: str, caller: Caller = ANONYMOUS, after_seq: int = -1
    ) -> list[Record]:
        """The events after `after_seq` as `caller` may see them (SRP-10: hidden stats stay
        hidden from everyone but the referee until revealed or the close)."""
        everything = self.records(bout_id)
        state = self.cache.state(bout_id, everything)
        if caller.role is not Role.REFEREE and not state.closed:
            # Redacted whole, then cut (a bout made before sealing: an event's hash shows only
            # if no earlier one hides a stat).
            everything = redact_hidden(
                everything, hidden_stats(everything), state.system, ledger=state.ledger
            )
        shown = everything[after_seq + 1 :] if after_seq >= 0 else everything
        return [without_seal(r) for r in shown]

    def state(self, bout_id: str) -> BoutState:
        """The bout's state, folded from its events."""
        return self.cache.state(bout_id, self.records(bout_id))

    def view(self, bout_id: str, caller: Caller = ANONYMOUS) -> dict[str, JSON]:
        """The bout as JSON; hidden stats only for the referee."""
        record = self.store.get_bout(bout_id)
        state = self.state(bout_id)
        system = system_of(state)
        thresholds = {f.name: system.defeat_threshold(f) for f in state.fighters}
        view = state_view(state, thresholds, reveal_all=caller.role is Role.REFEREE)
        view.update(
            {
                "id": record.id,
                "system": record.system,
                "closed": state.closed,
                "commitment": record.commitment,
                "client_seed": record.client_seed,
                "events": state.next_seq,
            }
        )
        if caller.role is Role.FIGHTER:
            view["you"] = caller.fighter
        return view

    def why_not(
        self,
        bout_id: str,
        caller: Caller,
        actor: str,
        kind: str,
        target: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, JSON]:
        """Why `actor` may not take the action `kind` (against `target`) now, as the rules say
        it (`referee.bout.actions.why_not`: the engine's checks and the rule system's own, up
        to the first die; nothing is thrown or stored), or `why_not` None when it may. Asked
        by whoever may act for `actor` (its fighter, or the referee): the reason is the one
        the action itself would be refused with, so it tells nobody more than trying would."""
        check(caller.who, "act", actor)
        state = self.state(bout_id)
        state.fighter(actor)  # an unknown fighter is a 404, never a reason
        if target is not None:
            state.fighter(target)
        reason: str | None
        if state.closed:
            reason = "the bout is closed"
        else:
            asked: dict[str, Any] = dict(options or {})
            if target is not None:
                asked["target"] = target
            rules = self.cache.system(bout_id, state)
            reason = rules_why_not(state, actor, kind, asked, rules, by=caller.who)
        return {"actor": actor, "kind": kind, "target": target, "why_not": reason}

    def scoreboard(self, bout_id: str) -> list[dict[str, JSON]]:
        """Every fighter's wounds against its threshold, standing first."""
        state = self.state(bout_id)
        system = system_of(state)
        rows: list[dict[str, JSON]] = [
            {
                "name": f.name,
                "side": f.side,
                "wounds": f.wounds,
                "threshold": system.defeat_threshold(f),
                "defeated": f.defeated,
            }
            for f in state.fighters
        ]
        return sorted(rows, key=lambda r: (bool(r["defeated"]), str(r["name"])))

    def export(self, bout_id: str, caller: Caller = ANONYMOUS) -> dict[str, Any]:
        """The export document; before the close only the referee sees hidden stats (in a bout
        of ledger 2: every event as the chain holds it, with the openings of the sealed events
        that hold nothing hidden any more; the referee's has every opening)."""
        doc = self.store.export(bout_id)
        doc[EXPORT_FIELD] = self.key.public.published()  # its signed lines' key (docs/ledger.md)
        state = self.state(bout_id)
        if caller.role is Role.REFEREE or state.closed:
            return doc
        hidden = hidden_stats(doc["events"])
        if state.ledger < WHOLE_RECORD:
            doc["events"] = redact_hidden(doc["events"], hidden, state.system, ledger=state.ledger)
            return doc
        openings = doc.pop(OPENINGS, {})
        rules = self.cache.system(bout_id, state)
        shown = {
            seq: found
            for seq, found in openings.items()
            if openable(with_opening(doc["events"][int(seq)], found), hidden, type(rules))
        }
        if shown:
            doc[OPENINGS] = shown
        return doc
