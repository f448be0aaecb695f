"""Live streams: one reader per watched bout, woken by commits (this process, or another one
through PostgreSQL's LISTEN/NOTIFY), with the public view redacted once for every watcher.

The cross-process tests run `referee serve` with `--poll 3600`, so that only a notification can
bring another process's events to a stream within the (generous) wait."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.service.live import LiveHub, sse
from referee.store import Store
from referee.store.notify import listener_of
from tests.drafts import Draft
from tests.service_fixtures import SERVE, LiveServer, serve_process, start_server
from tests.test_service_bouts import BRAN, turns

WAIT = 60.0


def wait_for(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    """Wait until `condition()` holds (checked often; generous timeout, no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.01)


class Watcher:
    """A live stream read in a thread: the events it got, in order."""

    def __init__(self, url: str, source: str = "127.0.0.1") -> None:
        self.events: list[dict[str, Any]] = []
        self.status: int | None = None
        self.opened = threading.Event()
        self._stop = threading.Event()
        self._url = url
        self._source = source
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._read()
        except httpx.TransportError:
            if not self._stop.is_set():
                raise
            # Closed, and then the server stopped and cut the stream: nothing left to read.

    def _read(self) -> None:
        transport = httpx.HTTPTransport(local_address=self._source)
        with (
            httpx.Client(transport=transport, timeout=WAIT) as client,
            client.stream("GET", self._url) as response,
        ):
            self.status = response.status_code
            self.opened.set()
            kind = None
            for line in response.iter_lines():
                if self._stop.is_set():
                    return
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: ") and kind:
                    self.events.append(json.loads(line.removeprefix("data: ")))

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def wait_for_type(self, kind: str, count: int = 1) -> None:
        wait_for(lambda: self.types().count(kind) >= count)

    def close(self) -> None:
        self._stop.set()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[LiveServer, LiveHub]]:
    # A poll of an hour: in this process, only the commit's own wake-up can deliver in time.
    server, thread, store, url = start_server(str(tmp_path / "live.db"), poll_seconds=3600)
    with httpx.Client(base_url=url, timeout=WAIT) as http:
        yield LiveServer(url, store, http), server.config.app.state.live
    server.stop()
    thread.join(10)
    store.close()


def open_msv(live: LiveServer) -> tuple[str, str]:
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    return bout["id"], bout["referee_token"]


def test_the_streams_of_one_bout_share_one_reader(served: tuple[LiveServer, LiveHub]) -> None:
    live, hub = served
    bout, ref = open_msv(live)
    other, _ = open_msv(live)
    watchers = [Watcher(f"{live.url}/api/bouts/{bout}/events") for _ in range(5)]
    watchers.append(Watcher(f"{live.url}/api/bouts/{other}/events"))
    for watcher in watchers:
        assert watcher.opened.wait(WAIT) and watcher.status == 200
    wait_for(lambda: hub.streams == 6)
    assert hub.readers == 2  # five streams of one bout, one of another: two readers
    assert live.post(f"/api/bouts/{bout}/rolls", ref, json={"dice": "1d100"}).status_code == 200
    for watcher in watchers[:5]:
        watcher.wait_for_type("roll")
    seqs = {tuple(e["seq"] for e in w.events) for w in watchers[:5]}
    assert len(seqs) == 1  # every watcher got the same events in the same order
    assert "roll" not in watchers[5].types()
    for watcher in watchers:
        watcher.close()
    # Each stream ends when its client goes; a stream notices at its next line.
    live.post(f"/api/bouts/{bout}/rolls", ref, json={"dice": "1d100"})
    live.post(f"/api/bouts/{other}/rolls", ref, json={"dice": "1d100"})


def test_a_stream_starts_after_its_cursor(served: tuple[LiveServer, LiveHub]) -> None:
    live, _ = served
    bout, ref = open_msv(live)
    for _ in range(3):
        live.post(f"/api/bouts/{bout}/rolls", ref, json={"dice": "1d6"})
    log = live.get(f"/api/bouts/{bout}/log").json()
    watcher = Watcher(f"{live.url}/api/bouts/{bout}/events?after={log[1]['seq']}")
    wait_for(lambda: len(watcher.events) >= len(log) - 2)
    assert [e["seq"] for e in watcher.events] == [e["seq"] for e in log[2:]]
    watcher.close()


