"""Live streams (server-sent events) that scale with the number of watchers.

All streams of one bout share one `Feed`: one reader of the store, which wakes when this
process commits events to the bout, when PostgreSQL notifies a commit of another service
process (LISTEN/NOTIFY, see referee.store.notify), and otherwise every `poll_seconds` (the
fallback, and the only way on SQLite to see another process's writes). The feed formats
each event once per view (the referee's, and the public one with hidden stats redacted) and
every stream sends the same text. Streams are capped per client address and in all; over
the cap the answer is 429 (per address) or 503 (in all), each with Retry-After.

A stream opened with a token shows what that token grants (the referee's view to the referee's
token) only while the token still grants it: before it sends events it has not sent yet, it
asks whether its token still stands for the same caller (`Grant`), once per token and batch of
events for all the streams of a bout (`Feed.granted`), asked after those events were read. A
token revoked meanwhile (a hand-over, a fighter removed or quitting, a reissued link) ends the
stream with a last `revoked` event, before anything new is sent; the browser's reconnect then
gets 401.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool

from referee.errors import NotFoundError, RefereeError
from referee.ledger.seal import without_seal
from referee.service.limits import BusyError, RateLimitedError

log = logging.getLogger("referee.service")

#: Seconds between re-reads of a watched bout when nothing said it changed.
POLL_SECONDS = 0.25
#: The same with PostgreSQL notifications in place (a safety net only).
POLL_SECONDS_NOTIFIED = 5.0
#: A comment line this often keeps proxies and browsers from closing an idle stream.
HEARTBEAT_SECONDS = 15.0
#: Seconds a refused stream is told to wait.
STREAM_RETRY_AFTER = 5

Record = dict[str, Any]
#: (bout id, after seq) -> the bout's events after that seq: as stored (the referee's view), or
#: as the public may see them now (hidden stats redacted or sealed), the same seqs.
Read = Callable[[str, int], list[Record]]
#: Events of a bout a feed keeps (records and both views' texts): a stream that starts before
#: them reads the rest from the store, so a watched bout's memory does not grow with its size.
WINDOW = 10_000


@dataclass(frozen=True, slots=True)
class Grant:
    """What a stream's token grants, to be asked again: `still()` says (blocking: it reads the
    store) whether `token` still stands for the caller the stream was opened for."""

    token: str
    still: Callable[[], bool]


#: The last words of a stream whose token no longer grants what it showed.
REVOKED = (
    "event: revoked\ndata: "
    + json.dumps({"message": "this stream's token was revoked; open it again with a valid one"})
    + "\n\n"
)


def sse(record: Record) -> str:
    """One event as server-sent-event text: `id` = seq, `event` = type, `data` = the event."""
    data = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return f"id: {record['seq']}\nevent: {record['type']}\ndata: {data}\n\n"


@dataclass
class Feed:
    """One watched bout: its latest events (at most `window`, from seq `base` on), formatted
    once per view, and who waits for more."""

    bout_id: str
    referee_texts: list[str] = field(default_factory=list)
    public_texts: list[str] = field(default_factory=list)
    #: The seq of the first text of each view.
    base: int = 0
    window: int = WINDOW
    watchers: int = 0
    #: Set to wake the reader (a write was heard of).
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: Replaced (and the old one set) whenever events were added.
    updated: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set once the first read is done (or failed).
    loaded: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task[None] | None = None
    #: token -> how many of `records` it was last found to still grant (read before asking).
    grants: dict[str, int] = field(default_factory=dict)
    #: Tokens found revoked (a token never comes back).
    revoked: set[str] = field(default_factory=set)

    async def granted(self, grant: Grant, upto: int) -> bool:
        """Whether `grant.token` still grants what it did, asked after the first `upto`
        records were read (at most once per token and batch for all the bout's streams)."""
        if grant.token in self.revoked:
            return False
        if self.grants.get(grant.token, -1) >= upto:
            return True
        read = self.count  # the answer covers every record read before the question
        try:
            still = bool(await run_in_threadpool(grant.still))
        except Exception:  # cannot tell (the database is away): show nothing more
            log.warning("live stream could not check its token; the stream ends")
            return False
        if not still:
            self.revoked.add(grant.token)
            return False
        self.grants[grant.token] = max(self.grants.get(grant.token, -1), read)
        return True

    @property
    def count(self) -> int:
        """How many of the bout's events the feed has read (seq 0 to `count - 1`)."""
        return self.base + len(self.referee_texts)

    def add(self, new: list[Record], public: list[Record]) -> None:
        """Append events read from the store (seq order, following the ones held), and the same
        events as the public sees them; keep the latest `window`."""
        fresh = [r for r in new if r["seq"] >= self.count]
        if not fresh:
            return
        shown = {r["seq"]: r for r in public}
        self.referee_texts.extend(sse(without_seal(r)) for r in fresh)
        self.public_texts.extend(sse(shown[r["seq"]]) for r in fresh)
        over = len(self.referee_texts) - self.window
        if over > 0:
            del self.referee_texts[:over], self.public_texts[:over]
            self.base += over
        old, self.updated = self.updated, asyncio.Event()
        old.set()

    def texts(self, referee: bool) -> list[str]:
        """The view's texts of the events held (seq `base` on)."""
        return self.referee_texts if referee else self.public_texts


class LiveHub:
    """The live streams of one service process."""

    def __init__(
        self,
        read: Read,
        read_public: Read,
        *,
        watch: Callable[[Callable[[str | None], None]], Callable[[], None]] | None = None,
        notified: bool = False,
        poll_seconds: float | None = None,
        per_address: int = 20,
        total: int = 2000,
        window: int = WINDOW,
    ) -> None:
        self._read = read
        self._read_public = read_public
        self.window = window
        self._watch = watch
        default = POLL_SECONDS_NOTIFIED if notified else POLL_SECONDS
        self.poll_seconds = default if poll_seconds is None else poll_seconds
        self.per_address = per_address
        self.total = total
        self._feeds: dict[str, Feed] = {}
        self._by_address: dict[str, int] = {}
        self._open = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unwatch: Callable[[], None] | None = None

    # -- counts --------------------------------------------------------------------------

    @property
    def streams(self) -> int:
        """Streams open now."""
        return self._open

    @property
    def readers(self) -> int:
        """Bouts being read for their streams now (one reader each)."""
        return len(self._feeds)

    def kept(self, bout_id: str) -> tuple[int, int] | None:
        """What the feed of a watched bout keeps: (the seq of its first event, how many), or
        None for a bout nobody watches."""
        feed = self._feeds.get(bout_id)
        return None if feed is None else (feed.base, len(feed.referee_texts))

    # -- opening and closing -------------------------------------------------------------

    def open(
        self, bout_id: str, after: int, referee: bool, address: str, grant: Grant | None = None
    ) -> AsyncIterator[str]:
        """A stream of the bout's events after seq `after`, or RateLimitedError/BusyError.

        `grant`: the token the stream was opened with, asked again before each batch of events
        (the stream ends, with a `revoked` event, once it no longer grants what it did); None
        for a stream opened without a token.

        Call from the event loop; the slot is taken now and given back when the stream ends.
        """
        if self._open >= self.total:
            raise BusyError(
                f"the service holds {self.total} live streams, its most; try again later "
                "or poll /log",
                STREAM_RETRY_AFTER,
            )
        if self._by_address.get(address, 0) >= self.per_address:
            raise RateLimitedError(
                f"{address} has {self.per_address} live streams open, the most per address; "
                "close one first",
                STREAM_RETRY_AFTER,
            )
        self._start()
        self._open += 1
        self._by_address[address] = self._by_address.get(address, 0) + 1
        feed = self._feeds.get(bout_id)
        if feed is None:
            feed = self._feeds[bout_id] = Feed(bout_id, window=self.window)
        feed.watchers += 1
        if feed.reader is None:
            feed.reader = asyncio.get_running_loop().create_task(self._run(feed))
        released = [False]

        def release() -> None:
            if released[0]:
                return
            released[0] = True
            self._open -= 1
            left = self._by_address.get(address, 1) - 1
            if left:
                self._by_address[address] = left
            else:
                self._by_address.pop(address, None)
            feed.watchers -= 1
            if feed.watchers == 0 and self._feeds.get(bout_id) is feed:
                del self._feeds[bout_id]
                if feed.reader is not None:
                    feed.reader.cancel()

        stream = self._stream(feed, after, referee, release, grant)
        # A stream dropped before it ever started still gives its slot back.
        weakref.finalize(stream, _on_loop, self._loop, release)
        return stream

    async def _stream(
        self,
        feed: Feed,
        after: int,
        referee: bool,
        release: Callable[[], None],
        grant: Grant | None = None,
    ) -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n"
            await feed.loaded.wait()
            cursor = max(after + 1, 0)
            while True:
                updated = feed.updated
                base, texts = feed.base, feed.texts(referee)
                if cursor < base:  # older than the feed keeps: read from the store
                    if grant is not None and not await feed.granted(grant, base):
                        yield REVOKED
                        return
                    older = await run_in_threadpool(
                        self._older, feed.bout_id, cursor, base, referee
                    )
                    cursor = base
                    if older:
                        yield older
                    continue
                upto = base + len(texts)
                if upto > cursor:
                    # Taken before the grant is asked: the feed may move on meanwhile.
                    chunk = "".join(texts[cursor - base :])
                    if grant is not None and not await feed.granted(grant, upto):
                        yield REVOKED
                        return
                    cursor = upto
                    yield chunk
                    continue
                try:
                    await asyncio.wait_for(updated.wait(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    yield ": still here\n\n"
        finally:
            release()

    def _older(self, bout_id: str, start: int, stop: int, referee: bool) -> str:
        """The texts of the bout's events `start` to `stop - 1` in one view, read from the
        store (blocking)."""
        read = self._read if referee else self._read_public
        records = [r for r in read(bout_id, start - 1) if r["seq"] < stop]
        return "".join(sse(without_seal(r) if referee else r) for r in records)

    def _both(self, bout_id: str, after: int) -> tuple[list[Record], list[Record]]:
        """The bout's events after seq `after` as stored, and as the public may see them."""
        new = self._read(bout_id, after)
        return new, (self._read_public(bout_id, after) if new else [])

    async def _run(self, feed: Feed) -> None:
        """The one reader of a watched bout."""
        while True:
            feed.wake.clear()
            last = feed.count - 1
            try:
                new, public = await run_in_threadpool(self._both, feed.bout_id, last)
            except NotFoundError:
                new, public = [], []
            except RefereeError as err:  # e.g. the database is briefly unavailable
                log.warning("live stream of a bout could not read: %s", err)
                new, public = [], []
            feed.add(new, public)
            feed.loaded.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(feed.wake.wait(), self.poll_seconds)

    # -- wake-ups ------------------------------------------------------------------------

    def _start(self) -> None:
        if self._loop is not None:
            return
        self._loop = asyncio.get_running_loop()
        if self._watch is not None:
            self._unwatch = self._watch(self.heard)

    def heard(self, bout_id: str | None) -> None:
        """A commit to `bout_id` (None: any bout) was heard of; callable from any thread.

        A bout nobody watches wakes nothing (most commits): its feed, if one opens later,
        is registered before its reader's first read, which then sees this commit.
        """
        if bout_id is not None and bout_id not in self._feeds:
            return
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake, bout_id)

    def _wake(self, bout_id: str | None) -> None:
        if bout_id is None:
            for feed in self._feeds.values():
                feed.wake.set()
        else:
            watched = self._feeds.get(bout_id)
            if watched is not None:
                watched.wake.set()

    def close(self) -> None:
        """Stop listening and every reader (at shutdown)."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        for feed in list(self._feeds.values()):
            if feed.reader is not None:
                feed.reader.cancel()
        self._loop = None


def _on_loop(loop: asyncio.AbstractEventLoop | None, release: Callable[[], None]) -> None:
    """Run `release` on the hub's loop (finalizers may run on any thread)."""
    if loop is None or loop.is_closed():
        release()
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        release()
    else:
        loop.call_soon_threadsafe(release)
