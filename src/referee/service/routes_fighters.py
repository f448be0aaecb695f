"""Routes of fighters: add (the referee), join (a fighter), update, remove, reissue a token,
reveal hidden stats."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from referee.bout import commands as c
from referee.service import models as m
from referee.service.routing import Ask, Writer, events_answer


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service = ask.service

    @router.post("/api/bouts/{bout_id}/fighters", status_code=201, tags=["fighters"])
    async def add_fighter(bout_id: str, body: m.AddFighter, write: Writer) -> dict[str, Any]:
        """The referee adds a fighter (MSV: `cs`; SRP: `sheet`); its token comes back once."""
        return dict(
            await write.once(
                body,
                lambda caller: service.add_fighter(
                    bout_id,
                    caller,
                    body.name,
                    body.stats(),
                    body.side,
                    body.hidden,
                    body.client_seed,
                ),
            )
        )

    @router.post("/api/bouts/{bout_id}/join", status_code=201, tags=["fighters"])
    async def join(bout_id: str, body: m.AddFighter, write: Writer) -> dict[str, Any]:
        """A fighter joins an open bout by itself, optionally adding its part to the client seed."""
        return dict(
            await write.once(
                body,
                lambda caller: service.add_fighter(
                    bout_id, caller, body.name, body.stats(), body.side, (), body.client_seed, True
                ),
            )
        )

    @router.patch("/api/bouts/{bout_id}/fighters/{name}", tags=["fighters"])
    async def update_fighter(
        bout_id: str, name: str, body: m.UpdateFighter, write: Writer
    ) -> dict[str, Any]:
        """The referee changes a fighter's stats or wounds."""
        command = c.UpdateFighter(name, body.stats(), body.wounds, body.reason, tuple(body.clear))
        return dict(
            await write.once(
                body,
                lambda caller: events_answer(service.command(bout_id, caller, command)),
            )
        )

    @router.delete("/api/bouts/{bout_id}/fighters/{name}", tags=["fighters"])
    async def remove_fighter(bout_id: str, name: str, write: Writer) -> dict[str, Any]:
        """The referee removes a fighter, or a fighter quits (its own token, then revoked)."""
        return dict(
            await write.once(
                None, lambda caller: events_answer(service.remove(bout_id, caller, name))
            )
        )

    @router.post("/api/bouts/{bout_id}/fighters/{name}/token", tags=["fighters"])
    async def reissue_token(bout_id: str, name: str, write: Writer) -> dict[str, Any]:
        """The referee reissues a fighter's link: `{"name", "token"}`; the old token stops
        working."""
        return dict(
            await write.once(None, lambda caller: service.reissue_token(bout_id, caller, name))
        )

    @router.post("/api/bouts/{bout_id}/fighters/{name}/reveal", tags=["fighters"])
    async def reveal(
        bout_id: str, name: str, write: Writer, body: m.Reveal | None = None
    ) -> dict[str, Any]:
        """The referee reveals a fighter's hidden stats (all, or the named `keys`)."""
        command = c.Reveal(name, tuple(body.keys) if body else ())
        return dict(
            await write.once(
                body,
                lambda caller: events_answer(service.command(bout_id, caller, command)),
            )
        )