def test_hidden_stats_are_redacted_for_the_public_stream_only(
    served: tuple[LiveServer, LiveHub],
) -> None:
    live, _ = served
    made = live.post("/api/bouts", json={"system": "srp", "name": "Ford"}).json()
    bout, ref = made["id"], made["referee_token"]
    public = Watcher(f"{live.url}/api/bouts/{bout}/events")
    referee = Watcher(f"{live.url}/api/bouts/{bout}/events?token={ref}")
    body = {"name": "Bran", "sheet": BRAN, "hidden": ["defense"]}
    assert live.post(f"/api/bouts/{bout}/fighters", ref, json=body).status_code == 201
    public.wait_for_type("fighter_added")
    referee.wait_for_type("fighter_added")
    seen = {
        who: next(e for e in w.events if e["type"] == "fighter_added")["payload"]["stats"]
        for who, w in (("public", public), ("referee", referee))
    }
    assert (seen["public"]["defense"], seen["referee"]["defense"]) == ("hidden", 11)
    public.close()
    referee.close()


@pytest.mark.postgres
def test_a_commit_on_another_engine_is_notified(pg_url: str) -> None:
    with Store.open(pg_url) as listening, Store.open(pg_url) as writing:
        heard: list[str | None] = []
        stop = listening.watch(heard.append)
        try:
            listener = listener_of(listening._engine)
            assert listener is not None and listener.listening.wait(WAIT)
            writing.create_bout(system="msv", name="Spar", bout_id="notified")
            assert "notified" not in heard  # creating a bout appends no event
            writing.extend("notified", _note)
            wait_for(lambda: "notified" in heard)
            # A failed append (the build raises) notifies nothing.
            with pytest.raises(RuntimeError):
                writing.extend("notified", _failing)
            writing.extend("notified", _note)
            wait_for(lambda: heard.count("notified") >= 2)
            assert heard.count("notified") == 2
        finally:
            stop()


def test_a_commit_to_a_bout_nobody_watches_wakes_nothing_on_the_loop() -> None:
    """Most commits are to bouts no stream watches: they must not cost the event loop a
    wake-up each (a hand-off from the writer's thread); a watched bout's still does."""

    async def scenario() -> list[str | None]:
        hub = LiveHub(lambda bout_id, after: [], lambda bout_id, after: [])
        stream = hub.open("watched", -1, referee=True, address="127.0.0.1")
        assert await anext(stream) == "retry: 1000\n\n"  # the feed is registered
        loop = asyncio.get_running_loop()
        woken: list[str | None] = []
        plain = loop.call_soon_threadsafe

        def counted(callback: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(callback, "__self__", None) is hub:  # not the thread hand-offs' own
                woken.append(args[0] if args else None)
            return plain(callback, *args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]
        try:
            for bout_id in ("unwatched", "watched", None):
                await asyncio.to_thread(hub.heard, bout_id)
        finally:
            del loop.call_soon_threadsafe
            await stream.aclose()  # type: ignore[attr-defined]
            hub.close()
        return woken

    assert asyncio.run(scenario()) == ["watched", None]


def test_a_failed_write_wakes_no_one_in_process(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "w.db")) as store:
        heard: list[str | None] = []
        stop = store.watch(heard.append)
        store.create_bout(system="msv", name="Spar", bout_id="b1")
        with pytest.raises(RuntimeError):
            store.extend("b1", _failing)
        assert heard == []
        store.extend("b1", _note)
        assert heard == ["b1"]
        stop()
        store.extend("b1", _note)
        assert heard == ["b1"]


def _note(events: list[Any], dice: Any) -> list[Any]:
    return [Draft("note", None, {"n": len(events)})]


def _failing(events: list[Any], dice: Any) -> list[Any]:
    raise RuntimeError("the build fails")


