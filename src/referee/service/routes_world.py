"""The route for objects in a virtual world: a bout at a glance (service.glance)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from referee.bout.names import MAX_NAME
from referee.service.glance import encoded, glance
from referee.service.routes_events import MAX_CURSOR
from referee.service.routing import Ask


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service = ask.service

    @router.get(
        "/api/bouts/{bout_id}/glance",
        tags=["events"],
        responses={204: {"description": "no event after `after`: nothing changed"}},
    )
    def at_a_glance(
        bout_id: str,
        after: Annotated[int, Query(ge=-1, le=MAX_CURSOR)] = -1,
        fighter: Annotated[str | None, Query(min_length=1, max_length=MAX_NAME)] = None,
    ) -> Any:
        """The bout at a glance for a meter or a HUD in a virtual world: whose turn, every
        fighter's wounds against its threshold, stunned or down, the actions legal now, the
        commitment and the last public event hash; public, never over 2,048 bytes (with many
        fighters or long names the rows other than `fighter`'s and the actor's go first, then
        the last foes of each action; `"cut": true` says so). 204 with no body while the bout
        has no event after seq `after`."""
        service.store.get_bout(bout_id)  # 404 for an unknown bout, whatever `after` says
        state = service.state(bout_id)
        if fighter is not None:
            state.fighter(fighter)  # 404 for a fighter not in the bout, whatever `after` says
        if after >= 0 and state.next_seq - 1 <= after:
            return Response(status_code=204, headers={"Cache-Control": "no-store"})
        body = encoded(glance(service, bout_id, fighter))
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})
