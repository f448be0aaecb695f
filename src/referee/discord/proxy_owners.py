"""Who wrote a message a proxy bot posted: the member a persona's message acts for.

- **PluralKit** says it itself: its public API's message lookup (`GET /messages/{id}`, the id
  of the proxied message) answers with the message's `sender`, the Discord user who wrote the
  original. A 404 (PluralKit has not stored the message yet, or never proxied it) is asked
  again a few times; a 429 waits the `retry_after` it gives, within bounds; a timeout or any
  other answer refuses the message, and nothing changes.
- **Tupperbox** has no such API. The proxy's own record of who sent it is the member's
  original message, which Tupperbox deletes when it posts the copy: a message the bot saw in
  the same channel, by a person (not a bot), at most `WINDOW` seconds before the copy by
  Discord's own times (the snowflakes'), whose text holds the copy's text whole between the
  member's brackets, and which was deleted (Discord's delete event). Exactly one such message
  names its author; none, or two (two members typing the same words at once), refuses it.

>>> carries("k: ~spar:attack Orc", "~spar:attack Orc"), carries("~attack Orc", "~attack Orc")
(True, True)
>>> carries("~spar:attack Orc", "~spar:attack Elf"), carries("x" * 200 + "hi", "hi")
(False, False)
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass
from datetime import datetime

import aiohttp

from referee.errors import ConflictError, NotFoundError, RefereeError

#: PluralKit's public API (its docs: https://pluralkit.me/api).
PLURALKIT_API = "https://api.pluralkit.me/v2"
#: What the bot says it is to PluralKit (its API refuses a request without a User-Agent).
USER_AGENT = "referee-discord-bot (proxied fighters; +https://pluralkit.me/api)"
#: Most seconds between a member's original and the proxy's copy.
WINDOW = 10.0
#: Most characters of a member's brackets around the proxied text, both sides together.
MAX_BRACKETS = 100
#: Messages remembered per channel for Tupperbox, and deleted ids remembered in all.
SEEN_PER_CHANNEL, DELETED_KEPT = 100, 5000


def carries(original: str, copy: str) -> bool:
    """Whether a member's message `original` is what a proxy posted as `copy`: the copy's
    text whole inside it, with at most `MAX_BRACKETS` characters of brackets around it."""
    text, inner = original.strip(), copy.strip()
    if not inner or inner not in text:
        return False
    return len(text) - len(inner) <= MAX_BRACKETS


class PluralKit:
    """PluralKit's message lookup over HTTP. `base`: the API's address (a stand-in in tests);
    `timeout`: seconds per request; `tries`: requests per message at most; `pause`: seconds
    between a 404 and the next try; `most_wait`: the longest `retry_after` honoured."""

    def __init__(
        self, base: str = PLURALKIT_API, *, timeout: float = 5.0, tries: int = 3,
        pause: float = 0.5, most_wait: float = 2.0,
    ) -> None:  # fmt: skip
        self.base = base.rstrip("/")
        self.timeout, self.tries, self.pause, self.most_wait = timeout, tries, pause, most_wait

    async def sender(self, message_id: int, channel_id: int) -> int:
        """The Discord user who wrote the original of the proxied message `message_id`."""
        url = f"{self.base}/messages/{message_id}"
        limit = aiohttp.ClientTimeout(total=self.timeout)
        try:
            async with aiohttp.ClientSession(timeout=limit) as session:
                for attempt in range(self.tries):
                    last = attempt == self.tries - 1
                    async with session.get(url, headers={"User-Agent": USER_AGENT}) as answer:
                        body = await answer.text()
                        status = answer.status
                    if status == 200:
                        return _sender_of(body, message_id, channel_id)
                    if status == 404 and not last:
                        await asyncio.sleep(self.pause)
                        continue
                    if status == 429 and not last:
                        await asyncio.sleep(min(_retry_after(body), self.most_wait))
                        continue
                    raise _refusal(status)
        except (TimeoutError, aiohttp.ClientError):
            raise ConflictError(
                "PluralKit did not answer who sent this message; nothing changed (try again)"
            ) from None
        raise ConflictError("PluralKit did not say who sent this message")  # pragma: no cover


def _snowflake(text: str) -> bool:
    """Whether `text` is a Discord id: ASCII digits, at most 20."""
    return text.isascii() and text.isdigit() and len(text) <= 20


def _refusal(status: int) -> RefereeError:
    if status == 404:
        return NotFoundError("PluralKit does not know this message; nothing changed")
    if status == 429:
        return ConflictError("PluralKit is busy (rate limited); nothing changed: try again")
    return ConflictError(f"PluralKit answered {status}; nothing changed")


def _retry_after(body: str) -> float:
    """Seconds to wait, from a 429's JSON (`retry_after`, in milliseconds)."""
    try:
        wait = json.loads(body).get("retry_after", 1000)
    except (ValueError, AttributeError):
        return 1.0
    return max(0.0, float(wait) / 1000) if isinstance(wait, int | float) else 1.0


