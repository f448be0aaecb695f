"""Routes of the referee's powers: pause, resume, skip, void, cancel, end, override, hand over;
and of fairness: rotate the seed, close."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request

from referee.bout import commands as c
from referee.service import models as m
from referee.service.routing import Ask, AuthHeader, KeyHeader, dumped, events_answer


def routes(ask: Ask) -> APIRouter:
    """The routes of this module over `ask` (the service, its store and live hub)."""
    service, who, once = ask.service, ask.who, ask.once
    router = APIRouter()

    def referee_power(path: str, command: Callable[[], c.Command], doc: str) -> None:
        def route(
            request: Request,
            bout_id: str,
            authorization: AuthHeader = None,
            idempotency_key: KeyHeader = None,
        ) -> dict[str, Any]:
            return dict(
                once(
                    request,
                    idempotency_key,
                    authorization,
                    None,
                    lambda: events_answer(
                        service.command(bout_id, who(bout_id, authorization), command())
                    ),
                )
            )

        route.__doc__ = doc
        route.__name__ = path.replace("-", "_")
        router.post(f"/api/bouts/{{bout_id}}/{path}", tags=["referee"])(route)

    referee_power("pause", c.Pause, "Pause the bout.")
    referee_power("resume", c.Resume, "Resume a paused bout.")
    referee_power("skip", c.Skip, "Pass the current fighter's turn.")
    referee_power("void", c.Void, "Take back the last action (an undo event; nothing is erased).")
    referee_power("cancel", c.Cancel, "Call the bout off.")

    @router.post("/api/bouts/{bout_id}/end", tags=["referee"])
    def end(
        request: Request,
        bout_id: str,
        body: m.End | None = None,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """End the bout, naming the winning side (or none)."""
        command = c.End(
            body.winner if body else None, (body.reason if body else None) or "ended by the referee"
        )
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

    @router.post("/api/bouts/{bout_id}/override", tags=["referee"])
    def override(
        request: Request,
        bout_id: str,
        body: m.Override,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Replace an outcome's wounds (SRP-20); the original stays in the log beside it."""
        command = c.Override(body.of, body.wounds, body.note)
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

    @router.post("/api/bouts/{bout_id}/handover", tags=["referee"])
    def handover(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Hand the bout to another referee: a new referee token; the old one stops working."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.hand_over(bout_id, who(bout_id, authorization)),
            )
        )

    @router.post("/api/bouts/{bout_id}/rotate-seed", tags=["fairness"])
    def rotate(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Reveal the current server seed and commit to a new one."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.rotate_seed(bout_id, who(bout_id, authorization)),
            )
        )

    @router.post("/api/bouts/{bout_id}/close", tags=["fairness"])
    def close(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """End the bout if needed and reveal its server seed: now anyone can verify it.

        Once closed, nothing changes the bout: every write answers 409.
        """
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.close(bout_id, who(bout_id, authorization)),
            )
        )

    return router
