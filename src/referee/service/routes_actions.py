"""Routes of actions that roll: initiative, attacks, any action of the rule system, free rolls."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from referee.bout import commands as c
from referee.service import models as m
from referee.service.routing import Ask, AuthHeader, KeyHeader, dumped, events_answer


def routes(ask: Ask) -> APIRouter:
    """The routes of this module over `ask` (the service, its store and live hub)."""
    service, who, once = ask.service, ask.who, ask.once
    router = APIRouter()

    @router.post("/api/bouts/{bout_id}/initiative", tags=["actions"])
    def initiative(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee rolls initiative; the bout starts."""

        def run() -> dict[str, Any]:
            events = service.command(bout_id, who(bout_id, authorization), c.RollInitiative())
            settled = next(e for e in events if e["type"] == "initiative")
            return {"order": settled["payload"]["order"], **events_answer(events)}

        return dict(once(request, idempotency_key, authorization, None, run))

    @router.post("/api/bouts/{bout_id}/attacks", tags=["actions"])
    def attack(
        request: Request,
        bout_id: str,
        body: m.Attack,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """An attack by `attacker` (its own token, or the referee's) on `target`.

        Circumstance options (`modifier`, `rear`, `defend`, `range`) are the referee's: a
        fighter's token that sets one gets 403.
        """
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: service.act(
                    bout_id, who(bout_id, authorization), body.attacker, "attack", body.options()
                ),
            )
        )

    @router.post("/api/bouts/{bout_id}/actions", tags=["actions"])
    def action(
        request: Request,
        bout_id: str,
        body: m.Action,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Any action the bout's rule system offers (SRP: shoot, disarm, grapple, move, ...)."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: service.act(
                    bout_id, who(bout_id, authorization), body.actor, body.kind, body.options
                ),
            )
        )

    @router.post("/api/bouts/{bout_id}/rolls", tags=["actions"])
    def free_roll(
        request: Request,
        bout_id: str,
        body: m.FreeRoll,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """A recorded roll outside the rules (the chat's `roll`), by a fighter or the referee:
        any dice notation; every throw is a roll event with its nonce and faces."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: service.free_roll(
                    bout_id, who(bout_id, authorization), body.dice, body.actor
                ),
            )
        )

    return router
