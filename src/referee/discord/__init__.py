"""The referee as a Discord bot: verifiable rolls and MSV/SRP spars where the fighters are.

`build_bot(store, prefix="~")` returns the `discord.ext.commands.Bot`, ready to start. A spar
opened with `~spar:open msv NAME` is an ordinary bout called NAME in `store`: listed by
`Store.list_bouts()`, watched in the web console, exported and verified like any other.
Needs the `discord` extra (discord.py 2.x).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.discord.bot import RefereeBot
    from referee.store import Store

__all__ = ["build_bot"]


def build_bot(
    store: Store, *, prefix: str = "~", public_url: str | None = None, **options: Any
) -> RefereeBot:
    """The bot over `store`, ready to start with `await bot.start(token)`."""
    from referee.discord.bot import build_bot as build

    return build(store, prefix=prefix, public_url=public_url, **options)
