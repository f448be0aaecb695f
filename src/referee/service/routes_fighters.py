"""Routes of fighters: add (the referee), join (a fighter), update, remove, reissue a token,
reveal hidden stats."""

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

    @router.post("/api/bouts/{bout_id}/fighters", status_code=201, tags=["fighters"])
    def add_fighter(
        request: Request,
        bout_id: str,
        body: m.AddFighter,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee adds a fighter (MSV: `cs`; SRP: `sheet`); its token comes back once."""

        def run() -> dict[str, Any]:  # the service checks it is the referee's token
            caller = who(bout_id, authorization)
            return service.add_fighter(
                bout_id, caller, body.name, body.stats(), body.side, body.hidden, body.client_seed
            )

        return dict(once(request, idempotency_key, authorization, dumped(body), run))

    @router.post("/api/bouts/{bout_id}/join", status_code=201, tags=["fighters"])
    def join(
        request: Request,
        bout_id: str,
        body: m.AddFighter,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """A fighter joins an open bout by itself, optionally adding its part to the client seed."""

        def run() -> dict[str, Any]:
            caller = who(bout_id, authorization)
            return service.add_fighter(
                bout_id, caller, body.name, body.stats(), body.side, (), body.client_seed, True
            )

        return dict(once(request, idempotency_key, authorization, dumped(body), run))

    @router.patch("/api/bouts/{bout_id}/fighters/{name}", tags=["fighters"])
    def update_fighter(
        request: Request,
        bout_id: str,
        name: str,
        body: m.UpdateFighter,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee changes a fighter's stats or wounds."""
        command = c.UpdateFighter(name, body.stats(), body.wounds)
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: events_answer(
                    service.command(bout_id, who(bout_id, authorization), command)
                ),
            )
        )

    @router.delete("/api/bouts/{bout_id}/fighters/{name}", tags=["fighters"])
    def remove_fighter(
        request: Request,
        bout_id: str,
        name: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee removes a fighter, or a fighter quits (its own token, then revoked)."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: events_answer(service.remove(bout_id, who(bout_id, authorization), name)),
            )
        )

    @router.post("/api/bouts/{bout_id}/fighters/{name}/token", tags=["fighters"])
    def reissue_token(
        request: Request,
        bout_id: str,
        name: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee reissues a fighter's link: `{"name", "token"}`; the old token stops
        working."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.reissue_token(bout_id, who(bout_id, authorization), name),
            )
        )

    @router.post("/api/bouts/{bout_id}/fighters/{name}/reveal", tags=["fighters"])
    def reveal(
        request: Request,
        bout_id: str,
        name: str,
        body: m.Reveal | None = None,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee reveals a fighter's hidden stats (all, or the named `keys`)."""
        keys = tuple(body.keys) if body else ()
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: events_answer(
                    service.command(bout_id, who(bout_id, authorization), c.Reveal(name, keys))
                ),
            )
        )

    return router