def _serve(db: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    return serve_process(db, "--poll", "3600", *extra)


def _spar_through(writer: LiveServer, watch_url: str) -> None:
    """A whole MSV spar written through `writer` while a stream is held at `watch_url`:
    every event of the spar reaches that stream, in order."""
    made = writer.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    bout, ref = made["id"], made["referee_token"]
    watcher = Watcher(f"{watch_url}/api/bouts/{bout}/events")
    assert watcher.opened.wait(WAIT) and watcher.status == 200
    try:
        tokens = {}
        for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
            r = writer.post(f"/api/bouts/{bout}/fighters", ref, json={"name": name, "cs": cs})
            tokens[name] = r.json()["token"]
        watcher.wait_for_type("fighter_added", 2)
        assert writer.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
        for me, foe in turns(writer, bout, ("Pa-Kur", "Tarl")):
            body = {"attacker": me, "target": foe}
            assert (
                writer.post(f"/api/bouts/{bout}/attacks", tokens[me], json=body).status_code == 200
            )
        assert writer.post(f"/api/bouts/{bout}/close", ref).status_code == 200
        log = writer.get(f"/api/bouts/{bout}/log").json()
        wait_for(lambda: len(watcher.events) >= len(log))
        assert [(e["seq"], e["hash"]) for e in watcher.events] == [
            (e["seq"], e["hash"]) for e in log
        ]
        assert watcher.types().count("roll") >= 4
    finally:
        watcher.close()


@pytest.mark.postgres
def test_a_spar_on_one_process_reaches_a_stream_held_on_another(pg_url: str) -> None:
    started = [_serve(pg_url), _serve(pg_url)]
    urls = [url for _, url in started]
    try:
        with httpx.Client(base_url=urls[1], timeout=WAIT) as http:
            writer = LiveServer(urls[1], None, http)  # type: ignore[arg-type]
            _spar_through(writer, urls[0])
    finally:
        for proc, _ in started:
            proc.terminate()
            proc.communicate(timeout=30)


@pytest.mark.postgres
def test_serve_with_workers_on_one_postgres_database(pg_url: str) -> None:
    proc, url = _serve(pg_url, "--workers", "2")
    try:
        with httpx.Client(base_url=url, timeout=WAIT) as http:
            _spar_through(LiveServer(url, None, http), url)  # type: ignore[arg-type]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err


def test_workers_need_postgres(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SERVE, "--db", str(tmp_path / "r.db"), "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: --workers needs a PostgreSQL database")
    assert len(done.stderr.strip().splitlines()) == 1


class Stream:
    """A live stream read in a thread, every SSE event kept as (event name, data), and whether
    the server ended it."""

    def __init__(self, url: str) -> None:
        self.got: list[tuple[str, dict[str, Any]]] = []
        self.status: int | None = None
        self.ended = threading.Event()
        self._url = url
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with httpx.Client(timeout=WAIT) as client, client.stream("GET", self._url) as r:
                self.status = r.status_code
                kind = None
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        kind = line.removeprefix("event: ")
                    elif line.startswith("data: ") and kind:
                        self.got.append((kind, json.loads(line.removeprefix("data: "))))
        finally:
            self.ended.set()

    def names(self) -> list[str]:
        return [kind for kind, _ in self.got]

    def wait_for(self, kind: str) -> dict[str, Any]:
        wait_for(lambda: kind in self.names())
        return next(data for name, data in self.got if name == kind)


def hidden_bout(live: LiveServer) -> tuple[str, str]:
    made = live.post("/api/bouts", json={"system": "srp", "name": "Ford"}).json()
    return made["id"], made["referee_token"]


def add_hidden(live: LiveServer, bout: str, ref: str, name: str) -> str:
    body = {"name": name, "sheet": BRAN, "hidden": ["defense"]}
    r = live.post(f"/api/bouts/{bout}/fighters", ref, json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def test_a_referee_stream_stops_at_the_hand_over(live: LiveServer) -> None:
    bout, old = hidden_bout(live)
    stream = Stream(f"{live.url}/api/bouts/{bout}/events?token={old}")
    add_hidden(live, bout, old, "Bran")
    assert stream.wait_for("fighter_added")["payload"]["stats"]["defense"] == 11
    new = live.post(f"/api/bouts/{bout}/handover", old).json()["referee_token"]
    add_hidden(live, bout, new, "Cade")  # the next referee's, hidden from the old one
    assert stream.ended.wait(WAIT), "the old referee's stream goes on after the hand-over"
    assert stream.names()[-1] == "revoked"
    shown = [data for name, data in stream.got if name not in ("revoked",)]
    assert [e["type"] for e in shown][-1] == "fighter_added"  # nothing after the hand-over
    assert all(e["payload"].get("name") != "Cade" for e in shown)
    again = live.get(f"/api/bouts/{bout}/events", params={"token": old})
    assert again.status_code == 401
    current = Stream(f"{live.url}/api/bouts/{bout}/events?token={new}")
    wait_for(lambda: len([n for n in current.names() if n == "fighter_added"]) == 2)
    added = [d for n, d in current.got if n == "fighter_added"]
    assert [a["payload"]["stats"]["defense"] for a in added] == [11, 11]
    # The next hand-over ends this stream too (and so the test's server need not wait for it).
    assert live.post(f"/api/bouts/{bout}/handover", new).status_code == 200
    assert current.ended.wait(WAIT) and current.names()[-1] == "revoked"


@pytest.mark.parametrize("how", ["remove", "quit", "reissue"])
def test_a_fighters_stream_stops_when_its_token_is_revoked(live: LiveServer, how: str) -> None:
    bout, ref = hidden_bout(live)
    token = add_hidden(live, bout, ref, "Bran")
    add_hidden(live, bout, ref, "Cade")
    stream = Stream(f"{live.url}/api/bouts/{bout}/events?token={token}")
    wait_for(lambda: stream.names().count("fighter_added") == 2)
    if how == "remove":
        assert live.request("DELETE", f"/api/bouts/{bout}/fighters/Bran", ref).status_code == 200
    elif how == "quit":
        assert live.request("DELETE", f"/api/bouts/{bout}/fighters/Bran", token).status_code == 200
    else:
        assert live.post(f"/api/bouts/{bout}/fighters/Bran/token", ref).status_code == 200
        # A reissue writes no event: the old token's stream ends before the next one.
    assert live.post(f"/api/bouts/{bout}/rolls", ref, json={"dice": "1d6"}).status_code == 200
    assert stream.ended.wait(WAIT), f"the stream goes on after {how}"
    assert stream.names() == ["bout_opened", "fighter_added", "fighter_added", "revoked"]
    assert live.get(f"/api/bouts/{bout}/events", params={"token": token}).status_code == 401


def test_a_stream_older_than_what_its_feed_keeps_reads_the_rest_from_the_store() -> None:
    """A feed keeps the texts of its bout's last events only (`window`), so a watched bout's
    memory does not grow with its size; a stream that starts earlier gets the older events
    read from the store, each view its own, in order, then the ones the feed keeps."""
    records = [
        {"seq": i, "type": "note", "payload": {"n": i}, "hash": f"{i:064x}"} for i in range(10)
    ]

    def read(bout_id: str, after: int) -> list[dict[str, Any]]:
        return [r for r in records if r["seq"] > after]

    def public(bout_id: str, after: int) -> list[dict[str, Any]]:
        return [{**r, "payload": {"n": "hidden"}} for r in read(bout_id, after)]

    async def texts(hub: LiveHub, after: int, referee: bool) -> str:
        stream = hub.open("b", after, referee=referee, address="127.0.0.1")
        got = ""
        while got.count("\n\n") < 1 + len(records) - (after + 1):
            got += await asyncio.wait_for(anext(stream), 60)
        await stream.aclose()  # type: ignore[attr-defined]
        return got

    async def scenario() -> None:
        hub = LiveHub(read, public, window=3)
        keep = hub.open("b", 9, referee=False, address="127.0.0.1")  # the feed stays open
        assert await anext(keep) == "retry: 1000\n\n"
        for after, referee in ((-1, False), (4, False), (-1, True), (7, True)):
            shown = (read if referee else public)("b", after)
            assert await texts(hub, after, referee) == "retry: 1000\n\n" + "".join(
                sse(r) for r in shown
            )
        assert hub.kept("b") == (7, 3)
        await keep.aclose()  # type: ignore[attr-defined]
        hub.close()

    asyncio.run(scenario())
