"""`~luck [NAME] [BOUT_ID ...]`: a record and a luck report from verified exports (docs/luck.md).

Without bout ids it reads the channel's own: its spar and every member's table ledger, each
once closed (its seed revealed: an open one cannot be verified yet, and its hidden stats stay
hidden). Bout ids name any closed bouts of this server's referee (the spars and the table
ledgers whose exports the bot attached). Every export is verified first, as `referee verify`
does; one that does not verify is refused with its reason. Without NAME the report is of the
member's own fighter in those bouts, else of every fighter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from discord.ext import commands

from referee.discord.desk import Desk
from referee.discord.replies import Person, Place, Reply
from referee.errors import LimitError, NotFoundError, RefereeError
from referee.lab.luck_exports import Reading, luck_report, reading, verified
from referee.lab.luck_text import report_lines
from referee.service.bouts import ANONYMOUS

#: The most exports one `~luck` reads (each is verified, the rules replayed).
MAX_EXPORTS = 40

#: A bout id as the service makes them (12 URL-safe characters); other words make the name.
_ID_LENGTH = 12


def _is_bout(desk: Desk, word: str) -> bool:
    if len(word) != _ID_LENGTH:
        return False
    try:
        desk.service.store.get_bout(word)
    except NotFoundError:
        return False
    return True


def channel_bouts(desk: Desk, place: Place) -> list[str]:
    """The channel's spar and table ledgers that are closed, in that order."""
    found = [desk.links.spar(place.channel)] + [b for _, b in desk.links.ledgers(place.channel)]
    closed = []
    for bout in found:
        unread = bout is not None and bout not in closed
        if unread and desk.service.store.get_bout(str(bout)).status == "closed":
            closed.append(str(bout))
    return closed


def own_fighter(desk: Desk, bouts: list[str], who: Person) -> str | None:
    """The member's fighter in the first of these bouts they fought in, or None."""
    for bout in bouts:
        member = desk.links.member(bout, who.id)
        if member is not None and member.fighter is not None:
            return member.fighter
    return None


def luck_reply(desk: Desk, place: Place, who: Person, rest: str) -> Reply:
    """One `~luck` (see the module text)."""
    words = rest.split()
    bouts = [w for w in words if _is_bout(desk, w)]
    name = " ".join(w for w in words if w not in bouts) or None
    if not bouts:
        bouts = channel_bouts(desk, place)
        if not bouts:
            raise NotFoundError(
                f"no closed spar or table ledger in #{place.channel_name} to read (~fair reveal "
                "closes your table ledger; or name bout ids: ~luck Tarl BOUT_ID ...)"
            )
    bouts = list(dict.fromkeys(bouts))
    if len(bouts) > MAX_EXPORTS:
        raise LimitError(f"~luck reads at most {MAX_EXPORTS} bouts at once, got {len(bouts)}")
    fighter = name if name is not None else own_fighter(desk, bouts, who)
    readings: list[Reading] = []
    refused: list[str] = []
    for bout in bouts:
        try:
            if desk.service.store.get_bout(bout).status != "closed":
                raise NotFoundError(f"bout {bout} is not closed: its seed is not revealed yet")
            doc = desk.service.export(bout, ANONYMOUS)
            readings.append(reading(verified(doc, f"bout {bout}")))
        except RefereeError as err:
            refused.append(f"refused: {err.public}")
    if not readings:
        return Reply(["No export verified, so there is nothing to report.", *refused])
    lines = report_lines(luck_report(readings, fighter))
    return Reply([*lines, *refused, "The method and its false-alarm rate: docs/luck.md."])


def register_luck(
    bot: Any,
    add: Callable[..., Any],
    where: Callable[[commands.Context[Any]], Place],
    who: Callable[[commands.Context[Any]], Person],
) -> None:
    """Add `~luck` to the bot."""

    def _luck(ctx: commands.Context[Any], rest: str) -> Reply:
        return luck_reply(bot.desk, where(ctx), who(ctx), rest)

    add("luck")(_luck)
