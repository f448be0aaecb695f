"""`~luck`: a record and a luck report from verified exports of the bot's bouts (docs/luck.md).

- `~luck`: your own, over every closed spar and table ledger you fought in through the bot
  (the latest MAX_EXPORTS), your fighters of each read as one under your latest name;
- `~luck @member`: that member's, the same way; `~luck NAME`: every member's who fought as NAME;
- `~luck [NAME] BOUT_ID ...`: the closed bouts named (a spar's or a revealed table ledger's id:
  its export's name says it, `table-ID.json`), NAME's dice in them (else yours, else everyone's);
- `~luck char NAME`: your saved character NAME's (`~char`), over the closed bouts of the service
  it fought in through any door (the console, the chat endpoint, the HUD, this bot), the latest
  MAX_EXPORTS, whatever names it fought under.

A bout is read once closed (its seed revealed: an open one cannot be verified yet, and its hidden
stats stay hidden). Every export is verified first, as `referee verify` does; one that does not
verify is refused with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from discord.ext import commands

from referee.discord.character_keys import characters
from referee.discord.desk import Desk
from referee.discord.messages import mentioned, without_mentions
from referee.discord.replies import Person, Reply
from referee.errors import LimitError, NotFoundError, RefereeError
from referee.lab.luck_exports import Reading, as_character, luck_report, reading, verified
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


def _closed(desk: Desk, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The closed bouts of (bout, fighter) rows, oldest first, the latest MAX_EXPORTS."""
    records = {bout: desk.service.store.get_bout(bout) for bout, _ in rows}
    closed = [row for row in rows if records[row[0]].status == "closed"]
    closed.sort(key=lambda row: (records[row[0]].created_at, row[0]))
    return closed[-MAX_EXPORTS:]


def _fighter_of(desk: Desk, bout: str, user: int) -> str:
    member = desk.links.member(bout, user)
    return member.fighter if member is not None and member.fighter is not None else ""


def _read(desk: Desk, bout: str) -> Reading:
    if desk.service.store.get_bout(bout).status != "closed":
        raise NotFoundError(f"bout {bout} is not closed: its seed is not revealed yet")
    return reading(verified(desk.service.export(bout, ANONYMOUS), f"bout {bout}"))


def luck_reply(desk: Desk, who: Person, rest: str) -> Reply:
    """One `~luck` (see the module text)."""
    users = mentioned(rest)
    words = without_mentions(rest).split()
    if words[:1] == ["char"] and not users:
        return _character_luck(desk, who, " ".join(words[1:]))
    named = list(dict.fromkeys(w for w in words if _is_bout(desk, w)))
    name = " ".join(w for w in words if w not in named) or None
    if len(named) > MAX_EXPORTS:
        raise LimitError(f"~luck reads at most {MAX_EXPORTS} bouts at once, got {len(named)}")
    label: str | None
    if named and name is not None:
        rows, label = [(bout, "") for bout in named], name
    elif named:  # your own fighter's dice in them (everyone's if you fought in none)
        rows = [(bout, _fighter_of(desk, bout, who.id)) for bout in named]
        label = next((fighter for _, fighter in reversed(rows) if fighter), None)
    else:
        member = users[0] if users else who.id
        found = desk.links.fought(fighter=name) if name else desk.links.fought(user_id=member)
        rows = _closed(desk, found)
        if not rows:
            whose = f"fought as {name}" if name else "you fought" if not users else "they fought"
            raise NotFoundError(
                f"no closed spar or table ledger {whose} in through this bot (~fair reveal "
                "closes your table ledger; or name bout ids: ~luck Tarl BOUT_ID ...)"
            )
        label = name or rows[-1][1]
    readings: list[Reading] = []
    refused: list[str] = []
    for bout, fighter in rows:
        try:
            read = _read(desk, bout)
        except RefereeError as err:
            refused.append(f"refused: {err.public}")
            continue
        readings.append(read.renamed(fighter, label) if fighter and label else read)
    if not readings:
        return Reply(["No export verified, so there is nothing to report.", *refused])
    lines = report_lines(luck_report(readings, label))
    return Reply([*lines, *refused, "The method and its false-alarm rate: docs/luck.md."])


def _character_luck(desk: Desk, who: Person, name: str) -> Reply:
    """`~luck char NAME`: the member's saved character's record and luck over the closed bouts
    it fought, through any door."""
    mine = [
        c for c in characters(desk.service.store, who.id) if c.name.casefold() == name.casefold()
    ]
    if not name or not mine or mine[0].id is None:
        raise NotFoundError(f"you have no character called {name!r} (~char list)")
    character = mine[0].id
    store = desk.service.store
    bouts = store.bouts_of_character(character)
    closed = [b for b in bouts if store.get_bout(b).status == "closed"][-MAX_EXPORTS:]
    if not closed:
        raise NotFoundError(f"{mine[0].name} has fought in no closed bout yet")
    readings: list[Reading] = []
    refused: list[str] = []
    for bout in closed:
        try:
            readings.append(_read(desk, bout))
        except RefereeError as err:
            refused.append(f"refused: {err.public}")
    kept, label = as_character(readings, character)
    if not kept:
        return Reply(["No export verified, so there is nothing to report.", *refused])
    lines = report_lines(luck_report(kept, label))
    return Reply([*lines, *refused, "The method and its false-alarm rate: docs/luck.md."])


def register_luck(
    bot: Any, add: Callable[..., Any], who: Callable[[commands.Context[Any]], Person]
) -> None:
    """Add `~luck` to the bot."""

    def _luck(ctx: commands.Context[Any], rest: str) -> Reply:
        return luck_reply(bot.desk, who(ctx), rest)

    add("luck")(_luck)
