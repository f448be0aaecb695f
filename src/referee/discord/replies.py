"""Who asks, where, and what the bot answers: the small values between Discord and the desk."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Person:
    """Who asks: their Discord id, the name they show, and whether they may manage the server.

    `proxy`: the kind of proxy bot (`pluralkit`, `tupperbox`) the member speaks through, as
    the persona `name` (the name the proxy posted under); None when they speak as themselves."""

    id: int
    name: str
    admin: bool = False
    proxy: str | None = None


@dataclass(frozen=True, slots=True)
class Place:
    """Where: the channel (its id and name) and the server."""

    channel: int
    guild: int | None = None
    channel_name: str = "channel"


@dataclass(frozen=True, slots=True)
class Button:
    """A button to show under the answer: its label and what pressing it does. With `menu`
    set it is one choice of the select menu of that name (placeholder) instead."""

    label: str
    action: str
    target: str
    menu: str | None = None


@dataclass(slots=True)
class Reply:
    """What the bot says: lines in the channel, maybe a file (and more: `files`), buttons and
    direct messages; `pings`: the members its mentions notify (no other mention pings anyone)."""

    lines: list[str]
    file: tuple[str, bytes] | None = None
    buttons: list[Button] = field(default_factory=list)
    direct: list[tuple[int, str]] = field(default_factory=list)
    pings: list[int] = field(default_factory=list)
    #: Files after `file` (`~fair reveal all`: one export per ledger it reveals).
    files: list[tuple[str, bytes]] = field(default_factory=list)
    #: The turn the buttons are for (`referee.discord.presses.turn_mark`), or only the spar
    #: (its id: `~spar:end`'s button); None: any.
    mark: str | None = None

    @property
    def attachments(self) -> list[tuple[str, bytes]]:
        """Every file of the reply, `file` first."""
        return ([self.file] if self.file is not None else []) + self.files

    @property
    def text(self) -> str:
        """The lines as one message."""
        return "\n".join(self.lines)