def _sender_of(body: str, message_id: int, channel_id: int) -> int:
    """The `sender` of PluralKit's message object, checked against the message asked about."""
    try:
        found = json.loads(body)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise ConflictError("PluralKit's answer is not a message; nothing changed")
    sender, channel = str(found.get("sender", "")), str(found.get("channel", ""))
    if not _snowflake(sender) or str(found.get("id", "")) != str(message_id):
        raise ConflictError("PluralKit's answer names no sender of this message; nothing changed")
    if channel != str(channel_id):
        raise ConflictError("PluralKit places this message in another channel; nothing changed")
    return int(sender)


@dataclass(frozen=True, slots=True)
class Seen:
    """A person's message the bot saw: its id, author, text and Discord's time of it."""

    id: int
    author: int
    author_name: str
    text: str
    at: datetime


class Originals:
    """The messages people wrote lately, per channel, and which were deleted: the record
    Tupperbox leaves of who sent what it posts. `wait`: seconds to wait for the original's
    deletion when the copy arrives first."""

    def __init__(self, wait: float = 3.0) -> None:
        self.wait = wait
        self.seen: dict[int, deque[Seen]] = {}
        self.deleted: dict[int, None] = {}  # the last `DELETED_KEPT`, oldest first
        self._changed = asyncio.Event()

    def saw(self, channel: int, message: Seen) -> None:
        """A person's message in `channel`."""
        self.seen.setdefault(channel, deque(maxlen=SEEN_PER_CHANNEL)).append(message)

    def gone(self, message_id: int) -> None:
        """Discord says the message `message_id` was deleted."""
        self.deleted[message_id] = None
        if len(self.deleted) > DELETED_KEPT:
            del self.deleted[next(iter(self.deleted))]
        self._changed.set()

    def _candidates(self, channel: int, text: str, at: datetime) -> list[Seen]:
        return [
            s
            for s in self.seen.get(channel, ())
            if 0 <= (at - s.at).total_seconds() <= WINDOW and carries(s.text, text)
        ]

    def _take(self, channel: int, found: Seen) -> Seen:
        """`found`, no longer a candidate: one original stands for one copy."""
        self.seen[channel].remove(found)
        return found

    async def author(self, channel: int, text: str, at: datetime) -> Seen:
        """The one person whose deleted message Tupperbox posted as `text` at `at` (looked
        for again after each deletion: another copy may have used an original meanwhile)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + self.wait
        while True:
            candidates = self._candidates(channel, text, at)
            if not candidates:
                raise NotFoundError(
                    "I cannot tell who sent this through Tupperbox (I did not see the "
                    "original); nothing changed"
                )
            gone = [s for s in candidates if s.id in self.deleted]
            if len(gone) > 1:
                raise ConflictError(
                    "two members wrote these words just now: I cannot tell whose this "
                    "Tupperbox message is; nothing changed"
                )
            left = until - loop.time()
            if gone and (len(gone) == len(candidates) or left <= 0):
                return self._take(channel, gone[0])
            if left <= 0:
                raise NotFoundError(
                    "Tupperbox did not delete an original of this message; nothing changed"
                )
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                continue
