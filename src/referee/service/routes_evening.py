"""Routes of an evening of fights: the next fight, and play time passing (docs/srp.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from referee.bout import commands as c
from referee.bout.evening import Change
from referee.service import models as m
from referee.service.routing import Ask, Writer, events_answer


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` to `router`."""
    service = ask.service

    @router.post("/api/bouts/{bout_id}/next", tags=["referee"])
    async def next_fight(bout_id: str, body: m.NextFight, write: Writer) -> dict[str, Any]:
        """The next fight of the evening: closes this bout (ending it if still going), opens a
        new one whose header names it and its final hash, carries every fighter into it as it
        ended this one (each with a new token), lets the play time pass and writes the
        referee's changes, each with its reason. One transaction."""
        changes = [
            Change(
                one.fighter,
                one.reason,
                heal=one.heal,
                wounds=one.wounds,
                stats=dict(one.sheet or {}),
                clear=tuple(one.clear),
            )
            for one in body.changes
        ]
        return dict(
            await write.once(
                body,
                lambda caller: service.next_fight(
                    bout_id,
                    caller,
                    name=body.name,
                    minutes=body.minutes,
                    reason=body.reason,
                    changes=changes,
                    leave=tuple(body.leave),
                    client_seed=body.client_seed,
                ),
            )
        )

    @router.post("/api/bouts/{bout_id}/pass-time", tags=["referee"])
    async def pass_time(bout_id: str, body: m.PassTime, write: Writer) -> dict[str, Any]:
        """Play time passes (the evening's clock, never the wall clock), with its reason; what
        the rules restore with it follows (SRP-17: 0 PM an hour after passing out)."""
        command = c.PassTime(body.minutes, body.reason)
        return dict(
            await write.once(
                body, lambda caller: events_answer(service.command(bout_id, caller, command))
            )
        )
