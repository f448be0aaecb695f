"""Routes of actions that roll: initiative, attacks, any action of the rule system, free rolls."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from referee.bout import commands as c
from referee.payloads import events as p
from referee.service import models as m
from referee.service.bouts import Caller
from referee.service.routing import Ask, Writer, events_answer
from referee.vocabulary import EventType


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service = ask.service

    @router.post("/api/bouts/{bout_id}/initiative", tags=["actions"])
    async def initiative(bout_id: str, write: Writer) -> dict[str, Any]:
        """The referee rolls initiative; the bout starts."""

        def run(caller: Caller) -> dict[str, Any]:
            events = service.command(bout_id, caller, c.RollInitiative())
            settled = next(e for e in events if e["type"] == EventType.INITIATIVE)
            order = p.Initiative.read(settled["payload"]).order
            listed = service.key.signed_events(bout_id, events_answer(events)["events"])
            return {"order": list(order), "events": listed}

        return dict(await write.once(None, run, appends=True))

    @router.post("/api/bouts/{bout_id}/attacks", tags=["actions"])
    async def attack(bout_id: str, body: m.Attack, write: Writer) -> dict[str, Any]:
        """An attack by `attacker` (its own token, or the referee's) on `target`.

        Circumstance options (`modifier`, `rear`, `defend`, `range`) are the referee's: a
        fighter's token that sets one gets 403.
        """
        return dict(
            await write.once(
                body,
                lambda caller: service.act(
                    bout_id, caller, body.attacker, "attack", body.options()
                ),
                appends=True,
            )
        )

    @router.post("/api/bouts/{bout_id}/actions", tags=["actions"])
    async def action(bout_id: str, body: m.Action, write: Writer) -> dict[str, Any]:
        """Any action the bout's rule system offers (SRP: shoot, disarm, grapple, move, ...)."""
        return dict(
            await write.once(
                body,
                lambda caller: service.act(bout_id, caller, body.actor, body.kind, body.options),
                appends=True,
            )
        )

    @router.post("/api/bouts/{bout_id}/rolls", tags=["actions"])
    async def free_roll(bout_id: str, body: m.FreeRoll, write: Writer) -> dict[str, Any]:
        """A recorded roll outside the rules (the chat's `roll`), by a fighter or the referee:
        any dice notation; every throw is a roll event with its nonce and faces."""
        return dict(
            await write.once(
                body,
                lambda caller: service.free_roll(bout_id, caller, body.dice, body.actor),
                appends=True,
            )
        )
