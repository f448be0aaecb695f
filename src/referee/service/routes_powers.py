"""Routes of the referee's powers: pause, resume, skip, void, cancel, end, override, hand over;
and of fairness: rotate the seed, close."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter

from referee.bout import commands as c
from referee.bout.powers import reason_text
from referee.service import models as m
from referee.service.routing import Ask, Write, Writer, events_answer


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service = ask.service

    async def command_route(
        bout_id: str, body: Any, command: c.Command, write: Write
    ) -> dict[str, Any]:
        """`command` run once by the writer's caller; its events are the answer."""
        return dict(
            await write.once(
                body, lambda caller: events_answer(service.command(bout_id, caller, command))
            )
        )

    def referee_power(path: str, command: Callable[[], c.Command], doc: str) -> None:
        async def route(bout_id: str, write: Writer) -> dict[str, Any]:
            return await command_route(bout_id, None, command(), write)

        route.__doc__ = doc
        route.__name__ = path.replace("-", "_")
        router.post(f"/api/bouts/{{bout_id}}/{path}", tags=["referee"])(route)

    referee_power("pause", c.Pause, "Pause the bout.")
    referee_power("resume", c.Resume, "Resume a paused bout.")
    referee_power("skip", c.Skip, "Pass the current fighter's turn.")
    referee_power("void", c.Void, "Take back the last action (an undo event; nothing is erased).")
    referee_power("cancel", c.Cancel, "Call the bout off.")
    referee_power(
        "close-joining",
        c.CloseJoining,
        "Close the bout to joiners (OnlineHost's close): no fighter may join any more; the "
        "referee may still add one. Only before initiative.",
    )

    @router.post("/api/bouts/{bout_id}/end", tags=["referee"])
    async def end(bout_id: str, write: Writer, body: m.End | None = None) -> dict[str, Any]:
        """End the bout, naming the winning side (or none)."""
        # One line, as every reason of the referee's: its sentence is a line of the chat export.
        reason = reason_text(body.reason) if body else None
        command = c.End(body.winner if body else None, reason or "ended by the referee")
        return await command_route(bout_id, body, command, write)

    @router.post("/api/bouts/{bout_id}/override", tags=["referee"])
    async def override(bout_id: str, body: m.Override, write: Writer) -> dict[str, Any]:
        """Replace an outcome's wounds (SRP-20); the original stays in the log beside it."""
        command = c.Override(body.of, body.wounds, reason_text(body.note, what="note") or "")
        return await command_route(bout_id, body, command, write)

    @router.post("/api/bouts/{bout_id}/handover", tags=["referee"])
    async def handover(bout_id: str, write: Writer) -> dict[str, Any]:
        """Hand the bout to another referee: a new referee token; the old one stops working."""
        return dict(await write.once(None, lambda caller: service.hand_over(bout_id, caller)))

    @router.post("/api/bouts/{bout_id}/rotate-seed", tags=["fairness"])
    async def rotate(bout_id: str, write: Writer) -> dict[str, Any]:
        """Reveal the current server seed and commit to a new one."""
        return dict(await write.once(None, lambda caller: service.rotate_seed(bout_id, caller)))

    @router.post("/api/bouts/{bout_id}/close", tags=["fairness"])
    async def close(bout_id: str, write: Writer) -> dict[str, Any]:
        """End the bout if needed and reveal its server seed: now anyone can verify it.

        Once closed, nothing changes the bout: every write answers 409.
        """
        return dict(await write.once(None, lambda caller: service.close(bout_id, caller)))
