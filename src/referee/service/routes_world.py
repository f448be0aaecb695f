"""The route for objects in a virtual world: a bout at a glance (service.glance)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from referee.service.glance import glance
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
    ) -> Any:
        """The bout at a glance for a meter or a HUD in a virtual world: whose turn, every
        fighter's wounds against its threshold, stunned or down, the actions legal now, the
        commitment and the last public event hash; public, well under 2,048 bytes. 204 with no
        body while the bout has no event after seq `after`."""
        service.store.get_bout(bout_id)  # 404 for an unknown bout, whatever `after` says
        if after >= 0 and service.state(bout_id).next_seq - 1 <= after:
            return Response(status_code=204, headers={"Cache-Control": "no-store"})
        answer: dict[str, Any] = glance(service, bout_id)
        return answer
