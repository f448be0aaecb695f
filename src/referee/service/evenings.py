"""The next fight of an evening, as one transaction of the service (docs/srp.md, "An evening").

`next_fight` closes the fight it follows (ending it if still going, revealing its seed), opens
a new bout whose header names it (`follows`, `follows_head`, `clock`: `referee.bout.evening`),
carries every fighter into it as it ended that fight (each with a token of its own in the new
bout), lets the play time pass that the referee says (`time_passed`, and what the rules
restore with it), and writes each of the referee's changes between the fights with its
reason. All of it, the close included, is stored together or not at all; the fight's referee
token is revoked with it, so a fight has one next fight (an evening never forks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.bout import evening
from referee.bout.permissions import check
from referee.errors import AuthError
from referee.service.callers import Caller, new_token

if TYPE_CHECKING:
    from referee.service.bouts import RefereeService


def next_fight(
    service: RefereeService,
    bout_id: str,
    caller: Caller,
    *,
    name: str | None = None,
    minutes: int = 0,
    reason: str = "",
    changes: Sequence[evening.Change] = (),
    leave: Sequence[str] = (),
    client_seed: str | None = None,
) -> dict[str, Any]:
    """The next fight after `bout_id` (its referee's call): the new bout, its referee token,
    each carried fighter's token, and the link its header holds."""
    check(caller.who, "next fight")  # 401 without a token, 403 for a fighter's
    with service.unit():
        last = service.state(bout_id)
        if not last.closed:
            service.close(bout_id, caller)
            last = service.state(bout_id)
        # A fight has one next fight: its referee token goes with this one (as at a hand-over),
        # so no second bout can follow it, carry its fighters and pass for the evening's. Two
        # asked at once: the one that finds the token already gone is refused.
        if not service.store.revoke_referee_tokens(bout_id):
            raise AuthError("unknown token")
        tie = evening.link(bout_id, service.records(bout_id), last)
        carried = evening.carry(last, leave)
        made = service.create_bout(
            last.system,
            name or last.name,
            client_seed,
            rules=last.rules,
            dialect=last.dialect,
            follows=tie.header(),
        )
        new_id = made["id"]
        tokens = []
        for command in carried:
            token = new_token()
            service.referee_command(new_id, command, grant=(token, command.name))
            tokens.append({"name": command.name, "token": token})
        for change in evening.between(minutes, reason, changes, service.state(new_id)):
            service.referee_command(new_id, change)
        clock = service.state(new_id).clock
    return {**made, **tie.header(), "clock_now": clock, "fighters": tokens}
