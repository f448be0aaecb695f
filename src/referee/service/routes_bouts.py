"""Routes of bouts as a whole: health, rule systems, create, list, read, scoreboard."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query

from referee import __version__
from referee.errors import NotationError
from referee.service import models as m
from referee.service.routing import Ask, Reader, Writer
from referee.systems import find_system, system_names


def options_of(text: str | None) -> dict[str, Any]:
    """An action's options given as JSON text in a query (none: `{}`); a clear error else.

    >>> options_of('{"weapon": "net"}'), options_of(None)
    ({'weapon': 'net'}, {})
    """
    if text is None:
        return {}
    try:
        found = json.loads(text)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise NotationError(
            f'options must be a JSON object, like {{"weapon": "net"}}; got {text!r}'
        )
    return found


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service, store = ask.service, ask.store

    @router.get("/healthz", tags=["service"])
    def healthz() -> dict[str, str | int]:
        """200 while the service is up and its database answers with the schema this version
        reads; 503 `storage_unavailable` otherwise."""
        return {"status": "ok", "version": __version__, "schema": store.schema_version()}

    @router.get("/api/systems", tags=["service"])
    def systems() -> list[dict[str, Any]]:
        """The rule systems a bout may use: name, title, actions, stats a referee may hide."""
        out = []
        for name in system_names():
            system = find_system(name)()
            out.append(
                {
                    "name": name,
                    "title": system.title,
                    "actions": list(system.actions),
                    "hidden_stats": list(system.hidden_stats()),
                }
            )
        return out

    @router.post("/api/bouts", status_code=201, tags=["bouts"])
    async def create_bout(body: m.CreateBout, write: Writer) -> dict[str, Any]:
        """Open a bout; the answer holds the referee's token (shown once) and the commitment."""
        return dict(
            await write.once(
                body,
                lambda _: service.create_bout(
                    body.system, body.name, body.client_seed, body.rules, body.dialect or "roll20"
                ),
            )
        )

    @router.get("/api/bouts", tags=["bouts"])
    def list_bouts(limit: Annotated[int, Query(ge=1, le=200)] = 50) -> list[dict[str, Any]]:
        """Recent bouts (public fields only)."""
        return [b.as_json() for b in store.list_bouts(limit=limit)]

    @router.get("/api/bouts/{bout_id}", tags=["bouts"])
    def get_bout(bout_id: str, caller: Reader) -> dict[str, Any]:
        """The bout's state; hidden stats only with the referee's token."""
        return service.view(bout_id, caller)

    @router.get("/api/bouts/{bout_id}/why-not", tags=["actions"])
    def why_not(
        bout_id: str,
        caller: Reader,
        actor: Annotated[str, Query(min_length=1, max_length=40)],
        kind: Annotated[str, Query(min_length=1, max_length=32)],
        target: Annotated[str | None, Query(min_length=1, max_length=40)] = None,
        options: Annotated[str | None, Query(max_length=2000)] = None,
    ) -> dict[str, Any]:
        """Why `actor` may not take the action `kind` (against `target`, with `options`, a JSON
        object as the action's) now, in the rules' own words, or `why_not: null` when it may;
        nothing is thrown or stored. With the actor's token or the referee's: the reason is the
        one the action would be refused with."""
        return service.why_not(bout_id, caller, actor, kind, target, options_of(options))

    @router.get("/api/bouts/{bout_id}/scoreboard", tags=["bouts"])
    def scoreboard(bout_id: str) -> list[dict[str, Any]]:
        """Wounds against thresholds, standing fighters first."""
        return service.scoreboard(bout_id)
